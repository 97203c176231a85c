/**
 * `edit_message`: `PATCH /messages/{message_id}` (zulip-behavior.md §2.5 with the feature-level
 * 417 group permissions; Zulip's `check_update_message` + `do_update_message`). Content edits,
 * topic edits (incl. resolving), channel moves, `propagate_mode`, `update_message` /
 * `delete_message` events and Notification Bot breadcrumbs (see `message-move.ts`).
 * Check order follows Zulip's.
 */
import { claimAttachments } from './attachments.js';
import type { AttachmentWire } from '../../domain/attachments.js';
import { ok, fail, Errors, ZulipError, type Result } from '../../errors.js';
import { Role, type RealmState, type Recipient, type Stream, type TopicsPolicy, type User } from '../../domain/realm-state.js';
import type { MessageBody } from '../../domain/records.js';
import { accessMessage, accessStreamById, checkCanEditMessageContent, canEditTopic, canMoveOutOfChannel, canPostInChannel, canResolveTopics } from '../../domain/access.js';
import { invalidCharPosition, isMeMessage, NO_TOPIC, normalizeContent, truncateTopic } from '../../domain/messages.js';
import { contentVersion, RESOLVED_TOPIC_PREFIX, type ContentChange, type MessageEdited } from '../../domain/message-edits.js';
import { checkGroupMentions, checkWildcardMentions, renderMessageContent } from '../message-render.js';
import type { Command } from '../commands.js';
import type { Handler } from '../decision.js';
import {
  accessChanges,
  messagesToMove,
  movedAllVisible,
  moveNotifications,
  topicMessageIds,
  type PropagateMode,
} from './message-move.js';
import { updateEvents } from './message-edit-events.js';
import { withPersonalFlags } from '../personal-flags.js';
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
}

/** Reply: Zulip's success data (no uploads exist in parley). */
export interface EditMessageReply {
  detached_uploads: AttachmentWire[];
}

/** The error the handler returns when `body` is stale; the API re-reads and retries. */
export const STALE_BODY = 'Message was edited concurrently; retry';

/** Zulip's `message_edit_limit_buffer` / `edit_limit_buffer` (seconds). */
const EDIT_LIMIT_BUFFER = 20;
/** Zulip's default realm move limits (7 days), until `PATCH /realm` sets them. */
const DEFAULT_MOVE_LIMIT = 7 * 86400;

/** Administrators and moderators are exempt from the move time limits (zulip-behavior.md §2.5). */
const exemptFromMoveLimits = (actor: User) => actor.role <= Role.moderator;

/** Zulip's `old.lstrip("✔ ")`: strips any leading ✔ and spaces. */
const lstripResolved = (s: string) => s.replace(/^[✔ ]+/u, '');

/** Effective topics policy of a channel. */
function topicsPolicy(state: RealmState, stream: Stream): TopicsPolicy {
  return stream.topicsPolicy === 'inherit' ? state.settings.topicsPolicy : stream.topicsPolicy;
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

/** What `build_message_edit_request` settles: the message, its channels and topics, the new content. */
interface EditRequest {
  actor: User;
  id: number;
  /** UNIX seconds (fractional) of the edit, and the message's age at that time (seconds). */
  now: number;
  age: number;
  senderId: number;
  recipient: Recipient;
  origTopic: string;
  /** The new topic when it changes (normalized); undefined = unchanged. */
  topic: string | undefined;
  newContent: string | undefined;
  /** Channel messages: the current channel and the target (the same unless moved). */
  orig: Stream | undefined;
  target: Stream | undefined;
  targetTopic: string;
  resolved: boolean;
  unresolved: boolean;
  streamEdited: boolean;
  topicEdited: boolean;
}

/** The requested topic, stripped and mapped to the empty topic; undefined when absent or unchanged. */
function requestedTopic(state: RealmState, raw: string | undefined, origTopic: string): string | undefined {
  if (raw === undefined) return undefined;
  let topic = raw.trim();
  if (topic === NO_TOPIC || topic === state.settings.emptyTopicDisplayName) topic = '';
  return topic === origTopic ? undefined : topic;
}

/** Zulip's `validate_message_edit_payload`. */
function checkEditPayload(cmd: EditMessage, recipient: Recipient, topic: string | undefined): ZulipError | null {
  if (topic === undefined && cmd.content === undefined && cmd.streamId === undefined) return Errors.badRequest('Nothing to change');
  if (recipient.type === 'direct') {
    if (cmd.streamId !== undefined) return Errors.badRequest('Direct messages cannot be moved to channels.');
    if (topic !== undefined) return Errors.badRequest('Direct messages cannot have topics.');
  }
  if (cmd.propagateMode !== 'change_one' && topic === undefined && cmd.streamId === undefined) {
    return Errors.badRequest('Invalid propagate_mode without topic edit');
  }
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === RESOLVED_TOPIC_PREFIX + 'general chat') {
    return Errors.badRequest('General chat cannot be marked as resolved');
  }
  if (topic !== undefined) {
    const pos = invalidCharPosition(topic);
    if (pos > 0) return Errors.topicInvalidChar(pos);
  }
  if (cmd.streamId !== undefined && cmd.content !== undefined) return Errors.badRequest('Cannot change message content while changing channel');
  return null;
}

