/**
 * `send_message` (seed §4.1; zulip-behavior.md §2.1 with the feature-level-417 changes: `channel`
 * and `direct` types, the empty topic and `topics_policy`, `can_send_message_group`).
 * Check order follows Zulip: `to` parsing, topic, content, channel lookup, permission, access.
 */
import { claimAttachments } from './attachments.js';
import { ok, fail, Errors, type Result, ZulipError } from '../../errors.js';
import type { RealmState, Recipient, Stream, User } from '../../domain/realm-state.js';
import type { MessageSent, RealmRecord } from '../../domain/records.js';
import { Flag, sharedFlagNames } from '../../domain/message-index.js';
import type { MessageEventExtras, RealmEvent } from '../../events/realm-event.js';
import { buildMessageWire } from '../../events/wire/messages.js';
import {
  type MessageFields,
  NO_TOPIC,
  defaultReadBySender,
  invalidCharPosition,
  isMeMessage,
  normalizeContent,
  truncateTopic,
} from '../../domain/messages.js';
import { checkStreamName, findStreamByName } from '../../domain/streams.js';
import { apiEmail, findUserByEmail } from '../../domain/users.js';
import { accessStreamForSend } from '../../domain/access.js';
import { directMembers, findDirectRecipient } from '../../domain/recipients.js';
import { receiverIds } from '../../domain/channel-receivers.js';
import { checkGroupMentions, checkWildcardMentions, renderMessageContent } from '../message-render.js';
import type { CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';
import type { PrerenderedContent } from '../render-offload.js';
import { automaticVisibilityOnSend } from './user-topics.js';
import { widgetOnSend } from './submessages.js';
import { withPersonalFlags } from '../personal-flags.js';

export interface SendMessage {
  type: 'send_message';
  senderId: number;
  /** `stream` (also for wire `channel`) or `private` (also for wire `direct`). */
  messageType: 'stream' | 'private';
  /** The decoded `to` parameter: name, id, or a list (zulip-behavior.md §2.1). */
  to: unknown;
  /** Stripped topic; undefined when the client passed none. */
  topic: string | undefined;
  content: string;
  client: string;
  /** Undefined = Zulip's heuristic on the client name. */
  readBySender?: boolean;
  queueId?: string;
  localId?: string;
  /** Set only by `internal_send` (system bots): skips the sender permission checks. */
  internal?: boolean;
  /** A worker's render of the normalized content (realm/render-offload.ts), used when verified against the state. */
  prerendered?: PrerenderedContent;
}

type StreamTarget = { kind: 'name'; name: string } | { kind: 'id'; id: number };

/** Parses `to` for a channel message (zulip-behavior.md §2.1 `to`). */
function parseStreamTo(to: unknown): Result<StreamTarget | null> {
  let value = to;
  if (Array.isArray(value)) {
    if (value.length !== 1) return fail(Errors.badRequest('Expected exactly one channel'));
    value = value[0];
  }
  if (typeof value === 'string') return ok(value.trim() === '' ? null : { kind: 'name', name: value });
  if (typeof value === 'number' && Number.isInteger(value)) return ok({ kind: 'id', id: value });
  if (value === undefined || value === null) return ok(null);
  return fail(Errors.badRequest('Invalid data type for channel'));
}

/**
 * Parses `to` for a direct message into emails or user ids (`extract_private_recipients`): a
 * string is split on commas, a list is taken as is; anything else (a bare integer too) is an error.
 */
function parseDirectTo(to: unknown): Result<{ emails: string[] } | { ids: number[] }> {
  let list: unknown[];
  if (typeof to === 'string') list = to.split(',');
  else if (Array.isArray(to)) list = to;
  else if (to === undefined || to === null) list = [];
  else return fail(Errors.invalidRecipientsDataType());
  if (list.length === 0) return ok({ emails: [] });
  if (typeof list[0] === 'string') {
    if (!list.every((x) => typeof x === 'string')) return fail(Errors.mixedRecipients());
    const emails = [...new Set((list as string[]).map((e) => e.trim()).filter((e) => e !== ''))];
    return ok({ emails });
  }
  if (typeof list[0] === 'number') {
    if (!list.every((x) => typeof x === 'number')) return fail(Errors.mixedRecipients());
    if (!list.every((x) => Number.isInteger(x))) return fail(Errors.invalidRecipientsDataType());
    return ok({ ids: [...new Set(list as number[])] });
  }
  return fail(Errors.invalidRecipientsDataType());
}

/** Validates and normalizes a channel message topic. Returns the topic to store ('' = empty topic). */
function checkTopic(state: RealmState, raw: string | undefined): Result<string> {
  if (raw === undefined) return fail(Errors.missingTopic());
  let topic = raw.trim();
  if (topic === NO_TOPIC || topic === state.settings.emptyTopicDisplayName) topic = '';
  const pos = invalidCharPosition(topic);
  if (pos > 0) return fail(Errors.topicInvalidChar(pos));
  return ok(truncateTopic(topic));
}

/** Enforces the channel's effective topics policy on the (normalized) topic. */
function checkTopicsPolicy(state: RealmState, stream: Stream, topic: string): ZulipError | null {
  const policy = stream.topicsPolicy === 'inherit' ? state.settings.topicsPolicy : stream.topicsPolicy;
  if (policy === 'empty_topic_only' && topic !== '') return Errors.onlyEmptyTopicAllowed();
  if (topic === '' && policy === 'disable_empty_topic') {
    return stream.topicsPolicy === 'inherit' ? Errors.topicsRequired() : Errors.emptyTopicNotAllowedInChannel();
  }
  return null;
}

/**
 * Zulip's `validate_stream_id_with_pm_notification` / `validate_stream_name_with_pm_notification`:
 * the channel by id or name, archived ones included (sending to those is refused by
 * `accessStreamForSend` with Zulip's "Not authorized to send to channel" error).
 */
function resolveStream(state: RealmState, target: StreamTarget): Result<Stream> {
  if (target.kind === 'id') {
    const stream = state.streams.get(target.id);
    return stream ? ok(stream) : fail(Errors.streamIdNotFound(target.id));
  }
  const name = checkStreamName(target.name);
  if (!name.ok) return fail(Errors.badRequest(name.msg));
  const stream = findStreamByName(state, name.name);
  return stream ? ok(stream) : fail(Errors.streamNameNotFound(name.name));
}

function resolveDirectRecipients(state: RealmState, to: { emails: string[] } | { ids: number[] }): Result<User[]> {
  const users: User[] = [];
  if ('emails' in to) {
    for (const email of to.emails) {
      const user = findUserByEmail(state, email);
      if (user === undefined) return fail(Errors.invalidEmail(email));
      users.push(user);
    }
  } else {
    for (const id of to.ids) {
      const user = state.users.get(id);
      if (user === undefined) return fail(Errors.invalidUserId(id));
      users.push(user);
    }
  }
  if (users.length === 0) return fail(Errors.noRecipients());
  for (const user of users) if (!user.isActive) return fail(Errors.noLongerUsingZulip(apiEmail(user, state.host)));
  return ok(users);
}

/** Active receivers of a message, sender included: who gets a UserMessage row and the event. */
function receiversOf(senderId: number, activeSubscriberIds: readonly number[]): number[] {
  // The ids are distinct (a subscription map's keys): only the sender can repeat. One copy of the
  // cached array (not a push per id: a 1,000-id list regrew a dozen times), then the sender moved
  // to the front, the others keeping their order.
  const k = activeSubscriberIds.indexOf(senderId);
  if (k < 0) return [senderId].concat(activeSubscriberIds);
  const out = activeSubscriberIds.slice();
  for (let i = k; i > 0; i--) out[i] = out[i - 1]!;
  out[0] = senderId;
  return out;
}

export const sendMessage: Handler<SendMessage, CommandReplies['send_message']> = (state, cmd, ctx) => {
  const sender = state.users.get(cmd.senderId);
  if (sender === undefined || !sender.isActive) return fail(Errors.noSuchUser());
  const id = state.nextIds.message;
  let recipientId: number;
  let newDirectUserIds: number[] | undefined;
  let topic = '';
  let content: string;
  let receivers: number[];
  let targetStream: Stream | undefined;

  if (cmd.messageType === 'stream') {
    const target = parseStreamTo(cmd.to);
    if (!target.ok) return target;
    if (target.value === null) return fail(Errors.missingStream());
    const checkedTopic = checkTopic(state, cmd.topic);
    if (!checkedTopic.ok) return checkedTopic;
    topic = checkedTopic.value;
    const normalized = normalizeContent(cmd.content);
    if (!normalized.ok) return fail(Errors.badRequest(normalized.msg));
    content = normalized.content;
    const stream = resolveStream(state, target.value);
    if (!stream.ok) return stream;
    // Zulip's check_message: access_stream_for_send_message before the topic checks. Internal
    // senders skip the access check, but archived channels refuse them too (no
    // `archived_channel_notice` sends here).
    const denied = cmd.internal
      ? stream.value.isArchived ? Errors.notAuthorizedToSend(stream.value.name) : null
      : accessStreamForSend(state, sender, stream.value);
    if (denied) return fail(denied);
    const policyError = checkTopicsPolicy(state, stream.value, topic);
    if (policyError) return fail(policyError);
    recipientId = stream.value.recipientId;
    receivers = receiversOf(sender.id, receiverIds(state, stream.value.id));
    targetStream = stream.value;
  } else {
    const to = parseDirectTo(cmd.to);
    if (!to.ok) return to;
    const normalized = normalizeContent(cmd.content);
    if (!normalized.ok) return fail(Errors.badRequest(normalized.msg));
    content = normalized.content;
    const users = resolveDirectRecipients(state, to.value);
    if (!users.ok) return users;
    const members = directMembers(sender.id, users.value.map((u) => u.id));
    const existing = findDirectRecipient(state, members);
    if (existing === undefined) {
      recipientId = state.nextIds.recipient;
      newDirectUserIds = members;
    } else {
      recipientId = existing;
    }
    receivers = members;
  }

  const nowSeconds = ctx.now();
  const rendering = renderMessageContent(state, content, targetStream
    ? { senderId: sender.id, streamId: targetStream.id, topic, nowSeconds }
    : { senderId: sender.id, directUserIds: receivers, nowSeconds }, cmd.prerendered);
  if (rendering instanceof ZulipError) return fail(rendering);
  if (!cmd.internal) {
    const mentionError =
      (targetStream && checkWildcardMentions(state, sender.id, targetStream, rendering)) || checkGroupMentions(state, sender.id, rendering);
    if (mentionError) return fail(mentionError);
  }
  const record: MessageSent = {
    type: 'message_sent',
    v: 1,
    id,
    senderId: sender.id,
    recipientId,
    topic,
    content,
    rendered: rendering.rendered,
    timestamp: Math.floor(ctx.now()),
    client: cmd.client,
    isMeMessage: isMeMessage(content),
    readBySender: cmd.readBySender ?? defaultReadBySender(cmd.client),
  };
  if (newDirectUserIds !== undefined) record.newDirectUserIds = newDirectUserIds;
  const userFlags = withPersonalFlags(state, sender.id, content, receivers, rendering.userFlags);
  if (Object.keys(userFlags).length > 0) record.userFlags = userFlags;
  const automatic = targetStream && automaticVisibilityOnSend(state, sender, targetStream, topic, record.timestamp);
  const message = messageEvent(state, record, receivers, cmd);
  // Zulip's do_claim_attachments runs with the message save, before its event is sent.
  const claims = claimAttachments(state, sender, id, record.timestamp, record.rendered);
  // A /poll or /todo message gets its widget submessage with it (handlers/submessages.ts).
  const widget = widgetOnSend(state, record);
  if (widget !== null && message.payload.type === 'message') message.payload.message.submessages = [widget.wire];
  // Built by push, not spreads: the plain channel send (no policy change, widget or upload) makes
  // two one-element arrays and nothing else.
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  if (automatic) {
    // Zulip sets the sender's visibility before delivering the message (seed §3 last row, §6.3).
    records.push(automatic.record);
    for (const event of automatic.events) events.push(event);
  }
  records.push(record);
  if (widget !== null) records.push(widget.record);
  for (const claim of claims.records) records.push(claim);
  for (const event of claims.events) events.push(event);
  events.push(message);
  if (automatic) return ok({ records, events, reply: { id, automatic_new_visibility_policy: automatic.policy } });
  return ok({ records, events, reply: { id } });
};

/**
 * The `message` event (zulip-behavior.md §10.4): the message object with rendered content, plus
 * what each queue needs to finalize it (raw content, per-user flags, the sender's local id).
 */
function messageEvent(state: RealmState, r: MessageSent, receivers: readonly number[], cmd?: SendMessage): RealmEvent {
  const recipient: Recipient = r.newDirectUserIds !== undefined ? { type: 'direct', userIds: r.newDirectUserIds } : state.recipients.get(r.recipientId)!;
  const fields: MessageFields = {
    id: r.id, senderId: r.senderId, recipientId: r.recipientId, recipient, topic: r.topic,
    timestamp: r.timestamp, client: r.client, isMeMessage: r.isMeMessage,
  };
  const sender = state.users.get(r.senderId)!;
  const message = buildMessageWire(state, fields, r.rendered, 'text/html', { clientGravatar: false, allowEmptyTopicName: true });
  // Only receivers with a flag are listed (the others get [], MessageEventExtras.flags): a channel
  // message without mentions lists at most its sender, however many subscribers it has.
  const flags: Record<number, readonly string[]> = {};
  if (r.userFlags !== undefined) for (const key in r.userFlags) flags[Number(key)] = sharedFlagNames(r.userFlags[Number(key)]!);
  if (r.readBySender) flags[r.senderId] = sharedFlagNames((r.userFlags?.[r.senderId] ?? 0) | Flag.read);
  const extras: MessageEventExtras = { raw: r.content, senderEmailPublic: sender.emailAddressVisibility === 1 && sender.avatar === undefined, flags };
  if (cmd?.queueId !== undefined) extras.senderQueueId = cmd.queueId;
  if (cmd?.localId !== undefined) extras.localId = cmd.localId;
  if (recipient.type === 'stream') {
    const stream = state.streams.get(recipient.streamId)!;
    if (!stream.inviteOnly) extras.publicStreamId = stream.id;
    if (r.topic === '') extras.emptyTopicDisplayName = state.settings.emptyTopicDisplayName;
  }
  return { userIds: receivers, payload: { type: 'message', message }, message: extras };
}
