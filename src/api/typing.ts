/**
 * `POST /typing` (Zulip's typing notifications): `op` start|stop; `type` direct (`private`) with
 * `to` = JSON list of user ids, or stream (`channel`) with `stream_id` and `topic`.
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

const TYPES: Record<string, 'direct' | 'stream'> = { direct: 'direct', private: 'direct', stream: 'stream', channel: 'stream' };

/**
 * `POST /typing`: a typing start/stop notification (Zulip's zerver/views/typing.py
 * `send_notification_backend`).
 */
export const setTypingStatus = defineEndpoint({
  auth: 'user',
  params: {
    type: P.string({ default: 'direct' }),
    op: P.string({ required: true }),
    to: P.json(Type.Array(Type.Integer())),
    stream_id: P.int(),
    topic: P.string(),
  },
  handler: async ({ realm, user, params }) => {
    const messageType = TYPES[params.type];
    if (messageType === undefined) return Errors.badRequest('Invalid type');
    if (params.op !== 'start' && params.op !== 'stop') return Errors.badRequest('Invalid op');
    return runCommand(realm, {
      type: 'typing',
      senderId: user.id,
      op: params.op,
      messageType,
      ...(params.to !== undefined && { to: params.to }),
      ...(params.stream_id !== undefined && { streamId: params.stream_id }),
      ...(params.topic !== undefined && { topic: params.topic }),
    });
  },
});
