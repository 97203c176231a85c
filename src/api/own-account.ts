/**
 * The caller's own account (Zulip's zerver/views/users.py `deactivate_user_own_backend`,
 * zerver/views/user_settings.py `regenerate_api_key`):
 * - `DELETE /users/me` (https://zulip.com/api/deactivate-own-user): deactivates the caller;
 * - `POST /users/me/api_key/regenerate` → `{api_key}`: a new key, the old one refused at once.
 * Rules: `realm/handlers/own-account.ts`.
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';

/** `DELETE /users/me`. */
export const deactivateOwnUser = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => runCommand(realm, { type: 'deactivate_own_account', actorId: user.id }),
});

/** `POST /users/me/api_key/regenerate`. */
export const regenerateApiKey = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => runCommand(realm, { type: 'regenerate_api_key', actorId: user.id }, (r) => r),
});
