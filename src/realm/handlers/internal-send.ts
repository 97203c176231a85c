/**
 * `internal_send`: a message from the Notification Bot or Welcome Bot (Zulip's `internal_send_*`).
 * The bot account is created the first time a realm needs it: the decision is then just its
 * `user_created` record plus the same command as a follow-up, which finds the bot in place.
 */
import { ok } from '../../errors.js';
import { SYSTEM_BOTS, systemBot } from '../../domain/system-bots.js';
import { Role } from '../../domain/realm-state.js';
import type { CommandReplies, InternalSend } from '../commands.js';
import type { Handler } from '../decision.js';
import { API_KEY_LENGTH } from './users.js';
import { sendMessage } from './messages.js';

/** Client name Zulip records for internal sends. */
const INTERNAL_CLIENT = 'Internal';

export const internalSend: Handler<InternalSend, CommandReplies['internal_send']> = (state, cmd, ctx) => {
  const bot = systemBot(state, cmd.bot);
  if (bot === undefined) {
    const { email, fullName } = SYSTEM_BOTS[cmd.bot];
    let apiKey = ctx.randomToken(API_KEY_LENGTH);
    while (state.usersByApiKey.has(apiKey)) apiKey = ctx.randomToken(API_KEY_LENGTH);
    return ok({
      records: [{
        type: 'user_created', v: 1, id: state.nextIds.user, email, fullName, role: Role.member, isBot: true,
        botType: 1, botOwnerId: null, dateJoined: ctx.now(), timezone: '', apiKey, passwordHash: null, systemBot: cmd.bot,
      }],
      events: [],
      reply: { id: 0 },
      followUps: [cmd],
    });
  }
  const sent = sendMessage(state, {
    type: 'send_message', senderId: bot.id, messageType: cmd.messageType, to: cmd.to, topic: cmd.topic,
    content: cmd.content, client: INTERNAL_CLIENT, readBySender: true, internal: true,
  }, ctx);
  if (!sent.ok) return sent;
  return ok({ ...sent.value, reply: { id: sent.value.reply.id } });
};
