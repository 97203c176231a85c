/**
 * Message access (Zulip's zerver/lib/message.py `has_message_access`, `access_message`): who may
 * read, react to, flag or edit one message. Unknown and inaccessible ids give the same error.
 */
import { Errors, fail, ok, type Result, type ZulipError } from '../../errors.js';
import { Role, type RealmState, type Stream, type User } from '../realm-state.js';
import { hasContentAccess, isSubscribed } from './streams.js';

/**
 * How `user` may read the messages of `stream` (Zulip's `has_message_access`, per channel):
 * `all` — public channel for a non-guest, or shared history with content access; `received` —
 * protected history and subscribed: only messages with a UserMessage row; `none` otherwise.
 * Archived channels keep their messages readable (the `archived_channels` capability's reads).
 */
export function channelMessageAccess(state: RealmState, user: User, stream: Stream): 'all' | 'received' | 'none' {
  if (!stream.inviteOnly && user.role !== Role.guest) return 'all';
  if (!stream.historyPublicToSubscribers) return isSubscribed(state, user.id, stream.id) ? 'received' : 'none';
  return hasContentAccess(state, user, stream) ? 'all' : 'none';
}

/**
 * Zulip's `has_message_access`: a direct message needs a UserMessage row; a channel message
 * follows {@link channelMessageAccess}.
 */
export function canAccessMessage(state: RealmState, user: User, messageId: number): boolean {
  const m = state.messages;
  if (!m.exists(messageId)) return false;
  const recipient = state.recipients.get(m.recipient.get(messageId));
  if (recipient === undefined) return false;
  if (recipient.type === 'direct') return m.userFlags(user.id, messageId) !== undefined;
  const stream = state.streams.get(recipient.streamId);
  if (stream === undefined) return false;
  const access = channelMessageAccess(state, user, stream);
  return access === 'all' || (access === 'received' && m.userFlags(user.id, messageId) !== undefined);
}

/** Options of {@link accessMessage}. */
export interface MessageAccessOptions {
  /** Zulip's `is_modifying_message`: messages of archived channels are refused (default false). */
  forModification?: boolean;
}

/**
 * Zulip's `access_message`: the message id back, or `Invalid message(s)` (unknown, inaccessible,
 * deactivated actor, and — when modifying — a message in an archived channel, alike).
 */
export function accessMessage(state: RealmState, user: User, messageId: number, opts: MessageAccessOptions = {}): Result<number> {
  if (!user.isActive || !canAccessMessage(state, user, messageId)) return fail(Errors.invalidMessage());
  if (opts.forModification) {
    const recipient = state.recipients.get(state.messages.recipient.get(messageId));
    if (recipient?.type === 'stream' && state.streams.get(recipient.streamId)?.isArchived === true) return fail(Errors.invalidMessage());
  }
  return ok(messageId);
}

/**
 * Zulip's zerver/lib/message.py `validate_user_can_edit_message` for content edits: editing
 * turned off for the realm, someone else's message, or past the realm's
 * `message_content_edit_limit_seconds` plus `bufferSeconds` (Zulip's `edit_limit_buffer`: 20 s for
 * an edit, 0 for the edit-typing notification). `ageSeconds` = now − the message's timestamp.
 */
export function checkCanEditMessageContent(state: RealmState, actor: User, senderId: number, ageSeconds: number, bufferSeconds: number): ZulipError | null {
  const settings = state.settings;
  if (!settings.allowMessageEditing) return Errors.badRequest('Your organization has turned off message editing');
  if (senderId !== actor.id) return Errors.badRequest("You don't have permission to edit this message");
  const limit = settings.messageContentEditLimitSeconds;
  if (limit !== null && ageSeconds > limit + bufferSeconds) return Errors.badRequest('The time limit for editing this message has passed');
  return null;
}
