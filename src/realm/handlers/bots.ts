/**
 * Bot administration (https://zulip.com/api/update-bot, https://zulip.com/api/deactivate-bot,
 * Zulip's zerver/views/users.py `patch_bot_backend`, `deactivate_bot_backend`,
 * `regenerate_bot_api_key`; access through `access_bot_by_id`, here `accessBotById`).
 * Bot creation is `add_bot` in `user-create.ts`.
 *
 * `update_bot` applies the parameters in Zulip's order — full name, role, owner, default sending
 * channel, default register channel, `default_all_public_streams`, outgoing webhook service — and
 * validates all of them before anything is recorded, so a failed request changes nothing.
 * Events (`realm_bot` to the bot's owner and the administrators, Zulip's `bot_owner_user_ids`):
 * - full name: `realm_user` update `{user_id, full_name}` to everyone, `realm_bot` update;
 * - role: as `PATCH /users/{id}` (`user-admin.ts`);
 * - owner (`do_change_bot_owner`): `realm_bot` delete to a non-administrator previous owner,
 *   `realm_bot` add to a non-administrator new owner, `realm_bot` update `{owner_id}` to the
 *   administrators, `realm_user` update `{bot_owner_id}` to everyone;
 * - defaults: `realm_bot` update `{default_sending_stream}` / `{default_events_register_stream}`
 *   (channel names, null when cleared) / `{default_all_public_streams}`;
 * - service: `realm_bot` update `{services: [{base_url, interface, token}]}`.
 * parley records and announces a change only when the value differs (Zulip announces unchanged
 * defaults too). Not supported: `config_data` (embedded bots) and avatar uploads.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { botSettings, type BotService, type BotUpdated, ServiceInterface } from '../../domain/bots.js';
import { checkFullName, avatarUrl } from '../../domain/users.js';
import { accessBotById, accessStreamByName, isRealmAdmin } from '../../domain/access.js';
import type { RealmRecord, UserCreated } from '../../domain/records.js';
import type { RealmEvent } from '../../events/realm-event.js';
import { botToWire, streamNameOrNull } from '../../events/wire/bots.js';
import type { Handler } from '../decision.js';
import { API_KEY_LENGTH } from './users.js';
import { activeUserIds, botWatchers, personEvent } from './user-events.js';
import { activationDecision, updateUser } from './user-admin.js';

/** `PATCH /bots/{bot_id}`: absent fields are unchanged; '' clears a default channel. */
export interface UpdateBot {
  type: 'update_bot';
  actorId: number;
  botId: number;
  fullName?: string;
  role?: number;
  botOwnerId?: number;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
  servicePayloadUrl?: string;
  /** {@link ServiceInterface}; used with `servicePayloadUrl` (default generic). */
  serviceInterface?: number;
}

/** `DELETE /bots/{bot_id}`. */
export interface DeactivateBot {
  type: 'deactivate_bot';
  actorId: number;
  botId: number;
}

/** `POST /bots/{bot_id}/api_key/regenerate`. */
export interface RegenerateBotApiKey {
  type: 'regenerate_bot_api_key';
  actorId: number;
  botId: number;
}

export type BotCommand = UpdateBot | DeactivateBot | RegenerateBotApiKey;

/** `PATCH /bots/{bot_id}`'s answer fields (Zulip's `patch_bot_backend` json_result), after the change. */
export interface UpdateBotReply {
  full_name: string;
  avatar_url: string;
  service_interface: number;
  service_payload_url: string | null;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  /** The owner's email; absent for a bot without owner. */
  bot_owner?: string;
}

/** Replies of the commands above. */
export interface BotReplies {
  update_bot: UpdateBotReply;
  deactivate_bot: Record<string, never>;
  regenerate_bot_api_key: { apiKey: string };
}

const bad = Errors.badRequest;

/** Whether `raw` is an absolute http(s) URL (Zulip's `check_url`, Django's URLValidator, simplified). */
export function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A default channel parameter: '' clears it (null), else the channel `actor` may access, or its error. */
function defaultChannel(state: RealmState, actor: User, name: string): Result<number | null> {
  if (name === '') return ok(null);
  const access = accessStreamByName(state, actor, name);
  return access.ok ? ok(access.value.stream.id) : access;
}

