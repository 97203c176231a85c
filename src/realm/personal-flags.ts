/**
 * The per-recipient UserMessage flags a message gets from its recipients' personal features, on
 * top of the mention flags from rendering:
 * - `read` for every recipient who muted the sender (Zulip's zerver/actions/message_send.py
 *   `do_send_messages`: `mark_as_read_user_ids` includes the sender's muters, so the message is
 *   never unread nor notified for them);
 * - `has_alert_word` for every recipient with an alert word in the raw content, the sender
 *   included (Zulip's markdown `AlertWordNotificationProcessor` → `user_ids_with_alert_words`;
 *   recomputed on a content edit).
 */
import { Flag } from '../domain/message-index.js';
import { usersAlertedBy } from '../domain/alert-words.js';
import { usersMuting } from '../domain/muted-users.js';
import type { RealmState } from '../domain/realm-state.js';

/**
 * `base` (recipient id → flag bits) with the muted-sender `read` bit and the `has_alert_word` bit
 * added for the `receivers` they apply to; `base` itself (not copied) when nobody in the realm
 * muted anyone or has alert words, so the common send costs nothing here. `isEdit`: only the
 * alert-word bit (muting applies when a message is delivered, not when it is edited).
 */
export function withPersonalFlags(
  state: RealmState,
  senderId: number,
  content: string,
  receivers: Iterable<number>,
  base: Record<number, number>,
  isEdit = false,
): Record<number, number> {
  const anyMutes = !isEdit && state.mutedUsers !== undefined && state.mutedUsers.size > 0;
  const anyWords = state.alertWords !== undefined && state.alertWords.size > 0;
  if (!anyMutes && !anyWords) return base;
  const out: Record<number, number> = { ...base };
  const list = [...receivers];
  if (anyMutes) {
    const muting = usersMuting(state, senderId);
    for (const id of list) if (id !== senderId && muting.has(id)) out[id] = (out[id] ?? 0) | Flag.read;
  }
  if (anyWords) for (const id of usersAlertedBy(state, content, list)) out[id] = (out[id] ?? 0) | Flag.has_alert_word;
  return out;
}
