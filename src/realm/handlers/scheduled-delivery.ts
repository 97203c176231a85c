/**
 * Delivering one due scheduled message or reminder (Zulip's zerver/actions/scheduled_messages.py
 * `try_deliver_one_scheduled_message`, `send_scheduled_message`, `send_reminder`,
 * `send_failed_scheduled_message_notification`). Issued by the delivery job
 * (`realm/scheduled-delivery-job.ts`) with the job's clock; never built from client input.
 *
 * - Not found, already failed, or not yet due at `nowSeconds`: nothing happens (`skipped`).
 * - The sender was deactivated: failed ("Account is deactivated"), no notification.
 * - A reminder: sent by the Notification Bot to its owner, its content rebuilt from the message's
 *   current content when the owner may still read it, else the content stored at creation.
 * - A scheduled message more than 10 minutes late (`SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES`, e.g.
 *   the server was down): failed, "Message could not be sent at the scheduled time.".
 * - Otherwise it goes through the normal send path (`send_message`) as its sender, so every send
 *   check (channel permissions, recipients still active, mentions...) is made again now.
 * A scheduled message whose send fails stays with `failed: true` and Zulip's `failure_message`;
 * its owner gets a `scheduled_messages` `update` event and a direct message from the
 * Notification Bot saying why (reminders fail silently, as in Zulip).
 */
import { ok, type Result } from '../../errors.js';
import { accessMessage } from '../../domain/access.js';
import { findScheduledMessage, scheduledMessageWire, type ScheduledMessage } from '../../domain/scheduled-messages.js';
import type { MessageSent } from '../../domain/records.js';
import type { CommandContext, Decision, Handler, RealmView } from '../decision.js';
import { reminderContent } from '../reminder-content.js';
import { internalSend } from './internal-send.js';
import { sendMessage } from './messages.js';

/** How late a scheduled message may still be sent (Zulip's `SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES`), seconds. */
export const SCHEDULED_MESSAGE_LATE_CUTOFF_SECONDS = 10 * 60;

/** Deliver scheduled message (or reminder) `scheduledMessageId` if it is due at `nowSeconds`. */
export interface DeliverScheduledMessage {
  type: 'deliver_scheduled_message';
  scheduledMessageId: number;
  /** UNIX seconds: the job's clock. */
  nowSeconds: number;
  /** Reminders: the target message's current raw Markdown, when the job could read it. */
  targetContent?: string;
}

/** What happened: `delivered` (as message `messageId`), `failed`, or `skipped` (not due, unknown, already failed). */
export interface DeliveryReply {
  outcome: 'delivered' | 'failed' | 'skipped';
  messageId?: number;
}

export interface DeliveryReplies {
  deliver_scheduled_message: DeliveryReply;
}

/** Zulip's `datetime_to_global_time`: `<time:ISO 8601>` in UTC, shown to each reader in their zone. */
export function globalTime(unixSeconds: number): string {
  return `<time:${new Date(unixSeconds * 1000).toISOString().replace(/\.000Z$/, '+00:00')}>`;
}

/** The Notification Bot's message about a failed scheduled message (`send_failed_scheduled_message_notification`). */
export function failedNotificationContent(deliverAt: number, failureMessage: string): string {
  return `The message you scheduled for ${globalTime(deliverAt)} was not sent because of the following error:\n\n> ${failureMessage}\n\n[View scheduled messages](#scheduled)\n\n`;
}

const skipped = (): Result<Decision<DeliveryReply>> => ok({ records: [], events: [], reply: { outcome: 'skipped' } });

function failure(m: ScheduledMessage, failureMessage: string, notify: boolean): Result<Decision<DeliveryReply>> {
  const failed: ScheduledMessage = { ...m, failed: true, failureMessage };
  return ok({
    records: [{ type: 'scheduled_message_failed', v: 1, id: m.id, failureMessage }],
    events: notify ? [{ userIds: [m.senderId], payload: { type: 'scheduled_messages', op: 'update', scheduled_message: scheduledMessageWire(failed) } }] : [],
    reply: { outcome: 'failed' },
    ...(notify && {
      followUps: [{ type: 'internal_send', bot: 'notification', messageType: 'private', to: [m.senderId], content: failedNotificationContent(m.deliverAt, failureMessage) }],
    }),
  });
}

const sentId = (d: Decision<unknown>) => d.records.find((r): r is MessageSent => r.type === 'message_sent')?.id;

function deliverReminder(state: RealmView, m: ScheduledMessage, cmd: DeliverScheduledMessage, ctx: CommandContext): Result<Decision<DeliveryReply>> {
  const owner = state.users.get(m.senderId)!;
  const target = m.reminderTargetMessageId;
  const readable = target !== undefined && cmd.targetContent !== undefined && accessMessage(state, owner, target).ok;
  const content = readable ? reminderContent(state, owner, target, cmd.targetContent!, m.reminderNote) : m.content;
  const sent = internalSend(state, { type: 'internal_send', bot: 'notification', messageType: 'private', to: [m.senderId], content }, ctx);
  if (!sent.ok) return failure(m, 'Reminder could not be sent.', false);
  const id = sentId(sent.value);
  if (id === undefined) {
    // The realm had no Notification Bot yet: it is created now, the delivery retried right after.
    return ok({ ...sent.value, reply: { outcome: 'skipped' }, followUps: [cmd] });
  }
  return ok({
    records: [...sent.value.records, { type: 'scheduled_message_delivered', v: 1, id: m.id, messageId: id }],
    events: [...sent.value.events, { userIds: [m.senderId], payload: { type: 'reminders', op: 'remove', reminder_id: m.id } }],
    reply: { outcome: 'delivered', messageId: id },
  });
}

export const deliverScheduledMessage: Handler<DeliverScheduledMessage, DeliveryReply> = (state, cmd, ctx) => {
  const m = findScheduledMessage(state, cmd.scheduledMessageId);
  if (m === undefined || m.failed || m.deliverAt > cmd.nowSeconds) return skipped();
  const sender = state.users.get(m.senderId);
  // Zulip's UserDeactivatedError: failed, without a notification to a deactivated account.
  if (sender === undefined || !sender.isActive) return failure(m, 'Account is deactivated', false);
  if (m.kind === 'remind') return deliverReminder(state, m, cmd, ctx);
  if (cmd.nowSeconds > m.deliverAt + SCHEDULED_MESSAGE_LATE_CUTOFF_SECONDS) return failure(m, 'Message could not be sent at the scheduled time.', true);
  const sent = sendMessage(state, {
    type: 'send_message', senderId: m.senderId, messageType: m.type, to: m.type === 'stream' ? m.to[0] : [...m.to],
    topic: m.type === 'stream' ? m.topic : undefined, content: m.content, client: m.client, readBySender: m.readBySender,
  }, ctx);
  if (!sent.ok) return failure(m, sent.error.message, true);
  const id = sent.value.reply.id;
  return ok({
    records: [...sent.value.records, { type: 'scheduled_message_delivered', v: 1, id: m.id, messageId: id }],
    events: [...sent.value.events, { userIds: [m.senderId], payload: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: m.id } }],
    reply: { outcome: 'delivered', messageId: id },
  });
};
