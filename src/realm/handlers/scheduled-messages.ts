/**
 * Scheduled message commands (https://zulip.com/api/create-scheduled-message,
 * https://zulip.com/api/update-scheduled-message, https://zulip.com/api/delete-scheduled-message;
 * Zulip's zerver/views/scheduled_messages.py and zerver/actions/scheduled_messages.py
 * `check_schedule_message`, `edit_scheduled_message`, `delete_scheduled_message`).
 *
 * A scheduled message is validated as a send (Zulip's `check_message`): this module runs the
 * `send_message` decision on the current state without applying it (`checkAsSend`), so the
 * recipients, topic, content, channel permissions and mentions are checked by the one send path,
 * and the rendering it produced is what `rendered_content` shows. Delivery re-checks everything
 * (`scheduled-delivery.ts`).
 *
 * Checks, in Zulip's order: create: the time (`deliverAt <= now`: "Scheduled delivery time must be
 * in the future."), `to` (`extract_stream_id`: "Invalid data type for channel ID";
 * `extract_direct_message_recipient_ids`: "Invalid data type for recipients", "Recipient list may
 * only contain user IDs"), then the send checks. Edit: "Nothing to change", "Recipient required
 * when updating type of scheduled message.", "Topic required when updating scheduled message type
 * to stream.", the time, access (404 "Scheduled message does not exist"), a failed message needs
 * a new time, then the send checks when type, `to`, topic or content change.
 *
 * Events, to the sender only: `scheduled_messages` `add` / `update` / `remove`.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import type { MessageSent } from '../../domain/records.js';
import { accessScheduledMessage } from '../../domain/access.js';
import { defaultReadBySender } from '../../domain/messages.js';
import { nextScheduledMessageId, scheduledMessageWire, type ScheduledMessage } from '../../domain/scheduled-messages.js';
import type { CommandContext, Handler, RealmView } from '../decision.js';
import { sendMessage } from './messages.js';

/** `POST /scheduled_messages` (wire `channel`/`direct` already mapped to `stream`/`private`). */
export interface CreateScheduledMessage {
  type: 'create_scheduled_message';
  senderId: number;
  messageType: 'stream' | 'private';
  /** The raw `to` parameter (a channel id, or a JSON list of user ids). */
  to: string;
  topic?: string;
  content: string;
  /** UNIX seconds. */
  deliverAt: number;
  /** Undefined = Zulip's default (the client's default, false for a message to oneself). */
  readBySender?: boolean;
  client: string;
}

/** `PATCH /scheduled_messages/{id}`: every field optional (undefined = unchanged). */
export interface EditScheduledMessage {
  type: 'edit_scheduled_message';
  senderId: number;
  scheduledMessageId: number;
  messageType?: 'stream' | 'private';
  to?: string;
  topic?: string;
  content?: string;
  /** UNIX seconds. */
  deliverAt?: number;
  client: string;
}

/** `DELETE /scheduled_messages/{id}`. */
export interface DeleteScheduledMessage {
  type: 'delete_scheduled_message';
  senderId: number;
  scheduledMessageId: number;
}

export type ScheduledMessageCommand = CreateScheduledMessage | EditScheduledMessage | DeleteScheduledMessage;

/** Replies of the scheduled message commands (merged into `CommandReplies`). */
export interface ScheduledMessageReplies {
  create_scheduled_message: { scheduled_message_id: number };
  edit_scheduled_message: Record<string, never>;
  delete_scheduled_message: Record<string, never>;
}

/** Zulip's error strings, byte for byte. */
export const ScheduledMessageErrors = {
  /** `DeliveryTimeNotInFutureError`. */
  notInFuture: () => Errors.badRequest('Scheduled delivery time must be in the future.'),
  nothingToChange: () => Errors.badRequest('Nothing to change'),
  recipientRequired: () => Errors.badRequest('Recipient required when updating type of scheduled message.'),
  topicRequired: () => Errors.badRequest('Topic required when updating scheduled message type to stream.'),
  invalidChannelId: () => Errors.badRequest('Invalid data type for channel ID'),
  invalidRecipients: () => Errors.badRequest('Invalid data type for recipients'),
  recipientIdsOnly: () => Errors.badRequest('Recipient list may only contain user IDs'),
} as const;

