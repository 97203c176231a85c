/**
 * `DELETE /messages/{message_id}` (https://zulip.com/api/delete-message; Zulip's typed
 * `delete_message_backend`,
 * no parameters besides the path id). The rules, error strings and events are in
 * `realm/handlers/message-delete.ts`. Success: the empty success body.
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';

export const messageDeleteEndpoints = [
  defineEndpoint({
    method: 'DELETE',
    path: '/messages/{message_id}',
    auth: 'user',
    dialect: 'typed',
    params: {},
    handler: ({ realm, user, path }) =>
      runCommand(realm!, { type: 'delete_message', actorId: user!.id, messageId: path.message_id! }),
  }),
];
