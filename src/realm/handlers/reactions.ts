/**
 * Emoji reaction commands: `POST` and `DELETE /messages/{message_id}/reactions`
 * (https://zulip.com/api/get-message;
 * Zulip's `zerver/views/reactions.py` and `zerver/actions/reactions.py`).
 *
 * Add, checks in Zulip's order (`check_add_reaction`):
 * 1. the message must be accessible for modification (`access_message(…, is_modifying_message)`:
 *    `accessMessage` for modification: not in an archived channel), else "Invalid message(s)";
 * 2. when `emoji_code` or `reaction_type` is missing, both missing ones come from the name
 *    (`get_emoji_data`): unknown → "Emoji '<name>' does not exist";
 * 3. the actor already reacted with this (code, type) → "Reaction already exists." (code
 *    REACTION_ALREADY_EXISTS, FL 193);
 * 4. if anyone already reacted with this (code, type), the new reaction is a vote for it and takes
 *    its name without further checks; otherwise the (name, code, type) triple is validated
 *    (`check_emoji_request`, `emoji.ts` `checkEmoji`): "Invalid emoji code.", "Invalid emoji
 *    name.", "Invalid custom emoji.", "Invalid custom emoji name.", "This custom emoji has been
 *    deactivated." (`realm_emoji` codes are the realm's custom emoji ids), "Invalid emoji type.";
 * 5. a channel message the actor has no UserMessage row for gets a historical row (`read` +
 *    `historical`), so that later events about the message reach them.
 * With `automatically_follow_topics_policy` (or, in a muted channel,
 * `automatically_unmute_topics_in_muted_streams_policy`) = 1 "on participation", reacting to a
 * channel message of a subscribed channel follows (unmutes) its topic first (`do_add_reaction`).
 *
 * Remove (`remove_reaction`): 1. access as above; 2. neither `emoji_name` nor `emoji_code` →
 * "At least one of the following arguments must be present: emoji_name, emoji_code"; 3. without
 * `emoji_code`, the code comes from the name ("Emoji '<name>' does not exist"), while
 * `reaction_type` keeps its own default `unicode_emoji`; 4. no such reaction of the actor →
 * "Reaction doesn't exist." (REACTION_DOES_NOT_EXIST). The pair is not re-validated.
 *
 * Events: one `reaction` event `{type, op: "add"|"remove", user_id, user: {user_id, email,
 * full_name}, message_id, emoji_name, emoji_code, reaction_type}` (the deprecated `user` object
 * was re-added to events at FL 339 and stays until FL 484) to `eventRecipientsForMessage`.
 */
import { ok, fail, Errors, ZulipError, type Result } from '../../errors.js';
import { Role, type RealmState, type User } from '../../domain/realm-state.js';
import { accessMessage } from '../../domain/access.js';
import { canonicalReactionType, checkEmoji, emojiCodeByName, isReactionType, type ReactionTypeName } from '../../domain/emoji.js';
import { existingEmojiName, findUserReaction, type ReactionAdded, type ReactionRemoved } from '../../domain/reactions.js';
import { apiEmail } from '../../domain/users.js';
import type { RealmRecord } from '../../domain/records.js';
import type { RealmEvent } from '../../events/realm-event.js';
import { getUserTopic, VisibilityPolicy, type VisibilityPolicyCode } from '../../domain/user-topics.js';
import { AutoPolicy, automaticSettings, setVisibility } from './user-topics.js';
import type { Handler } from '../decision.js';
import type { EventPayloadOf } from '../../events/schemas.js';

/** `POST /messages/{message_id}/reactions`. Undefined = not passed. */
export interface AddReaction {
  type: 'add_reaction';
  actorId: number;
  messageId: number;
  emojiName: string;
  emojiCode?: string;
  reactionType?: string;
}

/** `DELETE /messages/{message_id}/reactions`. Undefined = not passed. */
export interface RemoveReaction {
  type: 'remove_reaction';
  actorId: number;
  messageId: number;
  emojiName?: string;
  emojiCode?: string;
  /** Zulip's default when not passed: `unicode_emoji`. */
  reactionType: string;
}

