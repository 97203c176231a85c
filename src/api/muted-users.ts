/**
 * Muted users (https://zulip.com/api/mute-user, https://zulip.com/api/unmute-user; Zulip's
 * zerver/views/muted_users.py): `POST` and `DELETE /users/me/muted_users/{muted_user_id}`. The
 * rules, errors and events are in `realm/handlers/muted-users.ts`; the list is in `/register`
 * (`muted_users`).
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';

/** `POST /users/me/muted_users/{muted_user_id}` (Zulip's `mute_user`). */
export const muteUser = defineEndpoint({
  auth: 'user',
  pathParams: { muted_user_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'mute_user', actorId: user.id, mutedUserId: path.muted_user_id }),
});

/** `DELETE /users/me/muted_users/{muted_user_id}` (Zulip's `unmute_user`). */
export const unmuteUser = defineEndpoint({
  auth: 'user',
  pathParams: { muted_user_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'unmute_user', actorId: user.id, mutedUserId: path.muted_user_id }),
});
