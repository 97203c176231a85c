/**
 * Avatar endpoints (https://zulip.com/api/update-settings... Zulip's zerver/views/user_settings.py
 * `set_avatar_backend`, `delete_avatar_backend`):
 * - `POST /users/me/avatar` (multipart, exactly one image): stores 100 px and 500 px PNGs and
 *   answers `{avatar_url}` (rules and storage in `realm/media.ts`);
 * - `DELETE /users/me/avatar`: back to gravatar, answers `{avatar_url}` (the gravatar URL).
 */
import { uploadAvatar } from '../realm/media.js';
import { defineEndpoint } from './define-endpoint.js';
import { runCommand } from './run-command.js';

/** `POST /users/me/avatar`. */
export const setAvatar = defineEndpoint({
  auth: 'user',
  params: {},
  handler: async ({ realm, user, files }) => {
    const result = await uploadAvatar(realm, user.id, files);
    return result.ok ? { avatar_url: result.value.avatar_url } : result.error;
  },
});

/** `DELETE /users/me/avatar`. */
export const deleteAvatar = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => runCommand(realm, { type: 'change_avatar', actorId: user.id, upload: null }, (reply) => ({ avatar_url: reply.avatar_url })),
});
