/**
 * `internal_send`: a message from the Notification Bot or Welcome Bot (Zulip's `internal_send_*`).
 * Realms get their system bots at creation (`ensure_system_bots`); a realm created before they
 * existed gets the bot on first use: the decision is then its `user_created` record plus the same
 * command as a follow-up, which finds the bot in place.
 */
import { ok } from '../../errors.js';
import { SYSTEM_BOTS, systemBot, type SystemBotKind } from '../../domain/system-bots.js';
import { Role, type RealmState } from '../../domain/realm-state.js';
import type { UserCreated } from '../../domain/records.js';
import type { CommandReplies } from '../commands.js';
import type { CommandContext, Handler } from '../decision.js';
import { API_KEY_LENGTH } from './users.js';
import { sendMessage } from './messages.js';

/**
 * A message from a system bot (Zulip's `internal_send_stream_message` / `internal_send_private_message`):
 * the realm's Notification Bot or Welcome Bot, created on first use. Skips the sender-side
 * permission checks (`can_send_message_group`, channel access) as Zulip's internal sends do.
 * Never built from client input; handlers issue it as a follow-up (`Decision.followUps`).
 */
export interface InternalSend {
  type: 'internal_send';
  bot: 'notification' | 'welcome';
  /** `stream`: `to` is a channel id and `topic` is required; `private`: `to` lists user ids. */
  messageType: 'stream' | 'private';
  to: number | number[];
  topic?: string;
  content: string;
  /** Marks the message as a resolve/unresolve notice (Zulip's `RESOLVE_TOPIC_NOTIFICATION` type). */
  resolveTopicNotice?: true;
}

/** Create the realm's system bots that do not exist yet (realm creation; see `system-bots.ts`). */
export interface EnsureSystemBots {
  type: 'ensure_system_bots';
}

/** Client name Zulip records for internal sends. */
const INTERNAL_CLIENT = 'Internal';

/** `user_created` records for the system bots of `kinds` that do not exist yet (no events: they are not realm members). */
function missingBotRecords(state: RealmState, kinds: readonly SystemBotKind[], ctx: CommandContext): UserCreated[] {
  const records: UserCreated[] = [];
  const keys = new Set<string>();
  for (const kind of kinds) {
    if (systemBot(state, kind) !== undefined) continue;
    const { email, fullName } = SYSTEM_BOTS[kind];
    let apiKey = ctx.randomToken(API_KEY_LENGTH);
    while (state.usersByApiKey.has(apiKey) || keys.has(apiKey)) apiKey = ctx.randomToken(API_KEY_LENGTH);
    keys.add(apiKey);
    records.push({
      type: 'user_created', v: 1, id: state.nextIds.user + records.length, email, fullName, role: Role.member, isBot: true,
      botType: 1, botOwnerId: null, dateJoined: ctx.now(), timezone: '', apiKey, passwordHash: null, systemBot: kind,
    });
  }
  return records;
}

export const ensureSystemBots: Handler<EnsureSystemBots, CommandReplies['ensure_system_bots']> = (state, _cmd, ctx) =>
  ok({ records: missingBotRecords(state, ['notification', 'welcome'], ctx), events: [], reply: {} });

export const internalSend: Handler<InternalSend, CommandReplies['internal_send']> = (state, cmd, ctx) => {
  const bot = systemBot(state, cmd.bot);
  if (bot === undefined) {
    // Realms created before system bots existed: create the bot, then send as a follow-up.
    return ok({ records: missingBotRecords(state, [cmd.bot], ctx), events: [], reply: { id: 0 }, followUps: [cmd] });
  }
  const sent = sendMessage(state, {
    type: 'send_message', senderId: bot.id, messageType: cmd.messageType, to: cmd.to, topic: cmd.topic,
    content: cmd.content, client: INTERNAL_CLIENT, readBySender: true, internal: true,
  }, ctx);
  if (!sent.ok) return sent;
  if (cmd.resolveTopicNotice) {
    for (const r of sent.value.records) if (r.type === 'message_sent') r.resolveTopicNotice = true;
  }
  return ok({ ...sent.value, reply: { id: sent.value.reply.id } });
};
