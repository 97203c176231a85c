/**
 * Scheduled messages and reminders (https://zulip.com/api/create-scheduled-message,
 * https://zulip.com/api/create-message-reminder; Zulip's `zerver/models/scheduled_jobs.py`
 * `ScheduledMessage`, whose `delivery_type` is `SEND_LATER` or `REMIND`): messages a user asked
 * the server to send at `scheduled_delivery_timestamp`. Both kinds share one table and one id
 * sequence, as in Zulip; each endpoint family sees only its own kind.
 *
 * A scheduled message is stored already validated (the content normalized and rendered at
 * schedule time, as Zulip's `do_schedule_messages` stores `rendered_content`) and in its wire
 * terms (Zulip's `get_recipient_ids`): `type: 'stream'` with `to = [stream id]` and a topic, or
 * `type: 'private'` with `to` = the other participants sorted by id (`[sender id]` for a message
 * to oneself) and topic `''`. Delivered ones are removed from the state (Zulip keeps the row
 * with `delivered=True`, which no API shows); failed ones stay with `failed: true` until edited
 * (with a new time) or deleted.
 *
 * State shape: `RealmState.scheduledMessages` = `{byId: id → message in id order, nextId}`
 * (optional: absent until the first one; older snapshots lack it).
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** Zulip's `ScheduledMessage.SEND_LATER` / `ScheduledMessage.REMIND`. */
export type ScheduledKind = 'send_later' | 'remind';

/** One undelivered scheduled message or reminder. */
export interface ScheduledMessage {
  id: number;
  kind: ScheduledKind;
  senderId: number;
  type: 'stream' | 'private';
  /** `stream`: `[stream id]`; `private`: the other participants sorted, or `[senderId]`. */
  to: number[];
  /** `''` for direct messages. */
  topic: string;
  /** Normalized Markdown, and its rendering at schedule (or last edit) time. */
  content: string;
  rendered: string;
  /** The sending client's name (Zulip's `sending_client`, updated by edits). */
  client: string;
  /** UNIX seconds (integer). */
  deliverAt: number;
  readBySender: boolean;
  failed: boolean;
  /** Zulip's `failure_message` (set while `failed`). */
  failureMessage?: string;
  /** Reminders: the message reminded about, and the user's note. */
  reminderTargetMessageId?: number;
  reminderNote?: string;
}

/** All undelivered scheduled messages of the realm and the next id. */
export interface ScheduledMessageState {
  byId: Map<number, ScheduledMessage>;
  nextId: number;
}

/** A scheduled message or reminder was created (ids come from `nextScheduledMessageId`). */
export interface ScheduledMessageCreated {
  type: 'scheduled_message_created';
  v: 1;
  message: ScheduledMessage;
}

/** `PATCH /scheduled_messages/{id}`: the whole edited message (`failed` cleared). */
export interface ScheduledMessageEdited {
  type: 'scheduled_message_edited';
  v: 1;
  message: ScheduledMessage;
}

/** Deleted by its owner (`DELETE /scheduled_messages/{id}`, `DELETE /reminders/{id}`). */
export interface ScheduledMessageDeleted {
  type: 'scheduled_message_deleted';
  v: 1;
  id: number;
}

/** Sent at its time as message `messageId` (it leaves the state). */
export interface ScheduledMessageDelivered {
  type: 'scheduled_message_delivered';
  v: 1;
  id: number;
  messageId: number;
}

/** Delivery failed with Zulip's `failure_message`; the message stays, `failed: true`. */
export interface ScheduledMessageFailed {
  type: 'scheduled_message_failed';
  v: 1;
  id: number;
  failureMessage: string;
}

export type ScheduledMessageRecord = ScheduledMessageCreated | ScheduledMessageEdited | ScheduledMessageDeleted | ScheduledMessageDelivered | ScheduledMessageFailed;

/** Zulip's `APIScheduledStreamMessageDict` / `APIScheduledDirectMessageDict` (`ScheduledMessage.to_dict`). */
export type ScheduledMessageWire =
  | { scheduled_message_id: number; type: 'stream'; to: number; topic: string; content: string; rendered_content: string; scheduled_delivery_timestamp: number; failed: boolean }
  | { scheduled_message_id: number; type: 'private'; to: number[]; content: string; rendered_content: string; scheduled_delivery_timestamp: number; failed: boolean };

/** Zulip's `APIReminderDirectMessageDict` (`ScheduledMessage.to_reminder_dict`). */
export interface ReminderWire {
  reminder_id: number;
  type: 'private';
  to: number[];
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
  reminder_target_message_id: number;
}

