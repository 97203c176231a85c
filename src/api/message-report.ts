/**
 * `POST /messages/{message_id}/report` (https://zulip.com/api/report-message; Zulip's
 * zerver/views/message_report.py `report_message_backend`): `report_type` (required) and
 * `description` (default ''). The reported message's Markdown is read here (a memory-mapped
 * read, not allowed inside the actor) and handed to the command, which checks access before
 * using it. Rules and the moderation request message live in `realm/handlers/message-report.ts`.
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `POST /messages/{message_id}/report`. */
export const reportMessage = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  params: { report_type: P.string({ required: true }), description: P.string({ default: '' }) },
  handler: async ({ realm, user, path, params }) =>
    runCommand(realm, {
      type: 'report_message',
      actorId: user.id,
      messageId: path.message_id,
      reportType: params.report_type,
      description: params.description,
      reportedContent: realm.messageBody(path.message_id)?.content ?? '',
    }),
});