/** Zulip's `extract_stream_id`: Python's `int(req_to)` (surrounding whitespace allowed). */
function extractStreamId(raw: string): Result<number> {
  const s = raw.trim();
  return /^[+-]?\d+$/.test(s) ? ok(Number(s)) : fail(ScheduledMessageErrors.invalidChannelId());
}

/** Zulip's `extract_direct_message_recipient_ids`: a JSON list of integers, duplicates dropped. */
function extractRecipientIds(raw: string): Result<number[]> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  if (!Array.isArray(value)) return fail(ScheduledMessageErrors.invalidRecipients());
  for (const id of value) if (typeof id !== 'number' || !Number.isInteger(id)) return fail(ScheduledMessageErrors.recipientIdsOnly());
  return ok([...new Set(value as number[])]);
}

/** The parsed `to` for a message type: `[stream id]` or user ids. */
export function parseScheduledTo(messageType: 'stream' | 'private', raw: string): Result<number[]> {
  if (messageType === 'private') return extractRecipientIds(raw);
  const id = extractStreamId(raw);
  return id.ok ? ok([id.value]) : id;
}

/** What a successful send check yields: the message as it would be stored, in scheduled-message terms. */
export interface CheckedSend {
  to: number[];
  topic: string;
  content: string;
  rendered: string;
}

/**
 * Zulip's `check_message` for `sender`: the `send_message` decision on the current state, not
 * applied. `to` is `[stream id]` or user ids; the result's `to` is in wire terms (the other
 * participants sorted, or `[sender]`).
 */
export function checkAsSend(
  state: RealmView, sender: User, messageType: 'stream' | 'private', to: readonly number[], topic: string | undefined, content: string, client: string, ctx: CommandContext,
): Result<CheckedSend> {
  const sent = sendMessage(state, {
    type: 'send_message', senderId: sender.id, messageType, to: messageType === 'stream' ? to[0] : [...to], topic, content, client,
  }, ctx);
  if (!sent.ok) return sent;
  const record = sent.value.records.find((r): r is MessageSent => r.type === 'message_sent')!;
  if (messageType === 'stream') {
    const recipient = state.recipients.get(record.recipientId)!;
    return ok({ to: [recipient.type === 'stream' ? recipient.streamId : 0], topic: record.topic, content: record.content, rendered: record.rendered });
  }
  return ok({ to: wireDirectTo(state, sender.id, record), topic: '', content: record.content, rendered: record.rendered });
}

/** Zulip's `get_recipient_ids` for a direct message: the other participants sorted, or `[sender]`. */
function wireDirectTo(state: RealmView, senderId: number, record: MessageSent): number[] {
  const recipient = state.recipients.get(record.recipientId);
  const members = record.newDirectUserIds ?? (recipient?.type === 'direct' ? recipient.userIds : [senderId]);
  const others = members.filter((id) => id !== senderId).sort((a, b) => a - b);
  return others.length > 0 ? others : [senderId];
}

/** The acting user, active. */
function actor(state: RealmState, id: number): Result<User> {
  const user = state.users.get(id);
  return user === undefined || !user.isActive ? fail(Errors.noSuchUser()) : ok(user);
}

