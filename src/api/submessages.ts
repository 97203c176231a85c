/**
 * `POST /submessage` (https://zulip.com/api/send-submessage... Zulip's zerver/views/submessage.py
 * `process_submessage`): `message_id`, `msg_type`, `content` (JSON text) → the empty success.
 * How polls and to-do lists made in any Zulip client vote, add options and tasks; the rules are
 * in `realm/handlers/submessages.ts`.
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `POST /submessage`. */
export const processSubmessage = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {
    message_id: P.int({ required: true }),
    msg_type: P.string({ required: true }),
    content: P.string({ required: true }),
  },
  handler: ({ realm, user, params }) =>
    runCommand(realm, { type: 'add_submessage', actorId: user.id, messageId: params.message_id, msgType: params.msg_type, content: params.content }),
});
