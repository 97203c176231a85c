/**
 * Bots (Zulip's zerver/views/users.py): `POST /bots` (`add_bot_backend`, https://zulip.com/api/create-bot
 * is undocumented; parameters `full_name`, `short_name`, `bot_type` default 1, `payload_url`,
 * `interface_type`, `service_name`, `default_sending_stream`, `default_events_register_stream`,
 * `default_all_public_streams`), `GET /bots` (`get_bots_backend`), `PATCH /bots/{bot_id}`
 * (`patch_bot_backend`, https://zulip.com/api/update-bot), `DELETE /bots/{bot_id}`
 * (`deactivate_bot_backend`) and `POST /bots/{bot_id}/api_key/regenerate`
 * (`regenerate_bot_api_key`). Rules and events live in `realm/handlers/bots.ts` and
 * `realm/handlers/user-create.ts`. Embedded bots (type 4), `config_data` and avatar uploads are
 * not supported.
 */
import { Errors } from '../errors.js';
import { botSettings } from '../domain/bots.js';
import { avatarUrl } from '../domain/users.js';
import { streamNameOrNull } from '../events/wire/bots.js';
import { runCommand } from './run-command.js';
import { durableRead } from './durable-read.js';
import { accessBotById } from '../domain/access.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** A URL parameter Zulip declares `Json[str]`: JSON-encoded, or (leniently) the bare string. */
function urlParam(value: unknown, name: string): string {
  if (typeof value !== 'string') throw Errors.notAUrl(name);
  return value;
}

/** `POST /bots`: creates a bot owned by the caller. */
export const createBot = defineEndpoint({
  auth: 'user',
  params: {
    full_name: P.string({ required: true }),
    short_name: P.string({ required: true }),
    bot_type: P.int({ default: 1 }),
    payload_url: P.jsonOrString(),
    interface_type: P.int(),
    service_name: P.string(),
    default_sending_stream: P.string(),
    default_events_register_stream: P.string(),
    default_all_public_streams: P.bool(),
  },
  handler: async ({ realm, user, params }) => {
    return runCommand(
      realm,
      {
        type: 'add_bot', actorId: user.id, fullName: params.full_name, shortName: params.short_name, botType: params.bot_type,
        ...(params.payload_url !== undefined && { payloadUrl: urlParam(params.payload_url, 'payload_url') }),
        ...(params.interface_type !== undefined && { interfaceType: params.interface_type }),
        ...(params.service_name !== undefined && { serviceName: params.service_name }),
        ...(params.default_sending_stream !== undefined && { defaultSendingStream: params.default_sending_stream }),
        ...(params.default_events_register_stream !== undefined && { defaultEventsRegisterStream: params.default_events_register_stream }),
        ...(params.default_all_public_streams !== undefined && { defaultAllPublicStreams: params.default_all_public_streams }),
      },
      (reply) => ({
        user_id: reply.userId,
        api_key: reply.apiKey,
        avatar_url: reply.avatarUrl,
        default_sending_stream: reply.defaultSendingStream,
        default_events_register_stream: reply.defaultEventsRegisterStream,
        default_all_public_streams: reply.defaultAllPublicStreams,
      }),
    );
  },
});

/**
 * `GET /bots` (Zulip's `get_bots_backend`): the caller's own active bots, oldest first —
 * administrators too see only their own here (all bots come through `realm_bots`). Each is
 * `{username, full_name, api_key, avatar_url, default_sending_stream,
 * default_events_register_stream, default_all_public_streams}`.
 */
export const getBots = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => {
    const state = realm.state;
    const bots = [...state.users.values()]
      .filter((bot) => bot.isBot && bot.isActive && bot.botOwnerId === user.id)
      .sort((a, b) => a.dateJoined - b.dateJoined || a.id - b.id)
      .map((bot) => {
        const settings = botSettings(bot);
        return {
          username: bot.email,
          full_name: bot.fullName,
          api_key: bot.apiKey,
          avatar_url: avatarUrl(bot, false),
          default_sending_stream: streamNameOrNull(state, settings.defaultSendingStreamId),
          default_events_register_stream: streamNameOrNull(state, settings.defaultEventsRegisterStreamId),
          default_all_public_streams: settings.defaultAllPublicStreams ?? false,
        };
      });
    return { bots };
  },
});

/** `PATCH /bots/{bot_id}` (https://zulip.com/api/update-bot). */
export const updateBot = defineEndpoint({
  auth: 'user',
  pathParams: { bot_id: 'int' },
  params: {
    full_name: P.string(),
    role: P.int(),
    bot_owner_id: P.int(),
    default_sending_stream: P.string(),
    default_events_register_stream: P.string(),
    default_all_public_streams: P.bool(),
    service_payload_url: P.jsonOrString(),
    service_interface: P.int(),
  },
  handler: ({ realm, user, params, path }) =>
    runCommand(
      realm,
      {
        type: 'update_bot',
        actorId: user.id,
        botId: path.bot_id,
        ...(params.full_name !== undefined && { fullName: params.full_name }),
        ...(params.role !== undefined && { role: params.role }),
        ...(params.bot_owner_id !== undefined && { botOwnerId: params.bot_owner_id }),
        ...(params.default_sending_stream !== undefined && { defaultSendingStream: params.default_sending_stream }),
        ...(params.default_events_register_stream !== undefined && { defaultEventsRegisterStream: params.default_events_register_stream }),
        ...(params.default_all_public_streams !== undefined && { defaultAllPublicStreams: params.default_all_public_streams }),
        ...(params.service_payload_url !== undefined && { servicePayloadUrl: urlParam(params.service_payload_url, 'service_payload_url') }),
        ...(params.service_interface !== undefined && { serviceInterface: params.service_interface }),
      },
      (reply) => ({ ...reply }),
    ),
});

/** `DELETE /bots/{bot_id}` (https://zulip.com/api/deactivate-bot): deactivates the bot. */
export const deactivateBot = defineEndpoint({
  auth: 'user',
  pathParams: { bot_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'deactivate_bot', actorId: user.id, botId: path.bot_id }),
});

/** `POST /bots/{bot_id}/api_key/regenerate`: a new API key for the bot, answered as `{api_key}`. */
export const regenerateBotApiKey = defineEndpoint({
  auth: 'user',
  pathParams: { bot_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) =>
    runCommand(realm, { type: 'regenerate_bot_api_key', actorId: user.id, botId: path.bot_id }, ({ apiKey }) => ({ api_key: apiKey })),
});

/**
 * `GET /bots/{bot_id}/api_key` (https://zulip.com/api/get-bot-api-key): the bot's current API key,
 * `{api_key}`, for its owner or an administrator (`accessBotById`: "No such bot", "Insufficient
 * permission").
 */
export const getBotApiKey = defineEndpoint({
  auth: 'user',
  pathParams: { bot_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) =>
    durableRead(realm, () => {
      const bot = accessBotById(realm.state, user, path.bot_id);
      return bot.ok ? { api_key: bot.value.apiKey } : bot.error;
    }),
});
