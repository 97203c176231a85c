/**
 * `PATCH /messages/{message_id}` (https://zulip.com/api/update-message, Zulip's typed
 * `update_message_backend`):
 * `content`, `topic` (alias `subject`, stripped), `stream_id` (JSON non-negative integer),
 * `propagate_mode` (`change_one` default | `change_later` | `change_all`),
 * `send_notification_to_old_thread` (JSON bool, default false), `send_notification_to_new_thread`
 * (JSON bool, default true). Success: `{detached_uploads: []}`.
 *
 * Content edits need the current body (raw and HTML) for `orig_content` and the history entry;
 * bodies are outside the realm state, so the endpoint reads it and passes it with the message's
 * content version. If another edit lands in between, the handler answers `STALE_BODY` and the
 * endpoint reads again (at most a few times).
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { contentVersion } from '../domain/message-edits.js';
import { STALE_BODY, type EditMessage } from '../realm/handlers/message-edit.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { realmUrl } from './server-settings.js';

const PROPAGATE_MODES = new Set(['change_one', 'change_later', 'change_all']);

export const messageEditEndpoints = [
  defineEndpoint({
    method: 'PATCH',
    path: '/messages/{message_id}',
    auth: 'user',
    dialect: 'typed',
    params: {
      stream_id: P.json(Type.Integer({ minimum: 0 })),
      topic: P.string({ aliases: ['subject'] }),
      propagate_mode: P.string({ default: 'change_one' }),
      send_notification_to_old_thread: P.bool({ default: false }),
      send_notification_to_new_thread: P.bool({ default: true }),
      content: P.string(),
    },
    handler: async ({ realm, user, params, path, host }) => {
      if (!PROPAGATE_MODES.has(params.propagate_mode)) return Errors.badRequest('Invalid propagate_mode');
      const command: EditMessage = {
        type: 'edit_message',
        actorId: user!.id,
        messageId: path.message_id!,
        propagateMode: params.propagate_mode as EditMessage['propagateMode'],
        sendNotificationToOldThread: params.send_notification_to_old_thread,
        sendNotificationToNewThread: params.send_notification_to_new_thread,
        ...(params.content !== undefined && { content: params.content, realmUrl: realmUrl(host) }),
        ...(params.topic !== undefined && { topic: params.topic.trim() }),
        ...(params.stream_id !== undefined && { streamId: params.stream_id }),
      };
      for (let attempt = 0; ; attempt++) {
        if (command.content !== undefined) {
          const id = command.messageId;
          command.bodyVersion = contentVersion(realm!.state, id);
          const body = realm!.state.messages.exists(id) ? realm!.messageBody(id) : undefined;
          if (body !== undefined) command.body = body;
        }
        const result = await realm!.execute(command);
        if (result.ok) return { ...result.value };
        if (result.error.message !== STALE_BODY || attempt >= 4) return result.error;
      }
    },
  }),
];
