/**
 * `DELETE /messages/{message_id}` (https://zulip.com/api/delete-message; Zulip's `delete_message_backend`,
 * `validate_can_delete_message` and `do_delete_messages` at feature level 417;
 * https://zulip.com/api/group-setting-values for the
 * channel permission settings).
 *
 * Checks, in Zulip's order (every error 400 BAD_REQUEST):
 * 1. the message must be accessible to the actor and not in an archived channel (`accessMessage`
 *    for modification) → "Invalid message(s)"
 *    (also for an already deleted message: deletion is serialized by the realm actor, so Zulip's
 *    "Message already deleted" race cannot happen here);
 * 2. a member of the realm's `can_delete_any_message_group`, or for a channel message of the
 *    channel's `can_delete_any_message_group`, may delete it, at any time;
 * 3. otherwise the message must be the actor's own or sent by one of the actor's bots →
 *    "You don't have permission to delete this message";
 * 4. the actor must be in the realm's `can_delete_own_message_group`, or (channel messages only)
 *    in the channel's `can_delete_own_message_group` → the same string;
 * 5. the realm's `message_content_delete_limit_seconds` (null = no limit): older than that, with
 *    no grace period → "The time limit for deleting this message has passed".
 *
 * Effects: one `messages_deleted` record (see `domain/message-delete.ts`). Events:
 * - `delete_message` `{message_ids: [id], message_type: "stream"|"private", stream_id?, topic?}`
 *   (channel fields only for channel messages; per-queue rewriting into the legacy one-event-per-id
 *   `message_id` form for clients without `bulk_message_deletion`, and of the empty topic for
 *   clients without `empty_topic_name`, happens in `events/event-queues.ts`), to the users with a
 *   UserMessage row for it plus, for a channel message, the channel's active subscribers (Zulip
 *   notifies the subscribers; the row owners are added so that every client whose `unread_msgs`
 *   or `recent_private_conversations` held the message hears of its deletion);
 * - before it, when the channel's `first_message_id` was the deleted message, Zulip's
 *   `{type: "stream", op: "update", property: "first_message_id", value, stream_id, name}` to
 *   every active user who can see the channel (Zulip: to its subscribers only; parley sends it to
 *   all whose /register state lists the channel, so their state stays right).
 */
import { ok, fail, Errors } from '../../errors.js';
import type { RealmState, Stream, User } from '../../domain/realm-state.js';
import { accessMessage, hasMetadataAccess, hasRealmPermission } from '../../domain/access.js';
import { hasGroupPermission } from '../../domain/groups.js';
import { messageLookupIndex } from '../../domain/recipient-index.js';
import type { MessagesDeleted } from '../../domain/message-delete.js';
import type { Handler, RealmEvent } from '../decision.js';
import type { EventPayloadOf } from '../../events/schemas.js';

/** `DELETE /messages/{message_id}`. */
export interface DeleteMessage {
  type: 'delete_message';
  actorId: number;
  messageId: number;
  /**
   * Set only by follow-ups (never from client input): skips the access and permission checks, as
   * Zulip's `do_delete_messages` called by server code (e.g. undoing a resolve notification).
   */
  internal?: true;
}

/** Zulip's error strings, byte for byte. */
export const MessageDeleteErrors = {
  noPermission: () => Errors.badRequest("You don't have permission to delete this message"),
  timeLimit: () => Errors.badRequest('The time limit for deleting this message has passed'),
} as const;

/**
 * Zulip's `validate_can_delete_message`: null when `actor` may delete message `id` (which must
 * exist) at time `now` (UNIX seconds), else the error.
 */
