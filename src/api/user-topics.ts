/**
 * Topic visibility endpoints (https://zulip.com/api/update-user-topic; Zulip's
 * zerver/views/user_topics.py):
 * - `POST /user_topics`: `stream_id` (JSON int), `topic` (≤ 60 characters), `visibility_policy`
 *   (JSON int: 0 inherit, 1 muted, 2 unmuted, 3 followed);
 * - `PATCH /users/me/subscriptions/muted_topics` (deprecated since FL 170): exactly one of
 *   `stream_id` / `stream` (name), `topic`, `op` = `add` (mute) | `remove` (back to inherit).
 * Both answer `{}`; setting the current value again is a silent success without events.
 * Parameter checks run in Zulip's declaration order; the rest is `set_user_topic`.
 */
import { Errors, type ZulipError } from '../errors.js';
import { codePointLength, MAX_TOPIC_LENGTH } from '../domain/messages.js';
import { isVisibilityPolicy, VisibilityPolicy } from '../domain/user-topics.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `topic is too long (limit: 60 characters)` when over Zulip's `MAX_TOPIC_NAME_LENGTH`. */
function checkTopicLength(topic: string): ZulipError | null {
  return codePointLength(topic) > MAX_TOPIC_LENGTH
    ? Errors.badRequest(`topic is too long (limit: ${MAX_TOPIC_LENGTH} characters)`)
    : null;
}


/**
 * `POST /user_topics`: sets the caller's visibility policy of a topic (Zulip's
 * zerver/views/user_topics.py `update_user_topic`).
 */
export const updateUserTopic = defineEndpoint({
  auth: 'user',
  params: {
    stream_id: P.int({ required: true }),
    topic: P.string({ required: true }),
    visibility_policy: P.int({ required: true }),
  },
  handler: async ({ realm, user, params }) => {
    const tooLong = checkTopicLength(params.topic);
    if (tooLong) return tooLong;
    const visibilityPolicy = params.visibility_policy;
    if (!isVisibilityPolicy(visibilityPolicy)) return Errors.badRequest('Invalid visibility_policy');
    return runCommand(realm, {
      type: 'set_user_topic',
      userId: user.id,
      stream: { id: params.stream_id },
      topic: params.topic,
      visibilityPolicy,
    });
  },
});

/**
 * `PATCH /users/me/subscriptions/muted_topics`: the deprecated mute/unmute form (Zulip's
 * zerver/views/user_topics.py `update_muted_topic`).
 */
export const muteTopic = defineEndpoint({
  auth: 'user',
  params: {
    op: P.string({ required: true }),
    topic: P.string({ required: true }),
    stream: P.string(),
    stream_id: P.int(),
  },
  handler: async ({ realm, user, params }) => {
    if (params.op !== 'add' && params.op !== 'remove') return Errors.badRequest('Invalid op');
    const tooLong = checkTopicLength(params.topic);
    if (tooLong) return tooLong;
    if (params.stream !== undefined && params.stream_id !== undefined) {
      return Errors.badRequest("Please choose one: 'stream' or 'stream_id'.");
    }
    const stream = params.stream_id !== undefined ? { id: params.stream_id } : params.stream !== undefined ? { name: params.stream } : null;
    if (stream === null) return Errors.badRequest("Please supply 'stream'.");
    return runCommand(realm, {
      type: 'set_user_topic',
      userId: user.id,
      stream,
      topic: params.topic,
      visibilityPolicy: params.op === 'add' ? VisibilityPolicy.muted : VisibilityPolicy.inherit,
      legacy: true,
    });
  },
});