export type ReactionCommand = AddReaction | RemoveReaction;

/** Replies of the reaction commands (merged into `CommandReplies`). */
export interface ReactionReplies {
  add_reaction: Record<string, never>;
  remove_reaction: Record<string, never>;
}

/** Zulip's reaction error strings, byte for byte. */
export const ReactionErrors = {
  alreadyExists: () => new ZulipError('REACTION_ALREADY_EXISTS', 'Reaction already exists.'),
  doesNotExist: () => new ZulipError('REACTION_DOES_NOT_EXIST', "Reaction doesn't exist."),
  nameOrCodeRequired: () => Errors.badRequest('At least one of the following arguments must be present: emoji_name, emoji_code'),
  unknownEmoji: (name: string) => Errors.badRequest(`Emoji '${name}' does not exist`),
} as const;

/**
 * Zulip's `access_message(…, is_modifying_message=True)`: the active actor and the message when
 * the actor may access it and its channel (if any) is not archived; else "Invalid message(s)".
 */
function accessForModification(state: RealmState, actorId: number, messageId: number): Result<User> {
  const actor = state.users.get(actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const access = accessMessage(state, actor, messageId, { forModification: true });
  return access.ok ? ok(actor) : access;
}

/**
 * Zulip's `event_recipient_ids_for_action_on_messages` for one message: who gets events about an
 * action on it (reactions; also the right set for edits and deletions).
 * - direct message: the users with a UserMessage row;
 * - channel with protected history: active subscribers who have a row;
 * - private channel with shared history: its active subscribers;
 * - public channel: its active subscribers plus every non-guest with a row (historical rows of
 *   users who reacted or starred, rows of former subscribers).
 * Deactivated users are left out (they have no event queues).
 */
export function eventRecipientsForMessage(state: RealmState, messageId: number): number[] {
  const m = state.messages;
  const recipient = state.recipients.get(m.recipient.get(messageId));
  const active = (userId: number) => state.users.get(userId)?.isActive === true;
  const withRow = (userId: number) => (m.users.get(userId)?.indexOf(messageId) ?? -1) >= 0;
  const rowHolders = () => [...m.users.keys()].filter((userId) => active(userId) && withRow(userId));
  if (recipient === undefined) return [];
  if (recipient.type === 'direct') return rowHolders();
  const stream = state.streams.get(recipient.streamId);
  if (stream === undefined) return [];
  const subscribers = [...(state.subscriptions.get(stream.id)?.keys() ?? [])].filter(active);
  if (stream.inviteOnly && !stream.historyPublicToSubscribers) return subscribers.filter(withRow);
  if (stream.inviteOnly) return subscribers;
  const ids = new Set(subscribers);
  for (const userId of rowHolders()) if (state.users.get(userId)!.role !== Role.guest) ids.add(userId);
  return [...ids].sort((a, b) => a - b);
}

/** The `reaction` event payload (key order as Zulip's `notify_reaction_update`). */
function reactionEvent(
  state: RealmState,
  op: 'add' | 'remove',
  actor: User,
  messageId: number,
  emoji: { name: string; code: string; type: ReactionTypeName },
): EventPayloadOf<'reaction'> {
  return {
    type: 'reaction',
    op,
    user_id: actor.id,
    user: { user_id: actor.id, email: apiEmail(actor, state.host), full_name: actor.fullName },
    message_id: messageId,
    emoji_name: emoji.name,
    emoji_code: emoji.code,
    reaction_type: emoji.type,
  };
}

/**
 * `do_add_reaction`'s automatic follow/unmute on participation: the `user_topic_set` record and
 * its events when the actor's settings ask for it (policy 1) and they are subscribed; else null.
 */
function participationVisibility(state: RealmState, actor: User, messageId: number, now: number) {
  const recipient = state.recipients.get(state.messages.recipient.get(messageId));
  if (recipient?.type !== 'stream' || actor.isBot) return null;
  const sub = state.subscriptions.get(recipient.streamId)?.get(actor.id);
  if (sub === undefined) return null;
  const settings = automaticSettings(state, actor.id);
  let policy: VisibilityPolicyCode | null = null;
  if (settings.follow === AutoPolicy.participation) policy = VisibilityPolicy.followed;
  else if (sub.isMuted && settings.unmuteInMuted === AutoPolicy.participation) policy = VisibilityPolicy.unmuted;
  if (policy === null) return null;
  const stream = state.streams.get(recipient.streamId)!;
  const topic = state.topics.value(state.messages.topic.get(messageId));
  const current = getUserTopic(state, actor.id, stream.id, topic)?.visibilityPolicy ?? VisibilityPolicy.inherit;
  if (current === VisibilityPolicy.followed) return null;
  return setVisibility(state, actor.id, stream, topic, policy, Math.floor(now));
}

export const addReaction: Handler<AddReaction, Record<string, never>> = (state, cmd, ctx) => {
  const access = accessForModification(state, cmd.actorId, cmd.messageId);
  if (!access.ok) return access;
  const actor = access.value;

  let code = cmd.emojiCode;
  let type = canonicalReactionType(cmd.reactionType);
  if (code === undefined || type === undefined) {
    const found = emojiCodeByName(cmd.emojiName, state);
    if (found === null) return fail(ReactionErrors.unknownEmoji(cmd.emojiName));
    code ??= found.code;
    type ??= found.type;
  }
  // Zulip's `check_emoji_request` refuses any other type (no stored reaction can have one).
  if (!isReactionType(type)) return fail(Errors.badRequest('Invalid emoji type.'));
  if (findUserReaction(state, cmd.messageId, actor.id, code, type) !== undefined) return fail(ReactionErrors.alreadyExists());
  let name = existingEmojiName(state, cmd.messageId, code, type);
  if (name === undefined) {
    const invalid = checkEmoji(cmd.emojiName, code, type, state);
    if (invalid !== null) return fail(Errors.badRequest(invalid));
    name = cmd.emojiName;
  }

  const historical = state.messages.userFlags(actor.id, cmd.messageId) === undefined;
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  const visibility = participationVisibility(state, actor, cmd.messageId, ctx.now());
  if (visibility !== null) {
    records.push(visibility.record);
    events.push(...visibility.events);
  }
  const record: ReactionAdded = {
    type: 'reaction_added',
    v: 1,
    messageId: cmd.messageId,
    userId: actor.id,
    emojiName: name,
    emojiCode: code,
    reactionType: type,
    ...(historical && { historical: true as const }),
  };
  records.push(record);
  const userIds = eventRecipientsForMessage(state, cmd.messageId);
  if (historical && !userIds.includes(actor.id)) userIds.push(actor.id);
  events.push({ userIds, payload: reactionEvent(state, 'add', actor, cmd.messageId, { name, code, type }) });
  return ok({ records, events, reply: {} });
};

export const removeReaction: Handler<RemoveReaction, Record<string, never>> = (state, cmd) => {
  const access = accessForModification(state, cmd.actorId, cmd.messageId);
  if (!access.ok) return access;
  const actor = access.value;

  let code = cmd.emojiCode;
  if (code === undefined) {
    if (cmd.emojiName === undefined) return fail(ReactionErrors.nameOrCodeRequired());
    const found = emojiCodeByName(cmd.emojiName, state);
    if (found === null) return fail(ReactionErrors.unknownEmoji(cmd.emojiName));
    code = found.code;
  }
  const type = canonicalReactionType(cmd.reactionType);
  // Every stored reaction has a valid type, so any other matches none.
  if (!isReactionType(type)) return fail(ReactionErrors.doesNotExist());
  const reaction = findUserReaction(state, cmd.messageId, actor.id, code, type);
  if (reaction === undefined) return fail(ReactionErrors.doesNotExist());

  const record: ReactionRemoved = {
    type: 'reaction_removed',
    v: 1,
    messageId: cmd.messageId,
    userId: actor.id,
    emojiCode: code,
    reactionType: type,
  };
  const emoji = { name: reaction.emojiName, code, type };
  return ok({
    records: [record],
    events: [{ userIds: eventRecipientsForMessage(state, cmd.messageId), payload: reactionEvent(state, 'remove', actor, cmd.messageId, emoji) }],
    reply: {},
  });
};
