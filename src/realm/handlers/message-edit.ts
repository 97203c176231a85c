/**
 * `edit_message`: `PATCH /messages/{message_id}` (https://zulip.com/api/update-message with the feature-level
 * 417 group permissions; Zulip's `check_update_message` + `do_update_message`). Content edits,
 * topic edits (incl. resolving), channel moves, `propagate_mode`, `update_message` /
 * `delete_message` events and Notification Bot breadcrumbs (see `message-move.ts`).
 * Check order follows Zulip's.
 */
import { topicLinks } from '../../domain/topic-links.js';
import { ok, fail, Errors, ZulipError, type Result } from '../../errors.js';
import { Role, type RealmState, type Stream, type TopicsPolicy, type User } from '../../domain/realm-state.js';
import type { MessageBody } from '../../domain/records.js';
import { canAccessMessage, isSubscribed } from '../../domain/access.js';
import { Flag, flagNames } from '../../domain/message-index.js';
import { invalidCharPosition, isMeMessage, NO_TOPIC, normalizeContent, truncateTopic } from '../../domain/messages.js';
import { contentVersion, RESOLVED_TOPIC_PREFIX, type ContentChange, type MessageEdited } from '../../domain/message-edits.js';
import { checkGroupMentions, checkWildcardMentions, renderMessageContent } from '../../domain/message-render.js';
import { hasGroupPermission } from '../../domain/groups.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Command } from '../commands.js';
import type { Handler } from '../decision.js';
import {
  accessChanges,
  canEditTopic,
  canMoveOutOfChannel,
  canResolveTopics,
  messagesToMove,
  movedAllVisible,
  moveNotifications,
  subscriberRecipients,
  topicMessageIds,
  type PropagateMode,
} from './message-move.js';
import { automaticPolicyOnMove, moveVisibilityPolicies, resolveNoticeToUndo } from './message-move-visibility.js';

/** `PATCH /messages/{id}`, validated for types by the API. */
export interface EditMessage {
  type: 'edit_message';
  actorId: number;
  messageId: number;
  /** New raw content (not yet normalized); undefined = unchanged. */
  content?: string;
  /** New topic, stripped; undefined = unchanged. */
  topic?: string;
  /** Target channel; undefined = unchanged. */
  streamId?: number;
  propagateMode: PropagateMode;
  sendNotificationToOldThread: boolean;
  sendNotificationToNewThread: boolean;
  /**
   * The message's body as the API read it (content edits need the previous content), and
   * `contentVersion` at that time; a mismatch means a concurrent edit: `staleBody` error, retry.
   */
  body?: MessageBody;
  bodyVersion?: number;
  /** The realm's URL as the client reached it (`realmUrl(host)`): local links render relative. */
  realmUrl?: string;
}

/** Reply: Zulip's success data (no uploads exist in parley). */
export interface EditMessageReply {
  detached_uploads: never[];
}

/** The error the handler returns when `body` is stale; the API re-reads and retries. */
export const STALE_BODY = 'Message was edited concurrently; retry';

/** Zulip's `message_edit_limit_buffer` / `edit_limit_buffer` (seconds). */
const EDIT_LIMIT_BUFFER = 20;
/** Default realm move limits (7 days) while `PATCH /realm` is not built. */
const DEFAULT_MOVE_LIMIT = 7 * 86400;

/** Zulip's `old.lstrip("✔ ")`: strips any leading ✔ and spaces. */
const lstripResolved = (s: string) => s.replace(/^[✔ ]+/u, '');

/** Effective topics policy of a channel. */
function topicsPolicy(state: RealmState, stream: Stream): TopicsPolicy {
  return stream.topicsPolicy === 'inherit' ? state.settings.topicsPolicy : stream.topicsPolicy;
}

