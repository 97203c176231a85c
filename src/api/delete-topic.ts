/**
 * `POST /streams/{stream_id}/delete_topic` (https://zulip.com/api/delete-topic; Zulip's
 * zerver/views/streams.py `delete_in_topic`): parameter `topic_name` (required). Reply
 * `{complete}`; repeat the request while it is false. Rules, batching and events live in
 * `realm/handlers/delete-topic.ts`.
 */
import { requireRealmAdmin } from '../domain/access.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `POST /streams/{stream_id}/delete_topic`. */
export const deleteTopic = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: { topic_name: P.string({ required: true }) },
  handler: async ({ realm, user, path, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(realm, { type: 'delete_topic', actorId: user.id, streamId: path.stream_id, topic: params.topic_name }, (reply) => ({ complete: reply.complete }));
  },
});
