/**
 * `POST /messages/{message_id}/typing` (https://zulip.com/api/set-typing-status-for-message-edit,
 * Zulip FL 351; zerver/views/typing.py `send_message_edit_notification_backend`): `op` = `start`
 * or `stop` (required; anything else → "Invalid op"). Rules and receivers:
 * `realm/handlers/typing-edit.ts`.
 */
import { Errors } from '../errors.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `POST /messages/{message_id}/typing`. */
export const setTypingStatusForMessageEdit = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  dialect: 'typed',
  params: { op: P.string({ required: true }) },
  handler: ({ realm, user, params, path }) => {
    if (params.op !== 'start' && params.op !== 'stop') return Errors.badRequest('Invalid op');
    return runCommand(realm, { type: 'typing_edit_message', senderId: user.id, messageId: path.message_id, op: params.op });
  },
});