/** Zulip's `check_bot_name_available`: no other active account carries the name. */
export function botNameTaken(state: RealmState, name: string, except?: number): boolean {
  const lower = name.toLowerCase();
  for (const u of state.users.values()) if (u.isActive && u.id !== except && u.fullName.toLowerCase() === lower) return true;
  return false;
}

/** The bot's watchers as one `realm_bot` update event. */
function botUpdate(state: RealmState, bot: User, change: Extract<RealmEvent['payload'], { type: 'realm_bot'; op: 'update' }>['bot']): RealmEvent {
  return { userIds: botWatchers(state, bot), payload: { type: 'realm_bot', op: 'update', bot: change } };
}

export const updateBot: Handler<UpdateBot, UpdateBotReply> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined) return fail(Errors.noSuchBot());
  const access = accessBotById(state, actor, cmd.botId);
  if (!access.ok) return access;
  const bot = access.value;
  const settings = botSettings(bot);
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  const update: BotUpdated = { type: 'bot_updated', v: 1, userId: bot.id };
  let fullName = bot.fullName;

  if (cmd.fullName !== undefined) {
    const name = checkFullName(cmd.fullName);
    if (!name.ok) return fail(bad(name.msg));
    if (name.name !== bot.fullName) {
      if (botNameTaken(state, name.name, bot.id)) return fail(bad('Name is already in use!'));
      fullName = name.name;
      records.push({ type: 'user_updated', v: 1, userId: bot.id, fullName });
      events.push(personEvent(state, { user_id: bot.id, full_name: fullName }));
      events.push(botUpdate(state, bot, { user_id: bot.id, full_name: fullName }));
    }
  }

  if (cmd.role !== undefined) {
    // Zulip duplicates update_user_backend's role rules here; parley runs them.
    const role = updateUser(state, { type: 'update_user', actorId: actor.id, userId: bot.id, role: cmd.role }, ctx);
    if (!role.ok) return role;
    records.push(...role.value.records);
    events.push(...role.value.events);
  }

  let ownerId = bot.botOwnerId;
  if (cmd.botOwnerId !== undefined) {
    const owner = state.users.get(cmd.botOwnerId);
    if (owner === undefined) return fail(Errors.ownerNoSuchUser());
    if (!owner.isActive) return fail(Errors.ownerDeactivated());
    if (owner.isBot) return fail(Errors.ownerIsBot());
    if (owner.id !== bot.botOwnerId) {
      const previous = bot.botOwnerId === null ? undefined : state.users.get(bot.botOwnerId);
      ownerId = owner.id;
      update.ownerId = owner.id;
      const moved = { ...bot, botOwnerId: owner.id };
      const admins = botWatchers(state, moved).filter((id) => id !== owner.id || isRealmAdmin(owner));
      if (previous !== undefined && previous.isActive && !isRealmAdmin(previous)) {
        events.push({ userIds: [previous.id], payload: { type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } } });
      }
      if (!isRealmAdmin(owner)) events.push({ userIds: [owner.id], payload: { type: 'realm_bot', op: 'add', bot: botToWire(state, moved) } });
      events.push({ userIds: admins, payload: { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, owner_id: owner.id } } });
      events.push(personEvent(state, { user_id: bot.id, bot_owner_id: owner.id }, activeUserIds(state)));
    }
  }

  let sendingId = settings.defaultSendingStreamId ?? null;
  if (cmd.defaultSendingStream !== undefined) {
    const channel = defaultChannel(state, actor, cmd.defaultSendingStream);
    if (!channel.ok) return channel;
    if (channel.value !== sendingId) {
      sendingId = channel.value;
      update.defaultSendingStreamId = channel.value;
      events.push(botUpdate(state, bot, { user_id: bot.id, default_sending_stream: streamNameOrNull(state, channel.value ?? undefined) }));
    }
  }

  let registerId = settings.defaultEventsRegisterStreamId ?? null;
  if (cmd.defaultEventsRegisterStream !== undefined) {
    const channel = defaultChannel(state, actor, cmd.defaultEventsRegisterStream);
    if (!channel.ok) return channel;
    if (channel.value !== registerId) {
      registerId = channel.value;
      update.defaultEventsRegisterStreamId = channel.value;
      events.push(botUpdate(state, bot, { user_id: bot.id, default_events_register_stream: streamNameOrNull(state, channel.value ?? undefined) }));
    }
  }

  let allPublic = settings.defaultAllPublicStreams ?? false;
  if (cmd.defaultAllPublicStreams !== undefined && cmd.defaultAllPublicStreams !== allPublic) {
    allPublic = cmd.defaultAllPublicStreams;
    update.defaultAllPublicStreams = allPublic;
    events.push(botUpdate(state, bot, { user_id: bot.id, default_all_public_streams: allPublic }));
  }

  const serviceInterface = cmd.serviceInterface ?? ServiceInterface.generic;
  if (cmd.servicePayloadUrl !== undefined) {
    if (!isHttpUrl(cmd.servicePayloadUrl)) return fail(Errors.notAUrl('service_payload_url'));
    if (serviceInterface !== ServiceInterface.generic && serviceInterface !== ServiceInterface.slack) return fail(Errors.invalidInterfaceType());
    if (settings.service === undefined) return fail(Errors.botHasNoService());
    const service: BotService = { ...settings.service, baseUrl: cmd.servicePayloadUrl, interface: serviceInterface };
    if (service.baseUrl !== settings.service.baseUrl || service.interface !== settings.service.interface) {
      update.service = service;
      events.push(botUpdate(state, bot, { user_id: bot.id, services: [{ base_url: service.baseUrl, interface: service.interface, token: service.token }] }));
    }
  }

  if (Object.keys(update).length > 3) records.push(update);
  const owner = ownerId === null ? undefined : state.users.get(ownerId);
  const reply: UpdateBotReply = {
    full_name: fullName,
    avatar_url: avatarUrl(bot, false)!,
    service_interface: serviceInterface,
    service_payload_url: cmd.servicePayloadUrl ?? null,
    default_sending_stream: streamNameOrNull(state, sendingId ?? undefined),
    default_events_register_stream: streamNameOrNull(state, registerId ?? undefined),
    default_all_public_streams: allPublic,
    ...(owner !== undefined && { bot_owner: owner.email }),
  };
  return ok({ records, events, reply });
};

