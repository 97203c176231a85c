/**
 * `GET /messages/{message_id}/read_receipts` (https://zulip.com/api/get-read-receipts; Zulip's
 * zerver/views/read_receipts.py `read_receipts`): who has read a message, as `viewer` may learn it.
 *
 * In Zulip's order: the message through `access_message` ("Invalid message(s)"), then the
 * realm's `enable_read_receipts` ("Read receipts are disabled in this organization."). Listed:
 * active users (bots included) with the `read` flag on their row for the message and
 * `send_read_receipts` on, never the sender, never a user `viewer` muted nor one who muted
 * `viewer`. Ascending user ids. Cost: one row lookup per active user.
 */
import { fail, ok, Errors, type Result } from '../../errors.js';
import { accessMessage } from '../../domain/access.js';
import { Flag } from '../../domain/message-index.js';
import { isMuted } from '../../domain/muted-users.js';
import { personalSetting } from '../../domain/user-settings.js';
import type { RealmState, User } from '../../domain/realm-state.js';

/** The ids of the users whose read receipt for `messageId` `viewer` may see, or the error. */
export function readReceiptUserIds(state: RealmState, viewer: User, messageId: number): Result<number[]> {
  const access = accessMessage(state, viewer, messageId);
  if (!access.ok) return access;
  if (state.settings.enableReadReceipts !== true) return fail(Errors.readReceiptsDisabled());
  const m = state.messages;
  const senderId = m.sender.get(messageId);
  const out: number[] = [];
  for (const user of state.users.values()) {
    if (!user.isActive || user.id === senderId) continue;
    const flags = m.userFlags(user.id, messageId);
    if (flags === undefined || (flags & Flag.read) === 0) continue;
    if (personalSetting(user, 'send_read_receipts') === false) continue;
    if (isMuted(state, viewer.id, user.id) || isMuted(state, user.id, viewer.id)) continue;
    out.push(user.id);
  }
  return ok(out.sort((a, b) => a - b));
}