/** Zulip's `access_stream_by_id_for_message`: content access to an active channel. */
function accessTargetStream(state: RealmState, user: User, streamId: number): Stream | undefined {
  const stream = state.streams.get(streamId);
  if (stream === undefined || stream.isArchived) return undefined;
  if (stream.isWebPublic || (!stream.inviteOnly && user.role !== Role.guest)) return stream;
  return isSubscribed(state, user.id, stream.id) ? stream : undefined;
}

/** Who may post (`can_send_message_group`; a bot also through its owner). */
function maySendToStream(state: RealmState, user: User, stream: Stream): boolean {
  const group = stream.groups.can_send_message_group;
  if (hasGroupPermission(state, user.id, group)) return true;
  return user.isBot && user.botOwnerId !== null && hasGroupPermission(state, user.botOwnerId, group);
}

/** Zulip's `check_time_limit_for_change_all_propagate_mode`. */
function checkChangeAllLimit(state: RealmState, user: User, stream: Stream, topic: string, deadline: number, now: number): ZulipError | null {
  const ids = topicMessageIds(state, stream, topic, user);
  const allowed = ids.filter((id) => now - state.messages.timestamp.get(id) < deadline);
  if (allowed.length === ids.length || allowed.length === 0) return null;
  return new ZulipError(
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    `You only have permission to move the ${allowed.length}/${ids.length} most recent messages in this topic.`,
    400,
    { first_message_id_allowed_to_move: allowed[0], total_messages_in_topic: ids.length, total_messages_allowed_to_move: allowed.length },
  );
}

