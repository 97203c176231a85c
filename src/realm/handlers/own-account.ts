/**
 * A user acting on their own account: deactivating it (https://zulip.com/api/deactivate-own-user;
 * Zulip's `zerver/views/users.py` `deactivate_user_own_backend`) and regenerating their API key
 * (Zulip's `zerver/views/user_settings.py` `regenerate_api_key`,
 * `zerver/actions/user_settings.py` `do_regenerate_api_key`).
 *
 * - Deactivation: the only active account (bots count, system bots do not) → "Cannot deactivate
 *   the only user."; the only owner → "Cannot deactivate the only organization owner." (both Zulip's
 *   `CannotDeactivateLastUserError`, code `CANNOT_DEACTIVATE_LAST_USER`); then the same records
 *   and events as an administrator's deactivation (`do_deactivate_user`: the account, its bots,
 *   its web sessions).
 * - API key: humans only ("This endpoint does not accept bot requests."); a new random key, the
 *   old one refused from the next request on; the user's mobile push registrations are dropped
 *   (Zulip's `clear_push_device_tokens`); web sessions stay. No client event (Zulip sends
 *   none for a human).
 */
import { ok, fail, Errors } from '../../errors.js';
import { Role } from '../../domain/realm-state.js';
import { API_KEY_LENGTH } from './users.js';
import { pushDevicesOf } from '../../domain/push-devices.js';
import type { RealmRecord } from '../../domain/records.js';
import type { Handler } from '../decision.js';
import { activationDecision, isLastOwner } from './user-admin.js';

/** `DELETE /users/me`. */
export interface DeactivateOwnAccount {
  type: 'deactivate_own_account';
  actorId: number;
}

/** `POST /users/me/api_key/regenerate`. */
export interface RegenerateApiKey {
  type: 'regenerate_api_key';
  actorId: number;
}

export type OwnAccountCommand = DeactivateOwnAccount | RegenerateApiKey;

/** Replies of the own-account commands (merged into `CommandReplies`). */
export interface OwnAccountReplies {
  deactivate_own_account: Record<string, never>;
  regenerate_api_key: { api_key: string };
}

export const deactivateOwnAccount: Handler<DeactivateOwnAccount, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  // Zulip counts the realm's active accounts, bots included; its system bots are cross-realm
  // (not counted), parley keeps them in the realm.
  let active = 0;
  for (const u of state.users.values()) if (u.isActive && u.systemBot === undefined) active++;
  if (active === 1) return fail(Errors.cannotDeactivateLastUser(false));
  if (actor.role === Role.owner && isLastOwner(state, actor)) return fail(Errors.cannotDeactivateLastUser(true));
  return ok(activationDecision(state, actor, false));
};

export const regenerateApiKey: Handler<RegenerateApiKey, { api_key: string }> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  if (actor.isBot) return fail(Errors.noBots());
  let apiKey = ctx.randomToken(API_KEY_LENGTH);
  while (state.usersByApiKey.has(apiKey)) apiKey = ctx.randomToken(API_KEY_LENGTH);
  const records: RealmRecord[] = [{ type: 'api_key_regenerated', v: 1, userId: actor.id, apiKey }];
  if (pushDevicesOf(state, actor.id).length > 0) records.push({ type: 'push_devices_removed', v: 1, userId: actor.id });
  return ok({ records, events: [], reply: { api_key: apiKey } });
};