export function deletePermissionError(state: RealmState, actor: User, id: number, now: number) {
  const m = state.messages;
  if (hasRealmPermission(state, actor, 'can_delete_any_message_group')) return null;
  const stream = channelOf(state, id);
  if (stream !== undefined && hasGroupPermission(state, actor.id, stream.groups.can_delete_any_message_group)) return null;

  const senderId = m.sender.get(id);
  if (senderId !== actor.id && state.users.get(senderId)?.botOwnerId !== actor.id) return MessageDeleteErrors.noPermission();

  if (!hasRealmPermission(state, actor, 'can_delete_own_message_group')) {
    if (stream === undefined) return MessageDeleteErrors.noPermission();
    if (!hasGroupPermission(state, actor.id, stream.groups.can_delete_own_message_group)) return MessageDeleteErrors.noPermission();
  }

  const limit = state.settings.messageContentDeleteLimitSeconds;
  if (limit !== null && now - m.timestamp.get(id) > limit) return MessageDeleteErrors.timeLimit();
  return null;
}

/** The channel of a channel message, or undefined for a direct message. */
function channelOf(state: RealmState, id: number): Stream | undefined {
  const recipient = state.recipients.get(state.messages.recipient.get(id));
  return recipient?.type === 'stream' ? state.streams.get(recipient.streamId) : undefined;
}

/** Users holding a UserMessage row for `id`, ascending. */
export function rowOwners(state: RealmState, id: number): number[] {
  const out: number[] = [];
  for (const [userId, rows] of state.messages.users) if (rows.indexOf(id) >= 0) out.push(userId);
  return out.sort((a, b) => a - b);
}

/** The channel's oldest remaining message once `deleted` is gone, or null. */
export function nextFirstMessageId(state: RealmState, stream: Stream, deleted: ReadonlySet<number>): number | null {
  const list = messageLookupIndex(state).byRecipient.get(stream.recipientId);
  const m = state.messages;
  for (let i = 0; i < (list?.length ?? 0); i++) {
    const id = list!.get(i);
    if (!deleted.has(id) && m.exists(id) && m.recipient.get(id) === stream.recipientId) return id;
  }
  return null;
}

export const deleteMessage: Handler<DeleteMessage, Record<string, never>> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const id = cmd.messageId;
  if (cmd.internal) {
    if (!state.messages.exists(id)) return fail(Errors.invalidMessage());
  } else {
    // Zulip's delete_message_backend: access_message(is_modifying_message=True).
    const access = accessMessage(state, actor, id, { forModification: true });
    if (!access.ok) return access;
    const error = deletePermissionError(state, actor, id, ctx.now());
    if (error !== null) return fail(error);
  }

  const m = state.messages;
  const stream = channelOf(state, id);
  const record: MessagesDeleted = { type: 'messages_deleted', v: 1, ids: [id] };
  const topic = stream === undefined ? undefined : state.topics.value(m.topic.get(id));
  const payload: EventPayloadOf<'delete_message'> =
    stream === undefined || topic === undefined
      ? { type: 'delete_message', message_ids: [id], message_type: 'private' }
      : { type: 'delete_message', message_ids: [id], message_type: 'stream', stream_id: stream.id, topic };
  const notify = new Set(rowOwners(state, id));
  const events: RealmEvent[] = [];
  if (stream !== undefined) {
    for (const userId of state.subscriptions.get(stream.id)?.keys() ?? []) {
      if (state.users.get(userId)?.isActive) notify.add(userId);
    }
    if (stream.firstMessageId === id) {
      const firstMessageId = nextFirstMessageId(state, stream, new Set(record.ids));
      record.firstMessageIds = [{ streamId: stream.id, firstMessageId }];
      const viewers: number[] = [];
      for (const user of state.users.values()) if (user.isActive && hasMetadataAccess(state, user, stream)) viewers.push(user.id);
      events.push({
        userIds: viewers,
        payload: { type: 'stream', op: 'update', property: 'first_message_id', value: firstMessageId, stream_id: stream.id, name: stream.name },
      });
    }
  }
  // As Zulip: the first_message_id update is queued before the deletion event.
  const deletion: RealmEvent = { userIds: [...notify].sort((a, b) => a - b), payload };
  if (topic === '') deletion.emptyTopicDisplayName = state.settings.emptyTopicDisplayName;
  events.push(deletion);
  return ok({ records: [record], events, reply: {} });
};
