/**
 * Zulip's bot object (`realm_bots` in https://zulip.com/api/register-queue, the `realm_bot` event's
 * `add` and `update`; Zulip's zerver/lib/events.py / zerver/actions/create_user.py
 * `created_bot_event`, zerver/lib/bot_lib.py `get_service_dicts_for_bot`): the one serializer
 * of a bot, typed by `BotSchema`.
 */
import type { Static } from 'typebox';
import type { RealmState, User } from '../../domain/realm-state.js';
import { apiEmail, avatarUrl } from '../../domain/users.js';
import { botSettings } from '../../domain/bots.js';
import type { BotSchema } from '../register/schemas.js';

/** A bot object: `BotSchema`'s static type. */
export type BotObject = Static<typeof BotSchema>;

/** A channel's name, or null when unset or gone (Zulip's `get_stream_name`). */
export function streamNameOrNull(state: RealmState, streamId: number | undefined): string | null {
  return streamId === undefined ? null : (state.streams.get(streamId)?.name ?? null);
}

/**
 * `services` (`get_service_dicts_for_bot`): `[{base_url, interface, token}]` for an outgoing webhook
 * bot, else `[]` (parley has no embedded bots).
 */
export function botServicesToWire(bot: User): Array<{ base_url: string; interface: number; token: string }> {
  const service = botSettings(bot).service;
  return service === undefined ? [] : [{ base_url: service.baseUrl, interface: service.interface, token: service.token }];
}

/** The bot object of `bot` (the same for administrators and its owner). */
export function botToWire(state: RealmState, bot: User): BotObject {
  const settings = botSettings(bot);
  return {
    email: apiEmail(bot, state.host),
    user_id: bot.id,
    full_name: bot.fullName,
    bot_type: bot.botType,
    is_active: bot.isActive,
    api_key: bot.apiKey,
    default_sending_stream: streamNameOrNull(state, settings.defaultSendingStreamId),
    default_events_register_stream: streamNameOrNull(state, settings.defaultEventsRegisterStreamId),
    default_all_public_streams: settings.defaultAllPublicStreams ?? false,
    owner_id: bot.botOwnerId,
    avatar_url: avatarUrl(bot, false)!,
    services: botServicesToWire(bot),
  };
}
