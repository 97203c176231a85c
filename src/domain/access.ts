/**
 * Who may see what. "Unknown" and "not allowed to see" must give the same error (src/README.md: errors),
 * so these return booleans and callers pick the single error for both cases.
 */
import { Role, type RealmState, type Stream, type User } from './realm-state.js';

/** Whether the user is currently subscribed to the channel. */
export function isSubscribed(state: RealmState, userId: number, streamId: number): boolean {
  return state.subscriptions.get(streamId)?.has(userId) ?? false;
}

/**
 * Metadata access to a channel (it may be named, looked up, listed): web-public, public for
 * non-guests, subscribers, and realm administrators (https://zulip.com/api/get-stream-by-id).
 */
export function canSeeStream(state: RealmState, user: User, stream: Stream): boolean {
  if (stream.isWebPublic) return true;
  if (!stream.inviteOnly && user.role !== Role.guest) return true;
  if (isSubscribed(state, user.id, stream.id)) return true;
  return user.role <= Role.admin;
}

/**
 * The channel with this id if `user` may see it, else undefined — callers answer both cases with
 * the same error (no existence oracle, src/README.md: errors).
 */
export function visibleStream(state: RealmState, user: User, streamId: number): Stream | undefined {
  const stream = state.streams.get(streamId);
  return stream !== undefined && canSeeStream(state, user, stream) ? stream : undefined;
}

/**
 * Access to one message (`has_message_access`, https://zulip.com/api/get-message): a direct message needs a
 * UserMessage row; a channel message in a public channel is visible to non-guests; a private
 * channel with protected history needs a row AND a current subscription; otherwise (shared
 * history, or a guest in a public channel) a current subscription.
 */
export function canAccessMessage(state: RealmState, user: User, messageId: number): boolean {
  const m = state.messages;
  if (!m.exists(messageId)) return false;
  const recipient = state.recipients.get(m.recipient.get(messageId));
  if (recipient === undefined) return false;
  if (recipient.type === 'direct') return m.userFlags(user.id, messageId) !== undefined;
  const stream = state.streams.get(recipient.streamId);
  if (stream === undefined) return false;
  if (!stream.inviteOnly && user.role !== Role.guest) return true;
  const subscribed = isSubscribed(state, user.id, stream.id);
  if (stream.inviteOnly && !stream.historyPublicToSubscribers) {
    return subscribed && m.userFlags(user.id, messageId) !== undefined;
  }
  return subscribed;
}