/**
 * Zulip's `access_message` + `validate_user_can_edit_message` + `validate_message_edit_payload` +
 * `build_message_edit_request`: the edit request, or the first error in Zulip's order.
 */
function buildEditRequest(state: RealmState, cmd: EditMessage, now: number): Result<EditRequest> {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const id = cmd.messageId;
  // Zulip's check_update_message: access_message(is_modifying_message=True) — archived channels refuse.
  const accessible = accessMessage(state, actor, id, { forModification: true });
  if (!accessible.ok) return accessible;
  const m = state.messages;
  const age = now - m.timestamp.get(id);
  const senderId = m.sender.get(id);
  const recipient = state.recipients.get(m.recipient.get(id))!;
  const origTopic = state.topics.value(m.topic.get(id));
  if (cmd.content !== undefined) {
    const error = checkCanEditMessageContent(state, actor, senderId, age, EDIT_LIMIT_BUFFER);
    if (error) return fail(error);
  }
  const topic = requestedTopic(state, cmd.topic, origTopic);
  const payloadError = checkEditPayload(cmd, recipient, topic);
  if (payloadError) return fail(payloadError);

  let newContent: string | undefined;
  if (cmd.content !== undefined) {
    const normalized = normalizeContent(cmd.content.trimEnd() === '' ? '(deleted)' : cmd.content);
    if (!normalized.ok) return fail(Errors.badRequest(normalized.msg));
    newContent = normalized.content;
  }
  const request: EditRequest = {
    actor, id, now, age, senderId, recipient, origTopic, topic, newContent, orig: undefined, target: undefined,
    targetTopic: origTopic, resolved: false, unresolved: false, streamEdited: cmd.streamId !== undefined, topicEdited: topic !== undefined,
  };
  if (recipient.type !== 'stream') return ok(request);
  request.orig = request.target = state.streams.get(recipient.streamId)!;
  if (topic !== undefined) {
    request.targetTopic = truncateTopic(topic);
    const p = RESOLVED_TOPIC_PREFIX;
    request.resolved = request.targetTopic.startsWith(p) && !origTopic.startsWith(p) && topic.slice(p.length) === origTopic;
    request.unresolved = origTopic.startsWith(p) && !request.targetTopic.startsWith(p) && lstripResolved(origTopic) === request.targetTopic;
  }
  if (cmd.streamId !== undefined) {
    // Zulip's `access_stream_by_id_for_message`: content access to an active channel.
    const targetAccess = accessStreamById(state, actor, cmd.streamId);
    if (!targetAccess.ok) return targetAccess;
    request.target = targetAccess.value.stream;
  }
  const policy = topicsPolicy(state, request.target);
  const empty = request.targetTopic === '';
  if (empty && (topic !== undefined || cmd.streamId !== undefined) && policy === 'disable_empty_topic') {
    return fail(Errors.emptyTopicNotAllowedInChannel());
  }
  if (policy === 'empty_topic_only' && !empty) return fail(Errors.onlyEmptyTopicAllowed());
  return ok(request);
}

/** The realm's move limit (seconds; null = none) for `kind`, with the 7-day default. */
function moveLimit(state: RealmState, kind: 'within' | 'between'): number | null {
  const value = kind === 'within' ? state.settings.moveMessagesWithinStreamLimitSeconds : state.settings.moveMessagesBetweenStreamsLimitSeconds;
  return value === undefined ? DEFAULT_MOVE_LIMIT : value;
}

