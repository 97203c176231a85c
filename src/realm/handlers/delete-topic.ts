/**
 * `delete_topic`: `POST /streams/{stream_id}/delete_topic` (https://zulip.com/api/delete-topic;
 * Zulip's zerver/views/streams.py `delete_in_topic`, zerver/actions/message_delete.py
 * `do_delete_messages`).
 *
 * Rules: organization administrators only (`require_realm_admin`, through the access family);
 * the channel through `access_stream_by_id` ("Invalid channel ID"). The topic matches
 * case-insensitively. In a channel whose history is not public to subscribers only the
 * messages the administrator received (has a UserMessage row for) are deleted.
 *
 * Batching: Zulip deletes newest first in batches of 100 (`RETENTION_STREAM_MESSAGE_BATCH_SIZE`)
 * until a 50 s timeout, then answers `complete: false` and the client repeats the request. Here
 * one request deletes at most `MAX_DELETE_TOPIC_MESSAGES` messages (the actor never runs unbounded
 * work for one request), in batches of 100: one `messages_deleted` record and one `delete_message`
 * event (`message_ids` of the batch, `message_type: "stream"`, `stream_id`, `topic`) per batch,
 * preceded by the `first_message_id` stream update when the batch removes the channel's first
 * message. Reply `{complete}`: true when no matching message remains.
 */
import { ok, fail, Errors } from '../../errors.js';
import type { Stream } from '../../domain/realm-state.js';
import { accessStreamById, requireRealmAdmin } from '../../domain/access.js';
import { messageLookupIndex } from '../../domain/recipient-index.js';
import type { Handler, RealmView } from '../decision.js';
import { DELETE_BATCH_SIZE, deleteInBatches } from './bulk-delete.js';

/** Zulip's `RETENTION_STREAM_MESSAGE_BATCH_SIZE` (see `bulk-delete.ts`). */
export const DELETE_TOPIC_BATCH_SIZE = DELETE_BATCH_SIZE;
/** Messages one `delete_topic` request deletes at most (then `complete: false`). */
export const MAX_DELETE_TOPIC_MESSAGES = 1000;

/** `POST /streams/{stream_id}/delete_topic`. */
export interface DeleteTopic {
  type: 'delete_topic';
  actorId: number;
  streamId: number;
  topic: string;
}

/** Reply of `delete_topic`. */
export interface DeleteTopicReplies {
  delete_topic: { complete: boolean };
}

/** Ids of the topic's messages `actorId` may delete, newest first. */
function deletableIds(state: RealmView, stream: Stream, topic: string, actorId: number): number[] {
  const m = state.messages;
  const wanted = topic.toLowerCase();
  const ids: number[] = [];
  const list = messageLookupIndex(state).byRecipient.get(stream.recipientId);
  for (let i = (list?.length ?? 0) - 1; i >= 0; i--) {
    const id = list!.get(i);
    if (!m.exists(id) || m.recipient.get(id) !== stream.recipientId) continue;
    if (state.topics.value(m.topic.get(id)).toLowerCase() !== wanted) continue;
    if (!stream.historyPublicToSubscribers && m.userFlags(actorId, id) === undefined) continue;
    ids.push(id);
  }
  return ids;
}

export const deleteTopic: Handler<DeleteTopic, DeleteTopicReplies['delete_topic']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  const actor = admin.value;
  const access = accessStreamById(state, actor, cmd.streamId);
  if (!access.ok) return access;
  const stream = access.value.stream;
  const all = deletableIds(state, stream, cmd.topic, actor.id);
  const { records, events } = deleteInBatches(state, stream, all.slice(0, MAX_DELETE_TOPIC_MESSAGES));
  return ok({ records, events, reply: { complete: all.length <= MAX_DELETE_TOPIC_MESSAGES } });
};
