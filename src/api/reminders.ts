/**
 * Reminder endpoints (https://zulip.com/api/create-message-reminder,
 * https://zulip.com/api/get-reminders, https://zulip.com/api/delete-reminder; Zulip's
 * zerver/views/reminders.py), each user acting on their own reminders only:
 * - `GET /reminders` → `{reminders}` undelivered ones by time;
 * - `POST /reminders` (`message_id`, `scheduled_delivery_timestamp`, `note`) → `{reminder_id}`;
 * - `DELETE /reminders/{reminder_id}`.
 * The rules are in `realm/handlers/reminders.ts`, the text in `realm/reminder-content.ts`.
 */
import { remindersForUser } from '../domain/scheduled-messages.js';
import { isDamagedBody } from '../realm/damaged-body.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `GET /reminders` (Zulip's `get_reminders`). */
export const getReminders = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {},
  handler: ({ realm, user }) => ({ reminders: remindersForUser(realm.state, user.id) }),
});

/** `POST /reminders` (Zulip's `create_reminders_message_backend`). */
export const createReminder = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {
    message_id: P.int({ required: true }),
    scheduled_delivery_timestamp: P.int({ required: true }),
    note: P.string(),
  },
  handler: async ({ realm, user, params, clientName }) => {
    const id = params.message_id;
    // The quoted text: read here (bodies live in the store); the handler checks access.
    const body = realm.state.messages.exists(id) ? realm.messageBody(id) : undefined;
    const messageContent = body !== undefined && !isDamagedBody(body) ? body.content : '';
    return runCommand(realm, {
      type: 'create_reminder', senderId: user.id, messageId: id, messageContent,
      deliverAt: params.scheduled_delivery_timestamp, client: clientName, ...(params.note !== undefined && { note: params.note }),
    }, (reply) => ({ reminder_id: reply.reminder_id }));
  },
});

/** `DELETE /reminders/{reminder_id}` (Zulip's `delete_reminder`). */
export const deleteReminder = defineEndpoint({
  auth: 'user',
  pathParams: { reminder_id: 'int' },
  dialect: 'typed',
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'delete_reminder', senderId: user.id, reminderId: path.reminder_id }),
});