/** Zulip's topic-edit checks of `check_update_message`: resolve permission, or edit-topic permission and time limit. */
function checkTopicEdit(state: RealmState, r: EditRequest): ZulipError | null {
  if (r.resolved || r.unresolved) {
    if (!canResolveTopics(state, r.actor, r.orig!, r.target!)) return Errors.badRequest("You don't have permission to resolve topics in this channel.");
    return null;
  }
  if (!canEditTopic(state, r.actor, r.orig!, r.target!)) return Errors.badRequest("You don't have permission to edit this message");
  const limit = moveLimit(state, 'within');
  if (limit !== null && !exemptFromMoveLimits(r.actor) && r.age > limit + EDIT_LIMIT_BUFFER) {
    return Errors.badRequest("The time limit for editing this message's topic has passed.");
  }
  return null;
}

/** Zulip's channel-move checks of `check_update_message`: move-out and post permissions, time limit. */
function checkStreamMove(state: RealmState, r: EditRequest): ZulipError | null {
  if (!canMoveOutOfChannel(state, r.actor, r.orig!)) return Errors.badRequest("You don't have permission to move this message");
  if (!canPostInChannel(state, r.actor, r.target!)) return Errors.cannotSendToChannel();
  const limit = moveLimit(state, 'between');
  if (limit !== null && !exemptFromMoveLimits(r.actor) && r.age > limit + EDIT_LIMIT_BUFFER) {
    return Errors.badRequest("The time limit for editing this message's channel has passed");
  }
  return null;
}

/** `change_all` moves by users bound by the time limits: every message of the topic must be young enough. */
function checkChangeAll(state: RealmState, cmd: EditMessage, r: EditRequest): ZulipError | null {
  if (cmd.propagateMode !== 'change_all' || exemptFromMoveLimits(r.actor) || r.resolved || r.unresolved) return null;
  if (!r.topicEdited && !r.streamEdited) return null;
  const within = moveLimit(state, 'within');
  const between = moveLimit(state, 'between');
  const deadlines: number[] = [];
  if (r.topicEdited && within !== null) deadlines.push(within + EDIT_LIMIT_BUFFER);
  if (r.streamEdited && between !== null) deadlines.push(between + EDIT_LIMIT_BUFFER);
  if (deadlines.length === 0) return null;
  return checkChangeAllLimit(state, r.actor, r.orig!, r.origTopic, Math.min(...deadlines), r.now);
}

/** The rendered content change (mention checks as Zulip: wildcards for the original sender), or the error. */
function contentChange(state: RealmState, cmd: EditMessage, r: EditRequest, newContent: string): Result<ContentChange> {
  if (cmd.body === undefined || cmd.bodyVersion !== contentVersion(state, r.id)) return fail(Errors.badRequest(STALE_BODY));
  const rendering = renderMessageContent(state, newContent, {
    ...(r.recipient.type === 'stream'
      ? { senderId: r.senderId, streamId: r.orig!.id, topic: r.targetTopic }
      : { senderId: r.senderId, directUserIds: r.recipient.userIds }),
    nowSeconds: r.now,
  });
  if (rendering instanceof ZulipError) return fail(rendering);
  const mentionError =
    (r.recipient.type === 'stream' ? checkWildcardMentions(state, r.senderId, r.orig!, rendering) : null) ?? checkGroupMentions(state, r.actor.id, rendering);
  if (mentionError !== null) return fail(mentionError);
  const change: ContentChange = {
    content: newContent,
    rendered: rendering.rendered,
    isMeMessage: isMeMessage(newContent),
    prevContent: cmd.body.content,
    prevRendered: cmd.body.rendered,
  };
  const holders = [...(state.alertWords?.keys() ?? [])].filter((id) => state.messages.userFlags(id, r.id) !== undefined);
  const userFlags = withPersonalFlags(state, r.senderId, newContent, holders, rendering.userFlags, true);
  if (Object.keys(userFlags).length > 0) change.userFlags = userFlags;
  return ok(change);
}