export const createScheduledMessage: Handler<CreateScheduledMessage, ScheduledMessageReplies['create_scheduled_message']> = (state, cmd, ctx) => {
  const sender = actor(state, cmd.senderId);
  if (!sender.ok) return sender;
  if (cmd.deliverAt <= ctx.now()) return fail(ScheduledMessageErrors.notInFuture());
  const to = parseScheduledTo(cmd.messageType, cmd.to);
  if (!to.ok) return to;
  const checked = checkAsSend(state, sender.value, cmd.messageType, to.value, cmd.topic, cmd.content, cmd.client, ctx);
  if (!checked.ok) return checked;
  // Zulip's legacy default: read if the client marks its sends read, unless sent to oneself only.
  const toSelf = cmd.messageType === 'private' && checked.value.to.length === 1 && checked.value.to[0] === cmd.senderId;
  const message: ScheduledMessage = {
    id: nextScheduledMessageId(state), kind: 'send_later', senderId: cmd.senderId, type: cmd.messageType, ...checked.value,
    client: cmd.client, deliverAt: Math.trunc(cmd.deliverAt), readBySender: cmd.readBySender ?? (defaultReadBySender(cmd.client) && !toSelf), failed: false,
  };
  return ok({
    records: [{ type: 'scheduled_message_created', v: 1, message }],
    events: [{ userIds: [cmd.senderId], payload: { type: 'scheduled_messages', op: 'add', scheduled_messages: [scheduledMessageWire(message)] } }],
    reply: { scheduled_message_id: message.id },
  });
};

export const editScheduledMessage: Handler<EditScheduledMessage, Record<string, never>> = (state, cmd, ctx) => {
  const sender = actor(state, cmd.senderId);
  if (!sender.ok) return sender;
  const { messageType, to, topic, content, deliverAt } = cmd;
  if (messageType === undefined && to === undefined && topic === undefined && content === undefined && deliverAt === undefined) {
    return fail(ScheduledMessageErrors.nothingToChange());
  }
  if (messageType !== undefined && to === undefined) return fail(ScheduledMessageErrors.recipientRequired());
  if (messageType === 'stream' && topic === undefined) return fail(ScheduledMessageErrors.topicRequired());
  if (deliverAt !== undefined && deliverAt <= ctx.now()) return fail(ScheduledMessageErrors.notInFuture());
  const existing = accessScheduledMessage(state, sender.value, cmd.scheduledMessageId);
  if (!existing.ok) return existing;
  const old = existing.value;
  // A message the server failed to send needs a new delivery time (Zulip's edit_scheduled_message).
  if (old.failed && deliverAt === undefined) return fail(ScheduledMessageErrors.notInFuture());

  let edited: ScheduledMessage = { ...old, client: cmd.client, failed: false };
  delete edited.failureMessage;
  if (messageType !== undefined || to !== undefined || topic !== undefined || content !== undefined) {
    const newType = messageType ?? old.type;
    let newTo = old.to;
    if (to !== undefined) {
      const parsed = parseScheduledTo(newType, to);
      if (!parsed.ok) return parsed;
      newTo = parsed.value;
    }
    // A topic sent for a direct message is ignored, as Zulip does.
    const newTopic = newType === 'stream' ? (topic ?? (old.type === 'stream' ? old.topic : undefined)) : undefined;
    const checked = checkAsSend(state, sender.value, newType, newTo, newTopic, content ?? old.content, cmd.client, ctx);
    if (!checked.ok) return checked;
    edited = { ...edited, type: newType, ...checked.value };
  }
  if (deliverAt !== undefined) edited.deliverAt = Math.trunc(deliverAt);
  return ok({
    records: [{ type: 'scheduled_message_edited', v: 1, message: edited }],
    events: [{ userIds: [cmd.senderId], payload: { type: 'scheduled_messages', op: 'update', scheduled_message: scheduledMessageWire(edited) } }],
    reply: {},
  });
};

export const deleteScheduledMessage: Handler<DeleteScheduledMessage, Record<string, never>> = (state, cmd) => {
  const sender = actor(state, cmd.senderId);
  if (!sender.ok) return sender;
  const existing = accessScheduledMessage(state, sender.value, cmd.scheduledMessageId);
  if (!existing.ok) return existing;
  return ok({
    records: [{ type: 'scheduled_message_deleted', v: 1, id: existing.value.id }],
    events: [{ userIds: [cmd.senderId], payload: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: existing.value.id } }],
    reply: {},
  });
};
