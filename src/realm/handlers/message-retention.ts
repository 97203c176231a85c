/**
 * `delete_expired_messages`: message retention (https://zulip.com/help/message-retention-policy;
 * Zulip's zerver/lib/retention.py `archive_messages`, run periodically by the server).
 *
 * A channel message expires `retention` days after it was sent, where `retention` is the
 * channel's `message_retention_days` (-1 = forever) or, when that is null, the realm's
 * (null = forever); direct messages follow the realm's. Expired messages are deleted oldest
 * first, at most `MAX_RETENTION_DELETIONS` per command (the actor never runs unbounded work),
 * through `bulk-delete.ts` (records and `delete_message` events as for any deletion). Reply:
 * how many were deleted and whether nothing expired is left.
 *
 * The clock comes from outside the actor: `nowSeconds` is the caller's (the retention job's)
 * time, so the decision depends only on the command and the state.
 */
import { ok } from '../../errors.js';
import type { Stream } from '../../domain/realm-state.js';
import { messageLookupIndex } from '../../domain/recipient-index.js';
import type { RealmRecord } from '../../domain/records.js';
import type { Handler, RealmEvent, RealmView } from '../decision.js';
import { deleteInBatches } from './bulk-delete.js';

/** Messages one command deletes at most. */
export const MAX_RETENTION_DELETIONS = 1000;
const DAY_SECONDS = 86400;

/** `delete_expired_messages`, sent by the retention job (`realm/retention-job.ts`). */
export interface DeleteExpiredMessages {
  type: 'delete_expired_messages';
  /** The job's current time, UNIX seconds. */
  nowSeconds: number;
}

/** Reply of `delete_expired_messages`. */
export interface RetentionReplies {
  delete_expired_messages: { deleted: number; complete: boolean };
}

/** Retention in days for a recipient (null = kept forever). */
function retentionDays(state: RealmView, stream: Stream | undefined): number | null {
  const realm = state.settings.messageRetentionDays;
  if (stream === undefined || stream.messageRetentionDays === null) return realm === null || realm < 0 ? null : realm;
  return stream.messageRetentionDays < 0 ? null : stream.messageRetentionDays;
}

/** Whether any retention policy is set (the job skips realms without one). */
export function hasRetentionPolicy(state: RealmView): boolean {
  if (state.settings.messageRetentionDays !== null && state.settings.messageRetentionDays > 0) return true;
  for (const stream of state.streams.values()) if (stream.messageRetentionDays !== null && stream.messageRetentionDays > 0) return true;
  return false;
}

export const deleteExpiredMessages: Handler<DeleteExpiredMessages, RetentionReplies['delete_expired_messages']> = (state, cmd) => {
  const m = state.messages;
  const lists = messageLookupIndex(state).byRecipient;
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  const deleted = new Set<number>();
  let budget = MAX_RETENTION_DELETIONS;
  let complete = true;
  for (const [recipientId, recipient] of state.recipients) {
    const stream = recipient.type === 'stream' ? state.streams.get(recipient.streamId) : undefined;
    if (recipient.type === 'stream' && stream === undefined) continue;
    const days = retentionDays(state, stream);
    if (days === null) continue;
    const cutoff = cmd.nowSeconds - days * DAY_SECONDS;
    const list = lists.get(recipientId);
    const expired: number[] = [];
    // Lists are ascending by id, and ids follow send time: stop at the first message still kept.
    for (let i = 0; i < (list?.length ?? 0); i++) {
      const id = list!.get(i);
      if (!m.exists(id) || m.recipient.get(id) !== recipientId) continue;
      if (m.timestamp.get(id) >= cutoff) break;
      if (expired.length === budget) {
        complete = false;
        break;
      }
      expired.push(id);
    }
    if (expired.length === 0) continue;
    budget -= expired.length;
    const batch = deleteInBatches(state, stream, expired, deleted);
    records.push(...batch.records);
    events.push(...batch.events);
    if (budget === 0) {
      complete = false;
      break;
    }
  }
  return ok({ records, events, reply: { deleted: deleted.size, complete } });
};
