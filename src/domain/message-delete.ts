/**
 * Message deletion as persisted facts (https://zulip.com/api/delete-message; Zulip's `do_delete_messages`).
 *
 * A deleted message disappears for everyone: `evolveMessagesDeleted` clears its `exists` bit in
 * the message index (every reader checks it: `MessageIndex.exists`, `canAccessMessage`, the
 * `GET /messages` planner, the lookup lists of `recipient-index.ts`, which are candidate sets)
 * and removes every user's UserMessage row for it, so it no longer counts anywhere that walks
 * rows (`unread_msgs`, `starred_messages`, `recent_private_conversations`, `max_message_id`).
 * The stored body stays in the LMDB bodies table, unreachable (ids are never reused).
 */
import type { RealmState } from './realm-state.js';

/**
 * `messages_deleted` v1: `ids` were deleted (ascending). `firstMessageIds` carries, for a channel
 * whose `first_message_id` was among them, its new value (null when no message is left) —
 * decided by the handler, so replay needs no lookup.
 */
export interface MessagesDeleted {
  type: 'messages_deleted';
  v: 1;
  ids: number[];
  firstMessageIds?: Array<{ streamId: number; firstMessageId: number | null }>;
}

/** Folds `messages_deleted`: clears the `exists` bits, drops the users' rows, updates `first_message_id`s. */
export function evolveMessagesDeleted(state: RealmState, r: MessagesDeleted): void {
  const m = state.messages;
  for (const id of r.ids) {
    if (!m.exists(id)) continue;
    for (const rows of m.users.values()) rows.remove(id);
    m.markDeleted(id);
    // As Zulip, reactions and edit history go with the message.
    state.reactions?.byMessage.delete(id);
    state.editHistory?.delete(id);
  }
  for (const { streamId, firstMessageId } of r.firstMessageIds ?? []) {
    const stream = state.streams.get(streamId);
    if (stream !== undefined) stream.firstMessageId = firstMessageId;
  }
}
