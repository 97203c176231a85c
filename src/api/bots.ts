/**
 * `POST /bots` (Zulip's zerver/views/users.py `add_bot_backend`; `full_name`, `short_name`,
 * `bot_type` default 1): generic bots with API keys, answering `{user_id, api_key, avatar_url,
 * default_sending_stream, default_events_register_stream, default_all_public_streams}`. Other bot
 * types, services, default channels and avatar uploads are not supported. Rules and events live in
 * `realm/handlers/user-admin.ts`.
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `POST /bots`: creates a generic bot owned by the caller. */
export const createBot = defineEndpoint({
  auth: 'user',
  params: { full_name: P.string({ required: true }), short_name: P.string({ required: true }), bot_type: P.int({ default: 1 }) },
  handler: async ({ realm, user, params }) => {
    return runCommand(
      realm,
      { type: 'add_bot', actorId: user.id, fullName: params.full_name, shortName: params.short_name, botType: params.bot_type },
      ({ userId, apiKey, avatarUrl }) => ({
        user_id: userId,
        api_key: apiKey,
        avatar_url: avatarUrl,
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
      }),
    );
  },
});
