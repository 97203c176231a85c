/**
 * Scheduled message and reminder access (Zulip's zerver/lib/scheduled_messages.py
 * `access_scheduled_message` and zerver/lib/reminders.py `access_reminder`): each is reachable
 * only by its sender and only through its own endpoint family; anything else (another user's,
 * the other kind, unknown, delivered) answers exactly like an unknown id, HTTP 404.
 */
import { ZulipError, fail, ok, type Result } from '../../errors.js';
import { findScheduledMessage, type ScheduledKind, type ScheduledMessage } from '../scheduled-messages.js';
import type { RealmState, User } from '../realm-state.js';

/** HTTP 404 `Scheduled message does not exist` (Zulip's `ResourceNotFoundError`, code BAD_REQUEST). */
export const scheduledMessageDoesNotExist = (): ZulipError => new ZulipError('BAD_REQUEST', 'Scheduled message does not exist', 404);
/** HTTP 404 `Reminder does not exist` (Zulip's `ResourceNotFoundError`, code BAD_REQUEST). */
export const reminderDoesNotExist = (): ZulipError => new ZulipError('BAD_REQUEST', 'Reminder does not exist', 404);

function accessOwn(state: RealmState, user: User, id: number, kind: ScheduledKind): ScheduledMessage | undefined {
  const m = user.isActive ? findScheduledMessage(state, id) : undefined;
  return m !== undefined && m.senderId === user.id && m.kind === kind ? m : undefined;
}

/** The user's own scheduled message `id` (not a reminder), or `Scheduled message does not exist`. */
export function accessScheduledMessage(state: RealmState, user: User, id: number): Result<ScheduledMessage> {
  const m = accessOwn(state, user, id, 'send_later');
  return m === undefined ? fail(scheduledMessageDoesNotExist()) : ok(m);
}

/** The user's own reminder `id`, or `Reminder does not exist`. */
export function accessReminder(state: RealmState, user: User, id: number): Result<ScheduledMessage> {
  const m = accessOwn(state, user, id, 'remind');
  return m === undefined ? fail(reminderDoesNotExist()) : ok(m);
}
