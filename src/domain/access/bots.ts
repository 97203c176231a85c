/**
 * Zulip's zerver/lib/users.py `access_bot_by_id`: who may change, deactivate or re-key a bot
 * (`PATCH /bots/{bot_id}`, `DELETE /bots/{bot_id}`, `POST /bots/{bot_id}/api_key/regenerate`).
 */
import { Errors, fail, ok, type Result } from '../../errors.js';
import type { RealmState, User } from '../realm-state.js';
import { isSystemBot } from '../system-bots.js';
import { canAdminUser } from './users.js';

/**
 * The bot `botId` for `actor`, or — in this order — "No such bot" (unknown id, a human, a system
 * bot, or an inactive actor) and "Insufficient permission" (neither the bot's owner nor an
 * administrator: Zulip's `UserProfile.can_admin_user`). Deactivated bots are returned (an owner
 * may still edit or reactivate them).
 */
export function accessBotById(state: RealmState, actor: User, botId: number): Result<User> {
  const bot = state.users.get(botId);
  if (!actor.isActive || bot === undefined || !bot.isBot || isSystemBot(bot)) return fail(Errors.noSuchBot());
  if (!canAdminUser(actor, bot)) return fail(Errors.insufficientPermission());
  return ok(bot);
}