/** Zulip's `maybe_send_resolve_topic_notifications` and the move breadcrumbs, as follow-up commands. */
function editFollowUps(state: RealmState, cmd: EditMessage, r: EditRequest, changedIds: number[], contentChanged: boolean): Command[] {
  const followUps: Command[] = [];
  if (r.topicEdited && !contentChanged && !r.streamEdited && (r.resolved || r.unresolved)) {
    // An undo within the grace period deletes the previous notice (Zulip's
    // maybe_delete_previous_resolve_topic_notification) instead.
    const undo = resolveNoticeToUndo(state, r.orig!, r.targetTopic, changedIds, r.now);
    if (undo !== null) followUps.push({ type: 'delete_message', actorId: r.actor.id, messageId: undo, internal: true });
    else {
      followUps.push({
        type: 'internal_send', bot: 'notification', messageType: 'stream', to: r.orig!.id, topic: r.targetTopic,
        content: `@_**${r.actor.fullName}|${r.actor.id}** has marked this topic as ${r.resolved ? 'resolved' : 'unresolved'}.`,
        resolveTopicNotice: true,
      });
    }
  }
  if (r.topicEdited || r.streamEdited) {
    followUps.push(...moveNotifications(state, {
      actor: r.actor, orig: r.orig!, origTopic: r.origTopic, target: r.target!, targetTopic: r.targetTopic, messageId: r.id, changedIds,
      streamEdited: r.streamEdited, topicEdited: r.topicEdited, resolveToggle: r.resolved || r.unresolved, mode: cmd.propagateMode,
      notifyOld: cmd.sendNotificationToOldThread, notifyNew: cmd.sendNotificationToNewThread,
    }));
  }
  return followUps;
}

/**
 * `PATCH /messages/{id}` in Zulip's steps: build and validate the request, check topic-edit,
 * content and channel-move permissions, then `do_update_message` (record, user_topic changes,
 * events, notices).
 */
export const editMessage: Handler<EditMessage, EditMessageReply> = (state, cmd, ctx) => {
  const request = buildEditRequest(state, cmd, ctx.now());
  if (!request.ok) return request;
  const r = request.value;
  const topicError = r.topicEdited ? checkTopicEdit(state, r) : null;
  if (topicError) return fail(topicError);
  let change: ContentChange | undefined;
  if (r.newContent !== undefined) {
    const changed = contentChange(state, cmd, r, r.newContent);
    if (!changed.ok) return changed;
    change = changed.value;
  }
  const moveError = (r.streamEdited ? checkStreamMove(state, r) : null) ?? checkChangeAll(state, cmd, r);
  if (moveError) return fail(moveError);

  // do_update_message
  const moved = r.topicEdited || r.streamEdited;
  const changedIds = moved ? messagesToMove(state, r.orig!, r.origTopic, r.actor, r.id, cmd.propagateMode) : [r.id];
  const record: MessageEdited = { type: 'message_edited', v: 1, messageId: r.id, messageIds: changedIds, userId: r.actor.id, timestamp: Math.floor(r.now) };
  if (change) record.content = change;
  if (r.topicEdited) {
    record.prevTopic = r.origTopic;
    record.topic = r.targetTopic;
  }
  const access = r.streamEdited ? accessChanges(state, changedIds, r.orig!, r.target!) : undefined;
  if (access !== undefined) {
    record.prevStream = r.orig!.id;
    record.stream = r.target!.id;
    record.recipientId = r.target!.recipientId;
    if (access.removeUserIds.length) record.removeUserIds = access.removeUserIds;
    if (access.addUserIds.length) record.addUserIds = access.addUserIds;
  }
  // As Zulip: user_topic changes are queued before the update_message event.
  const losingAccess = access?.losingAccess ?? new Set<number>();
  const visibility = !moved
    ? { records: [], events: [] }
    : movedAllVisible(state, r.orig!, r.origTopic, r.actor, changedIds, cmd.propagateMode)
      ? moveVisibilityPolicies(state, { orig: r.orig!, origTopic: r.origTopic, target: r.target!, targetTopic: r.targetTopic, streamEdited: r.streamEdited, losingAccess, now: r.now })
      : automaticPolicyOnMove(state, r.id, r.target!, r.targetTopic, changedIds, losingAccess, r.now);
  const events = [...visibility.events, ...updateEvents(state, cmd, record, r.orig, r.target, access)];
  const followUps = editFollowUps(state, cmd, r, changedIds, change !== undefined);
  // Zulip's check_attachment_reference_change (claims in the sender's name, as do_claim_attachments).
  const sender = state.users.get(r.senderId);
  const claims = change && sender ? claimAttachments(state, sender, r.id, state.messages.timestamp.get(r.id), change.rendered) : undefined;
  const records = claims ? [record, ...claims.records, ...visibility.records] : [record, ...visibility.records];
  if (claims) events.unshift(...claims.events);
  return ok({ records, events, reply: { detached_uploads: claims?.detached ?? [] }, ...(followUps.length > 0 && { followUps }) });
};