export const editMessage: Handler<EditMessage, EditMessageReply> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const id = cmd.messageId;
  if (!canAccessMessage(state, actor, id)) return fail(Errors.invalidMessage());
  const m = state.messages;
  const now = ctx.now();
  const age = now - m.timestamp.get(id);
  const settings = state.settings;
  const senderId = m.sender.get(id);
  const recipient = state.recipients.get(m.recipient.get(id))!;
  const origTopic = state.topics.value(m.topic.get(id));

  // validate_user_can_edit_message
  if (cmd.content !== undefined) {
    if (!settings.allowMessageEditing) return fail(Errors.badRequest('Your organization has turned off message editing'));
    if (senderId !== actor.id) return fail(Errors.badRequest("You don't have permission to edit this message"));
    const limit = settings.messageContentEditLimitSeconds;
    if (limit !== null && age > limit + EDIT_LIMIT_BUFFER) return fail(Errors.badRequest('The time limit for editing this message has passed'));
  }
  let topic = cmd.topic;
  if (topic !== undefined) {
    topic = topic.trim();
    if (topic === NO_TOPIC || topic === settings.emptyTopicDisplayName) topic = '';
    if (topic === origTopic) topic = undefined;
  }

  // validate_message_edit_payload
  if (topic === undefined && cmd.content === undefined && cmd.streamId === undefined) return fail(Errors.badRequest('Nothing to change'));
  if (recipient.type === 'direct') {
    if (cmd.streamId !== undefined) return fail(Errors.badRequest('Direct messages cannot be moved to channels.'));
    if (topic !== undefined) return fail(Errors.badRequest('Direct messages cannot have topics.'));
  }
  if (cmd.propagateMode !== 'change_one' && topic === undefined && cmd.streamId === undefined) {
    return fail(Errors.badRequest('Invalid propagate_mode without topic edit'));
  }
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === RESOLVED_TOPIC_PREFIX + 'general chat') {
    return fail(Errors.badRequest('General chat cannot be marked as resolved'));
  }
  if (topic !== undefined) {
    const pos = invalidCharPosition(topic);
    if (pos > 0) return fail(Errors.topicInvalidChar(pos));
  }
  if (cmd.streamId !== undefined && cmd.content !== undefined) {
    return fail(Errors.badRequest('Cannot change message content while changing channel'));
  }

  // build_message_edit_request
  let newContent: string | undefined;
  if (cmd.content !== undefined) {
    const normalized = normalizeContent(cmd.content.trimEnd() === '' ? '(deleted)' : cmd.content);
    if (!normalized.ok) return fail(Errors.badRequest(normalized.msg));
    newContent = normalized.content;
  }
  let orig: Stream | undefined;
  let target: Stream | undefined;
  let targetTopic = origTopic;
  let resolved = false;
  let unresolved = false;
  if (recipient.type === 'stream') {
    orig = state.streams.get(recipient.streamId)!;
    target = orig;
    if (topic !== undefined) {
      targetTopic = truncateTopic(topic);
      const p = RESOLVED_TOPIC_PREFIX;
      resolved = targetTopic.startsWith(p) && !origTopic.startsWith(p) && topic.slice(p.length) === origTopic;
      unresolved = origTopic.startsWith(p) && !targetTopic.startsWith(p) && lstripResolved(origTopic) === targetTopic;
    }
    if (cmd.streamId !== undefined) {
      target = accessTargetStream(state, actor, cmd.streamId);
      if (target === undefined) return fail(Errors.invalidStreamId());
    }
    const policy = topicsPolicy(state, target);
    const empty = targetTopic === '';
    if (empty && (topic !== undefined || cmd.streamId !== undefined) && policy === 'disable_empty_topic') {
      return fail(Errors.emptyTopicNotAllowedInChannel());
    }
    if (policy === 'empty_topic_only' && !empty) return fail(Errors.onlyEmptyTopicAllowed());
  }
  const streamEdited = cmd.streamId !== undefined;
  const topicEdited = topic !== undefined;
  // Administrators and moderators are exempt from the move time limits
  // (https://zulip.com/api/update-message).
  const exemptFromMoveLimits = actor.role <= Role.moderator;

  if (topicEdited) {
    if (resolved || unresolved) {
      if (!canResolveTopics(state, actor, orig!, target!)) {
        return fail(Errors.badRequest("You don't have permission to resolve topics in this channel."));
      }
    } else {
      if (!canEditTopic(state, actor, orig!, target!)) return fail(Errors.badRequest("You don't have permission to edit this message"));
      const limit = settings.moveMessagesWithinStreamLimitSeconds === undefined ? DEFAULT_MOVE_LIMIT : settings.moveMessagesWithinStreamLimitSeconds;
      if (limit !== null && !exemptFromMoveLimits && age > limit + EDIT_LIMIT_BUFFER) {
        return fail(Errors.badRequest("The time limit for editing this message's topic has passed."));
      }
    }
  }

  let change: ContentChange | undefined;
  if (newContent !== undefined) {
    if (cmd.body === undefined || cmd.bodyVersion !== contentVersion(state, id)) return fail(Errors.badRequest(STALE_BODY));
    const rendering = renderMessageContent(state, newContent, {
      ...(recipient.type === 'stream'
        ? { senderId, streamId: orig!.id, topic: targetTopic }
        : { senderId, directUserIds: recipient.userIds }),
      nowSeconds: now,
      ...(cmd.realmUrl !== undefined && { realmUrl: cmd.realmUrl }),
    });
    // As Zulip: wildcard mention permission is checked on edits too, for the original sender.
    const mentionError =
      (recipient.type === 'stream' ? checkWildcardMentions(state, senderId, orig!, rendering) : null) ?? checkGroupMentions(state, actor.id, rendering);
    if (mentionError !== null) return fail(mentionError);
    change = {
      content: newContent,
      rendered: rendering.rendered,
      isMeMessage: isMeMessage(newContent),
      prevContent: cmd.body.content,
      prevRendered: cmd.body.rendered,
    };
    if (Object.keys(rendering.userFlags).length > 0) change.userFlags = rendering.userFlags;
  }

  if (streamEdited) {
    if (!canMoveOutOfChannel(state, actor, orig!)) return fail(Errors.badRequest("You don't have permission to move this message"));
    if (!maySendToStream(state, actor, target!)) return fail(Errors.cannotSendToChannel());
    const limit = settings.moveMessagesBetweenStreamsLimitSeconds === undefined ? DEFAULT_MOVE_LIMIT : settings.moveMessagesBetweenStreamsLimitSeconds;
    if (limit !== null && !exemptFromMoveLimits && age > limit + EDIT_LIMIT_BUFFER) {
      return fail(Errors.badRequest("The time limit for editing this message's channel has passed"));
    }
  }
  const moved = topicEdited || streamEdited;
  if (cmd.propagateMode === 'change_all' && !exemptFromMoveLimits && moved && !resolved && !unresolved) {
    const within = settings.moveMessagesWithinStreamLimitSeconds === undefined ? DEFAULT_MOVE_LIMIT : settings.moveMessagesWithinStreamLimitSeconds;
    const between = settings.moveMessagesBetweenStreamsLimitSeconds === undefined ? DEFAULT_MOVE_LIMIT : settings.moveMessagesBetweenStreamsLimitSeconds;
    const deadlines: number[] = [];
    if (topicEdited && within !== null) deadlines.push(within + EDIT_LIMIT_BUFFER);
    if (streamEdited && between !== null) deadlines.push(between + EDIT_LIMIT_BUFFER);
    if (deadlines.length > 0) {
      const error = checkChangeAllLimit(state, actor, orig!, origTopic, Math.min(...deadlines), now);
      if (error) return fail(error);
    }
  }

  // do_update_message
  const timestamp = Math.floor(now);
  const changedIds = moved ? messagesToMove(state, orig!, origTopic, actor, id, cmd.propagateMode) : [id];
  const record: MessageEdited = { type: 'message_edited', v: 1, messageId: id, messageIds: changedIds, userId: actor.id, timestamp };
  if (change) record.content = change;
  if (topicEdited) {
    record.prevTopic = origTopic;
    record.topic = targetTopic;
  }
  const access = streamEdited ? accessChanges(state, changedIds, orig!, target!) : undefined;
  if (streamEdited) {
    record.prevStream = orig!.id;
    record.stream = target!.id;
    record.recipientId = target!.recipientId;
    if (access!.removeUserIds.length) record.removeUserIds = access!.removeUserIds;
    if (access!.addUserIds.length) record.addUserIds = access!.addUserIds;
  }

  // As Zulip: user_topic changes are queued before the update_message event.
  const visibility = !moved
    ? { records: [], events: [] }
    : movedAllVisible(state, orig!, origTopic, actor, changedIds, cmd.propagateMode)
      ? moveVisibilityPolicies(state, { orig: orig!, origTopic, target: target!, targetTopic, streamEdited, losingAccess: access?.losingAccess ?? new Set(), now })
      : automaticPolicyOnMove(state, id, target!, targetTopic, changedIds, access?.losingAccess ?? new Set(), now);
  const events = [...visibility.events, ...updateEvents(state, cmd, record, orig, target, access)];
  const followUps: Command[] = [];
  if (topicEdited && !change && !streamEdited && (resolved || unresolved)) {
    // maybe_send_resolve_topic_notifications: an undo within the grace period deletes the
    // previous notice (Zulip's maybe_delete_previous_resolve_topic_notification) instead.
    const undo = resolveNoticeToUndo(state, orig!, targetTopic, changedIds, now);
    if (undo !== null) followUps.push({ type: 'delete_message', actorId: actor.id, messageId: undo, internal: true });
    else {
      followUps.push({
        type: 'internal_send', bot: 'notification', messageType: 'stream', to: orig!.id, topic: targetTopic,
        content: `@_**${actor.fullName}|${actor.id}** has marked this topic as ${resolved ? 'resolved' : 'unresolved'}.`,
        resolveTopicNotice: true,
      });
    }
  }
  if (moved) {
    followUps.push(...moveNotifications(state, {
      actor, orig: orig!, origTopic, target: target!, targetTopic, messageId: id, changedIds,
      streamEdited, topicEdited, resolveToggle: resolved || unresolved, mode: cmd.propagateMode,
      notifyOld: cmd.sendNotificationToOldThread, notifyNew: cmd.sendNotificationToNewThread,
    }));
  }
  return ok({ records: [record, ...visibility.records], events, reply: { detached_uploads: [] }, ...(followUps.length > 0 && { followUps }) });
};

