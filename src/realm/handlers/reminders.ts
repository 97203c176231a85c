/**
 * Reminder commands (https://zulip.com/api/create-message-reminder,
 * https://zulip.com/api/delete-reminder; Zulip's zerver/views/reminders.py and
 * zerver/actions/reminders.py `schedule_reminder_for_message`, `do_delete_reminder`).
 *
 * A reminder is a scheduled direct message to oneself (`kind: 'remind'`), sent at its time by the
 * Notification Bot, whose content (`realm/reminder-content.ts`) quotes the message reminded about.
 * Checks, in Zulip's order: the time ("Scheduled delivery time must be in the future."), access to
 * the message ("Invalid message(s)"), the note ("Maximum reminder note length: 1000 characters"),
 * then the content is checked as a direct message to oneself. Events, to the owner only:
 * `reminders` `add` / `remove`.
 */
import { ok, fail, Errors, ZulipError, type Result } from '../../errors.js';
import type { User } from '../../domain/realm-state.js';
import { accessMessage, accessReminder } from '../../domain/access.js';
import { nextScheduledMessageId, reminderWire, type ScheduledMessage } from '../../domain/scheduled-messages.js';
import type { Handler, RealmView } from '../decision.js';
import { normalizeReminderNote, reminderContent } from '../reminder-content.js';
import { checkAsSend, ScheduledMessageErrors } from './scheduled-messages.js';

/** `POST /reminders`. */
export interface CreateReminder {
  type: 'create_reminder';
  senderId: number;
  messageId: number;
  /** The message's raw Markdown as the API read it (quoted in the reminder). */
  messageContent: string;
  /** UNIX seconds. */
  deliverAt: number;
  note?: string;
  client: string;
}

/** `DELETE /reminders/{reminder_id}`. */
export interface DeleteReminder {
  type: 'delete_reminder';
  senderId: number;
  reminderId: number;
}

export type ReminderCommand = CreateReminder | DeleteReminder;

/** Replies of the reminder commands (merged into `CommandReplies`). */
export interface ReminderReplies {
  create_reminder: { reminder_id: number };
  delete_reminder: Record<string, never>;
}

function actor(state: RealmView, id: number): Result<User> {
  const user = state.users.get(id);
  return user === undefined || !user.isActive ? fail(Errors.noSuchUser()) : ok(user);
}

export const createReminder: Handler<CreateReminder, ReminderReplies['create_reminder']> = (state, cmd, ctx) => {
  const owner = actor(state, cmd.senderId);
  if (!owner.ok) return owner;
  if (cmd.deliverAt <= ctx.now()) return fail(ScheduledMessageErrors.notInFuture());
  const access = accessMessage(state, owner.value, cmd.messageId);
  if (!access.ok) return access;
  let note: string | undefined;
  if (cmd.note) {
    const normalized = normalizeReminderNote(cmd.note);
    if (normalized instanceof ZulipError) return fail(normalized);
    note = normalized;
  }
  const content = reminderContent(state, owner.value, cmd.messageId, cmd.messageContent, note);
  const checked = checkAsSend(state, owner.value, 'private', [owner.value.id], undefined, content, cmd.client, ctx);
  if (!checked.ok) return checked;
  const reminder: ScheduledMessage = {
    id: nextScheduledMessageId(state), kind: 'remind', senderId: owner.value.id, type: 'private', ...checked.value,
    client: cmd.client, deliverAt: Math.trunc(cmd.deliverAt), readBySender: false, failed: false,
    reminderTargetMessageId: cmd.messageId, ...(note ? { reminderNote: note } : {}),
  };
  return ok({
    records: [{ type: 'scheduled_message_created', v: 1, message: reminder }],
    events: [{ userIds: [owner.value.id], payload: { type: 'reminders', op: 'add', reminders: [reminderWire(reminder)] } }],
    reply: { reminder_id: reminder.id },
  });
};

export const deleteReminder: Handler<DeleteReminder, Record<string, never>> = (state, cmd) => {
  const owner = actor(state, cmd.senderId);
  if (!owner.ok) return owner;
  const existing = accessReminder(state, owner.value, cmd.reminderId);
  if (!existing.ok) return existing;
  return ok({
    records: [{ type: 'scheduled_message_deleted', v: 1, id: existing.value.id }],
    events: [{ userIds: [owner.value.id], payload: { type: 'reminders', op: 'remove', reminder_id: existing.value.id } }],
    reply: {},
  });
};
