/**
 * Message endpoints: `POST /messages` (https://zulip.com/api/send-message), `GET
 * /messages/{message_id}` (https://zulip.com/api/get-message),
 * `POST /messages/render` (https://zulip.com/api/render-message). Sends go through the realm actor;
 * reads are synchronous
 * queries on the realm state plus a memory-mapped body read.
 */
import { Errors } from '../errors.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { canAccessMessage } from '../domain/access.js';
import { messageToWire } from '../domain/messages.js';
import { renderMessageContent } from '../domain/message-render.js';
import { realmUrl } from './server-settings.js';

/** Wire `type` → internal message type (`channel`/`direct` are the FL 248/174 names). */
const MESSAGE_TYPES: Record<string, 'stream' | 'private'> = {
  stream: 'stream',
  channel: 'stream',
  private: 'private',
  direct: 'private',
};

export const messageEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/messages',
    auth: 'user',
    params: {
      type: P.string({ required: true }),
      to: P.jsonOrString(),
      topic: P.string({ aliases: ['subject'] }),
      content: P.string({ required: true }),
      queue_id: P.string(),
      local_id: P.string(),
      read_by_sender: P.bool(),
    },
    handler: async ({ realm, user, params, clientName, host }) => {
      const messageType = MESSAGE_TYPES[params.type];
      if (messageType === undefined) return Errors.invalidType();
      if (params.queue_id !== undefined && params.local_id === undefined) return Errors.localIdRequired();
      return runCommand(realm!, {
        type: 'send_message',
        senderId: user!.id,
        messageType,
        to: params.to,
        topic: params.topic,
        content: params.content,
        client: clientName,
        realmUrl: realmUrl(host),
        ...(params.read_by_sender !== undefined && { readBySender: params.read_by_sender }),
        ...(params.queue_id !== undefined && { queueId: params.queue_id }),
        ...(params.local_id !== undefined && { localId: params.local_id }),
      }, (reply) => ({ ...reply }));
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/messages/{message_id}',
    auth: 'user',
    dialect: 'typed',
    params: {
      apply_markdown: P.bool({ default: true }),
      allow_empty_topic_name: P.bool({ default: false }),
    },
    handler: ({ realm, user, params, path }) => {
      const id = path.message_id!;
      const state = realm!.state;
      if (!canAccessMessage(state, user!, id)) return Errors.invalidMessage();
      const body = realm!.messageBody(id);
      if (body === undefined) return Errors.invalidMessage();
      const message = messageToWire(state, user!, id, body, {
        applyMarkdown: params.apply_markdown,
        clientGravatar: false,
        allowEmptyTopicName: params.allow_empty_topic_name,
      });
      return { raw_content: body.content, message };
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/messages/render',
    auth: 'user',
    params: { content: P.string({ required: true }) },
    handler: ({ realm, user, params, host }) => ({
      rendered: renderMessageContent(realm!.state, params.content, { senderId: user!.id, nowSeconds: Date.now() / 1000, realmUrl: realmUrl(host) }).rendered,
    }),
  }),
];