/**
 * `update_message` (one event per distinct flag list: flags are per user) and, on channel moves,
 * `delete_message` for users losing access (https://zulip.com/api/get-events; Zulip's `do_update_message`).
 */
function updateEvents(
  state: RealmState,
  cmd: EditMessage,
  r: MessageEdited,
  orig: Stream | undefined,
  target: Stream | undefined,
  access: ReturnType<typeof accessChanges> | undefined,
): RealmEvent[] {
  const id = r.messageId;
  const payload: Record<string, unknown> = {
    type: 'update_message', user_id: r.userId, edit_timestamp: r.timestamp, message_id: id,
    message_ids: r.messageIds, rendering_only: false,
  };
  if (r.content) {
    Object.assign(payload, {
      orig_content: r.content.prevContent, orig_rendered_content: r.content.prevRendered,
      content: r.content.content, rendered_content: r.content.rendered,
      prev_rendered_content_version: 1, is_me_message: r.content.isMeMessage,
    });
  }
  if (orig !== undefined) {
    payload.stream_name = orig.name;
    payload.stream_id = orig.id;
    if (r.topic !== undefined || r.stream !== undefined) payload.propagate_mode = cmd.propagateMode;
    if (r.stream !== undefined) {
      payload.orig_subject = r.prevTopic ?? state.topics.value(state.messages.topic.get(id));
      payload.new_stream_id = r.stream;
    }
    if (r.topic !== undefined) {
      payload.orig_subject = r.prevTopic;
      payload.subject = r.topic;
      payload.topic_links = topicLinks(state, r.topic);
    }
  }
  // Row holders of the edited message after the edit, with their new flags.
  const removed = new Set(r.removeUserIds ?? []);
  const flagsByUser = new Map<number, number>();
  for (const [userId, um] of state.messages.users) {
    if (removed.has(userId)) continue;
    const at = um.indexOf(id);
    if (at < 0) continue;
    let bits = um.flags.get(at);
    if (r.content) {
      const mention = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned | Flag.has_alert_word;
      bits = (bits & ~mention) | (r.content.userFlags?.[userId] ?? 0);
    }
    flagsByUser.set(userId, bits);
  }
  for (const userId of r.addUserIds ?? []) if (!flagsByUser.has(userId)) flagsByUser.set(userId, Flag.read);
  if (orig !== undefined && target !== undefined) {
    const holders = new Set(flagsByUser.keys());
    for (const u of subscriberRecipients(state, orig, target, holders, access?.losingAccess ?? new Set())) flagsByUser.set(u, Flag.read);
  }
  const groups = new Map<string, number[]>();
  for (const [userId, bits] of flagsByUser) {
    if (state.users.get(userId)?.isActive !== true) continue;
    const key = flagNames(bits).join(',');
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(userId);
  }
  const events: RealmEvent[] = [];
  const emptyTopic = payload.orig_subject === '' || payload.subject === '' ? { emptyTopicDisplayName: state.settings.emptyTopicDisplayName } : {};
  for (const [key, userIds] of groups) {
    events.push({ userIds: userIds.sort((a, b) => a - b), payload: { ...payload, flags: key === '' ? [] : key.split(',') }, ...emptyTopic });
  }
  if (access !== undefined && access.losingAccess.size > 0) {
    const oldTopic = r.prevTopic ?? state.topics.value(state.messages.topic.get(id));
    events.push({
      ...(oldTopic === '' && { emptyTopicDisplayName: state.settings.emptyTopicDisplayName }),
      userIds: [...access.losingAccess].filter((u) => state.users.get(u)?.isActive === true),
      payload: { type: 'delete_message', message_ids: r.messageIds, message_type: 'stream', stream_id: orig!.id, topic: oldTopic },
    });
  }
  return events;
}
