/**
 * Bot settings (https://zulip.com/api/update-bot, Zulip's zerver/actions/bots.py
 * `do_change_bot_owner`, `do_change_default_sending_stream`,
 * `do_change_default_events_register_stream`, `do_change_default_all_public_streams`,
 * `do_update_outgoing_webhook_service`; zerver/actions/users.py `do_regenerate_api_key`): one
 * versioned record, `bot_updated`, carries every change of a bot's own attributes that is not a
 * plain account attribute (`user_updated` in `user-admin.ts` covers name, role and activation).
 * Absent keys are unchanged. The snapshot stores `User` objects whole, so the new optional
 * `User.bot` fields need no snapshot code.
 */
import type { RealmState, User } from './realm-state.js';

/** Zulip's `Service.GENERIC` / `Service.SLACK` outgoing webhook interfaces. */
export const ServiceInterface = { generic: 1, slack: 2 } as const;

/** An outgoing webhook bot's service (Zulip's `Service` row; one per bot in parley). */
export interface BotService {
  /** Zulip's `Service.name`: the bot's short name unless given. */
  name: string;
  /** The URL the bot's messages are POSTed to (`base_url`, `service_payload_url`). */
  baseUrl: string;
  /** {@link ServiceInterface}. */
  interface: number;
  /** Sent in every request so the service can authenticate parley (32 characters). */
  token: string;
}

/** The bot-only attributes kept on a bot's `User` (`User.bot`). */
export interface BotSettings {
  /** Channel id, or absent (Zulip's `default_sending_stream`). */
  defaultSendingStreamId?: number;
  /** Channel id, or absent (Zulip's `default_events_register_stream`). */
  defaultEventsRegisterStreamId?: number;
  defaultAllPublicStreams?: boolean;
  /** Outgoing webhook bots only. */
  service?: BotService;
}

/** A bot's settings changed (owner, defaults, service or API key). */
export interface BotUpdated {
  type: 'bot_updated';
  v: 1;
  userId: number;
  ownerId?: number;
  /** Null clears the setting. */
  defaultSendingStreamId?: number | null;
  defaultEventsRegisterStreamId?: number | null;
  defaultAllPublicStreams?: boolean;
  service?: BotService;
  /** A new API key, already checked unique in the realm. */
  apiKey?: string;
}

export type BotRecord = BotUpdated;

/** The bot-only settings of `user` ({} for a bot with none, or a human). */
export function botSettings(user: User): BotSettings {
  return user.bot ?? {};
}

/** Applies a `bot_updated` record, keeping the API-key index in step. */
export function evolveBots(state: RealmState, r: BotRecord): void {
  const user = state.users.get(r.userId);
  if (user === undefined) throw new Error(`bot_updated: unknown user ${r.userId}`);
  const bot: BotSettings = { ...user.bot };
  if (r.ownerId !== undefined) user.botOwnerId = r.ownerId;
  if (r.defaultSendingStreamId === null) delete bot.defaultSendingStreamId;
  else if (r.defaultSendingStreamId !== undefined) bot.defaultSendingStreamId = r.defaultSendingStreamId;
  if (r.defaultEventsRegisterStreamId === null) delete bot.defaultEventsRegisterStreamId;
  else if (r.defaultEventsRegisterStreamId !== undefined) bot.defaultEventsRegisterStreamId = r.defaultEventsRegisterStreamId;
  if (r.defaultAllPublicStreams !== undefined) bot.defaultAllPublicStreams = r.defaultAllPublicStreams;
  if (r.service !== undefined) bot.service = { ...r.service };
  if (r.apiKey !== undefined) {
    state.usersByApiKey.delete(user.apiKey);
    user.apiKey = r.apiKey;
    state.usersByApiKey.set(r.apiKey, user.id);
  }
  if (Object.keys(bot).length === 0) delete user.bot;
  else user.bot = bot;
}
