/**
 * `POST /default_streams` and `DELETE /default_streams` (https://zulip.com/api/add-default-stream,
 * https://zulip.com/api/remove-default-stream; Zulip's zerver/views/streams.py
 * `add_default_stream` / `remove_default_stream`): parameter `stream_id` (JSON integer, required).
 * Zulip has no `GET /default_streams`: clients read `realm_default_streams` from `POST /register`
 * and `is_default` from `GET /streams`. Rules and events live in `realm/handlers/default-streams.ts`.
 */
import { requireRealmAdmin } from '../domain/access.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `POST /default_streams`. */
export const addDefaultStream = defineEndpoint({
  auth: 'user',
  params: { stream_id: P.int({ required: true }) },
  handler: async ({ realm, user, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(realm, { type: 'add_default_stream', actorId: user.id, streamId: params.stream_id });
  },
});

/** `DELETE /default_streams`. */
export const removeDefaultStream = defineEndpoint({
  auth: 'user',
  params: { stream_id: P.int({ required: true }) },
  handler: async ({ realm, user, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(realm, { type: 'remove_default_stream', actorId: user.id, streamId: params.stream_id });
  },
});
