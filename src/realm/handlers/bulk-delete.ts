/**
 * Server-side deletion of many messages of one conversation (Zulip's zerver/actions/message_delete.py
 * `do_delete_messages`, as called by `delete_in_topic` and the retention job): records and events
 * for batches of ids, shared by `delete-topic.ts` and `message-retention.ts`.
 *
 * Per batch: one `messages_deleted` record and one `delete_message` event (`message_ids`;
 * channel messages with `message_type: "stream"`, `stream_id`, `topic` of the batch's first
 * message; direct messages with `message_type: "private"`) to the channel's active subscribers
 * plus every holder of a UserMessage row. When a batch removes a channel's first message, the
 * `first_message_id` stream update (to everyone who can see the channel) precedes it.
 */
import type { Stream } from '../../domain/realm-state.js';
import { hasMetadataAccess } from '../../domain/access.js';
import type { MessagesDeleted } from '../../domain/message-delete.js';
import type { RealmEvent, RealmView } from '../decision.js';
import { nextFirstMessageId, rowOwners } from './message-delete.js';

/** Zulip's `RETENTION_STREAM_MESSAGE_BATCH_SIZE`. */
export const DELETE_BATCH_SIZE = 100;

/**
 * Records and events deleting `ids` (all of one conversation: `stream` for a channel, undefined for
 * direct messages), in batches of `DELETE_BATCH_SIZE` in the given order. `alreadyDeleted` holds
 * ids deleted by earlier records of the same decision (the channel's first message is computed
 * past them) and is extended.
 */
export function deleteInBatches(
  state: RealmView,
  stream: Stream | undefined,
  ids: readonly number[],
  alreadyDeleted: Set<number> = new Set(),
): { records: MessagesDeleted[]; events: RealmEvent[] } {
  const records: MessagesDeleted[] = [];
  const events: RealmEvent[] = [];
  let firstMessageId = stream?.firstMessageId ?? null;
  if (stream !== undefined && firstMessageId !== null && alreadyDeleted.has(firstMessageId)) firstMessageId = nextFirstMessageId(state, stream, alreadyDeleted);
  const subscribers = stream === undefined ? [] : [...(state.subscriptions.get(stream.id)?.keys() ?? [])].filter((id) => state.users.get(id)?.isActive);
  for (let start = 0; start < ids.length; start += DELETE_BATCH_SIZE) {
    const batch = ids.slice(start, start + DELETE_BATCH_SIZE).sort((a, b) => a - b);
    for (const id of batch) alreadyDeleted.add(id);
    const record: MessagesDeleted = { type: 'messages_deleted', v: 1, ids: batch };
    if (stream !== undefined && firstMessageId !== null && alreadyDeleted.has(firstMessageId)) {
      firstMessageId = nextFirstMessageId(state, stream, alreadyDeleted);
      record.firstMessageIds = [{ streamId: stream.id, firstMessageId }];
      const viewers = [...state.users.values()].filter((u) => u.isActive && hasMetadataAccess(state, u, stream)).map((u) => u.id);
      events.push({ userIds: viewers, payload: { type: 'stream', op: 'update', property: 'first_message_id', value: firstMessageId, stream_id: stream.id, name: stream.name } });
    }
    records.push(record);
    const notify = new Set(subscribers);
    for (const id of batch) for (const owner of rowOwners(state, id)) notify.add(owner);
    const userIds = [...notify].sort((a, b) => a - b);
    if (stream === undefined) {
      events.push({ userIds, payload: { type: 'delete_message', message_ids: batch, message_type: 'private' } });
      continue;
    }
    const topic = state.topics.value(state.messages.topic.get(batch[0]!));
    const deletion: RealmEvent = { userIds, payload: { type: 'delete_message', message_ids: batch, message_type: 'stream', stream_id: stream.id, topic } };
    if (topic === '') deletion.emptyTopicDisplayName = state.settings.emptyTopicDisplayName;
    events.push(deletion);
  }
  return { records, events };
}
