/**
 * Scheduled message endpoints (https://zulip.com/api/get-scheduled-messages,
 * https://zulip.com/api/create-scheduled-message, https://zulip.com/api/update-scheduled-message,
 * https://zulip.com/api/delete-scheduled-message; Zulip's zerver/views/scheduled_messages.py),
 * each user acting on their own scheduled messages only:
 * - `GET /scheduled_messages` → `{scheduled_messages}` undelivered ones (failed included) by time;
 * - `POST /scheduled_messages` (`type`, `to`, `topic`, `content`, `scheduled_delivery_timestamp`,
 *   `read_by_sender`) → `{scheduled_message_id}`;
 * - `PATCH /scheduled_messages/{scheduled_message_id}`: any of `type`, `to`, `topic`, `content`,
 *   `scheduled_delivery_timestamp`;
 * - `DELETE /scheduled_messages/{scheduled_message_id}`.
 * `type` is one of `direct`, `private`, `stream`, `channel` ("Invalid type"). The rules and their
 * errors are in `realm/handlers/scheduled-messages.ts`; delivery in `realm/scheduled-delivery-job.ts`.
 */
import { Errors } from '../errors.js';
import { scheduledMessagesForUser } from '../domain/scheduled-messages.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Wire `type` → stored type (Zulip maps `direct`→`private`, `channel`→`stream`). */
const RECIPIENT_TYPES: Readonly<Record<string, 'stream' | 'private'>> = { stream: 'stream', channel: 'stream', private: 'private', direct: 'private' };

/** `GET /scheduled_messages` (Zulip's `fetch_scheduled_messages`). */
export const getScheduledMessages = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {},
  handler: ({ realm, user }) => ({ scheduled_messages: scheduledMessagesForUser(realm.state, user.id) }),
});

/** `POST /scheduled_messages` (Zulip's `create_scheduled_message_backend`). */
export const createScheduledMessage = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {
    type: P.string({ required: true }),
    to: P.string({ required: true }),
    topic: P.string({ aliases: ['subject'] }),
    content: P.string({ required: true }),
    scheduled_delivery_timestamp: P.int({ required: true }),
    read_by_sender: P.bool(),
  },
  handler: async ({ realm, user, params, clientName }) => {
    const messageType = RECIPIENT_TYPES[params.type];
    if (messageType === undefined) return Errors.invalidType();
    return runCommand(realm, {
      type: 'create_scheduled_message', senderId: user.id, messageType, to: params.to, content: params.content,
      deliverAt: params.scheduled_delivery_timestamp, client: clientName,
      ...(params.topic !== undefined && { topic: params.topic }),
      ...(params.read_by_sender !== undefined && { readBySender: params.read_by_sender }),
    }, (reply) => ({ scheduled_message_id: reply.scheduled_message_id }));
  },
});

/** `PATCH /scheduled_messages/{scheduled_message_id}` (Zulip's `update_scheduled_message_backend`). */
export const updateScheduledMessage = defineEndpoint({
  auth: 'user',
  pathParams: { scheduled_message_id: 'int' },
  dialect: 'typed',
  params: {
    type: P.string(),
    to: P.string(),
    topic: P.string({ aliases: ['subject'] }),
    content: P.string(),
    scheduled_delivery_timestamp: P.int(),
  },
  handler: async ({ realm, user, params, path, clientName }) => {
    let messageType: 'stream' | 'private' | undefined;
    if (params.type !== undefined) {
      messageType = RECIPIENT_TYPES[params.type];
      if (messageType === undefined) return Errors.invalidType();
    }
    return runCommand(realm, {
      type: 'edit_scheduled_message', senderId: user.id, scheduledMessageId: path.scheduled_message_id, client: clientName,
      ...(messageType !== undefined && { messageType }),
      ...(params.to !== undefined && { to: params.to }),
      ...(params.topic !== undefined && { topic: params.topic }),
      ...(params.content !== undefined && { content: params.content }),
      ...(params.scheduled_delivery_timestamp !== undefined && { deliverAt: params.scheduled_delivery_timestamp }),
    });
  },
});

/** `DELETE /scheduled_messages/{scheduled_message_id}` (Zulip's `delete_scheduled_messages`). */
export const deleteScheduledMessage = defineEndpoint({
  auth: 'user',
  pathParams: { scheduled_message_id: 'int' },
  dialect: 'typed',
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'delete_scheduled_message', senderId: user.id, scheduledMessageId: path.scheduled_message_id }),
});