export function scheduledMessageWire(m: ScheduledMessage): ScheduledMessageWire {
  const common = { content: m.content, rendered_content: m.rendered, scheduled_delivery_timestamp: m.deliverAt, failed: m.failed };
  return m.type === 'stream'
    ? { scheduled_message_id: m.id, type: 'stream', to: m.to[0]!, topic: m.topic, ...common }
    : { scheduled_message_id: m.id, type: 'private', to: [...m.to], ...common };
}

export function reminderWire(m: ScheduledMessage): ReminderWire {
  return {
    reminder_id: m.id, type: 'private', to: [...m.to], content: m.content, rendered_content: m.rendered,
    scheduled_delivery_timestamp: m.deliverAt, failed: m.failed, reminder_target_message_id: m.reminderTargetMessageId ?? 0,
  };
}

/** The scheduled message `id` (any kind, any owner), or undefined. */
export function findScheduledMessage(state: RealmState, id: number): ScheduledMessage | undefined {
  return state.scheduledMessages?.byId.get(id);
}

/** The id the next scheduled message or reminder gets. */
export function nextScheduledMessageId(state: RealmState): number {
  return state.scheduledMessages?.nextId ?? 1;
}

/** By delivery time, then id (Zulip's `order_by("scheduled_timestamp")`, ties left to the database). */
const byDeliveryTime = (a: ScheduledMessage, b: ScheduledMessage) => a.deliverAt - b.deliverAt || a.id - b.id;

/** The user's undelivered messages of `kind`, by delivery time (Zulip's `get_undelivered_scheduled_messages` / `get_undelivered_reminders`). */
export function undeliveredOf(state: RealmState, userId: number, kind: ScheduledKind): ScheduledMessage[] {
  const out: ScheduledMessage[] = [];
  for (const m of state.scheduledMessages?.byId.values() ?? []) if (m.senderId === userId && m.kind === kind) out.push(m);
  return out.sort(byDeliveryTime);
}

/** `GET /scheduled_messages` and `/register` `scheduled_messages`. */
export function scheduledMessagesForUser(state: RealmState, userId: number): ScheduledMessageWire[] {
  return undeliveredOf(state, userId, 'send_later').map(scheduledMessageWire);
}

/** `GET /reminders` and `/register` `reminders`. */
export function remindersForUser(state: RealmState, userId: number): ReminderWire[] {
  return undeliveredOf(state, userId, 'remind').map(reminderWire);
}

/**
 * Ids of the messages due at `nowSeconds` (not failed, `deliverAt <= nowSeconds`), in delivery
 * order, at most `limit` (Zulip's `try_deliver_one_scheduled_message` query, repeated).
 */
export function dueScheduledMessageIds(state: RealmState, nowSeconds: number, limit: number): number[] {
  const due: ScheduledMessage[] = [];
  for (const m of state.scheduledMessages?.byId.values() ?? []) if (!m.failed && m.deliverAt <= nowSeconds) due.push(m);
  return due.sort(byDeliveryTime).slice(0, limit).map((m) => m.id);
}

const copy = (m: ScheduledMessage): ScheduledMessage => ({ ...m, to: [...m.to] });

/** `evolve` of the scheduled message records. */
export function evolveScheduledMessages(state: RealmState, r: ScheduledMessageRecord): void {
  const all = (state.scheduledMessages ??= { byId: new Map(), nextId: 1 });
  switch (r.type) {
    case 'scheduled_message_created':
      all.byId.set(r.message.id, copy(r.message));
      if (r.message.id >= all.nextId) all.nextId = r.message.id + 1;
      return;
    case 'scheduled_message_edited':
      if (all.byId.has(r.message.id)) all.byId.set(r.message.id, copy(r.message));
      return;
    case 'scheduled_message_deleted':
    case 'scheduled_message_delivered':
      all.byId.delete(r.id);
      return;
    case 'scheduled_message_failed': {
      const m = all.byId.get(r.id);
      if (m !== undefined) all.byId.set(r.id, { ...m, failed: true, failureMessage: r.failureMessage });
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** Snapshot form (absent in snapshots written before scheduled messages: none). */
export interface ScheduledMessagesCore {
  nextId: number;
  messages: ScheduledMessage[];
}

export function scheduledMessagesToCore(state: RealmState): ScheduledMessagesCore | undefined {
  const all = state.scheduledMessages;
  return all === undefined ? undefined : { nextId: all.nextId, messages: [...all.byId.values()] };
}

/** Restores `state.scheduledMessages` (`undefined`/`null`: an older snapshot, or none ever). */
export function scheduledMessagesFromCore(state: RealmState, core: ScheduledMessagesCore | null | undefined): void {
  if (core === undefined || core === null) {
    delete state.scheduledMessages;
    return;
  }
  state.scheduledMessages = { nextId: core.nextId, byId: new Map(core.messages.map((m) => [m.id, copy(m)])) };
}