/** `DELETE /bots/{bot_id}`: deactivates the bot (already deactivated: nothing to do, as Zulip's `do_deactivate_user`). */
export const deactivateBot: Handler<DeactivateBot, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined) return fail(Errors.noSuchBot());
  const access = accessBotById(state, actor, cmd.botId);
  if (!access.ok) return access;
  if (!access.value.isActive) return ok({ records: [], events: [], reply: {} });
  return ok(activationDecision(state, access.value, false));
};

/**
 * `POST /bots/{bot_id}/api_key/regenerate` (Zulip's `do_regenerate_api_key`): a new unique key,
 * `realm_bot` update `{user_id, api_key}` to the owner and administrators.
 */
export const regenerateBotApiKey: Handler<RegenerateBotApiKey, { apiKey: string }> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined) return fail(Errors.noSuchBot());
  const access = accessBotById(state, actor, cmd.botId);
  if (!access.ok) return access;
  const bot = access.value;
  let apiKey = ctx.randomToken(API_KEY_LENGTH);
  while (state.usersByApiKey.has(apiKey)) apiKey = ctx.randomToken(API_KEY_LENGTH);
  return ok({
    records: [{ type: 'bot_updated', v: 1, userId: bot.id, apiKey }],
    events: [botUpdate(state, bot, { user_id: bot.id, api_key: apiKey })],
    reply: { apiKey },
  });
};

/** A new bot's settings record (defaults and service), or null when it has none. For `add_bot`. */
export function newBotSettingsRecord(record: UserCreated, settings: { sendingId: number | null; registerId: number | null; allPublic: boolean; service?: BotService }): BotUpdated | null {
  const update: BotUpdated = { type: 'bot_updated', v: 1, userId: record.id };
  if (settings.sendingId !== null) update.defaultSendingStreamId = settings.sendingId;
  if (settings.registerId !== null) update.defaultEventsRegisterStreamId = settings.registerId;
  if (settings.allPublic) update.defaultAllPublicStreams = true;
  if (settings.service !== undefined) update.service = settings.service;
  return Object.keys(update).length > 3 ? update : null;
}

export { defaultChannel };
