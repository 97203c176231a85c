/**
 * Which users a user may "access" (know exists, see in the user list, mention) when the realm
 * restricts guests, and who may administer whom: Zulip's `can_access_all_users_group` (zerver/lib/users.py
 * `check_user_can_access_all_users`, `check_can_access_user`, `get_inaccessible_user_ids`).
 *
 * Rules (Zulip):
 * - non-guests, and guests in `can_access_all_users_group` (default `role:everyone`, i.e. no
 *   restriction), access everyone;
 * - a restricted guest accesses bots, themself, active users sharing a channel subscription or
 *   a group direct message with them, and users they exchanged a 1:1 direct message with.
 *
 * Cost: {@link canAccessUser} is per target and only does work for a restricted guest: the
 * guest's channels (subscriber map lookups), one conversation-key lookup, and — only when those
 * fail — one pass over the realm's direct conversations (never over all users).
 */
import { Errors, fail, ok, type Result } from '../../errors.js';
import { Role, type RealmState, type User } from '../realm-state.js';
import { hasGroupPermission } from '../groups.js';
import { findDirectRecipient } from '../recipients.js';
import { findUserByEmail } from '../users.js';

/** Zulip's `check_user_can_access_all_users`: false only for a guest outside `can_access_all_users_group`. */
export function canAccessAllUsers(state: RealmState, user: User): boolean {
  if (user.role !== Role.guest) return true;
  const group = state.settings.groups['can_access_all_users_group'];
  return group === undefined || hasGroupPermission(state, user.id, group);
}

/**
 * Zulip's `check_can_access_user` for `viewer` and the user `targetId` (false for unknown ids).
 * 1:1 conversations count once they exist (a message was sent in them), as Zulip counts any
 * direct message between the two.
 */
export function canAccessUser(state: RealmState, viewer: User, targetId: number): boolean {
  const target = state.users.get(targetId);
  if (target === undefined) return false;
  if (target.isBot || target.id === viewer.id || canAccessAllUsers(state, viewer)) return true;
  if (target.isActive) {
    for (const streamId of state.userStreams.get(viewer.id) ?? []) {
      if (state.subscriptions.get(streamId)?.has(target.id)) return true;
    }
  }
  const pair = viewer.id < target.id ? [viewer.id, target.id] : [target.id, viewer.id];
  if (findDirectRecipient(state, pair) !== undefined) return true;
  if (!target.isActive) return false;
  for (const recipientId of state.directRecipients.values()) {
    const recipient = state.recipients.get(recipientId);
    if (recipient?.type !== 'direct' || recipient.userIds.length < 3) continue;
    if (recipient.userIds.includes(viewer.id) && recipient.userIds.includes(target.id)) return true;
  }
  return false;
}

/** Zulip's `UserProfile.can_admin_user`: the bot's owner, or a realm administrator. */
export function canAdminUser(actor: User, target: User): boolean {
  return (target.isBot && target.botOwnerId === actor.id) || actor.role <= Role.admin;
}

/** Options of {@link accessUserById} (Zulip's keyword arguments of `access_user_by_id`). */
export interface UserAccessOptions {
  /** Accept a deactivated target (default false: `User is deactivated`). */
  allowDeactivated?: boolean;
  /** Accept a bot target (default false: `No such user`). */
  allowBots?: boolean;
  /** Require {@link canAdminUser} (else `Insufficient permission`); false: {@link canAccessUser}. */
  forAdmin: boolean;
}

/** Zulip's `access_user_common`: the checks shared by the by-id and by-email lookups. */
function accessUser(state: RealmState, actor: User, target: User | undefined, opts: UserAccessOptions): Result<User> {
  if (target === undefined || !actor.isActive || (target.isBot && !opts.allowBots)) return fail(Errors.noSuchUser());
  if (!target.isActive && !opts.allowDeactivated) return fail(Errors.badRequest('User is deactivated'));
  const allowed = opts.forAdmin ? canAdminUser(actor, target) : canAccessUser(state, actor, target.id);
  return allowed ? ok(target) : fail(Errors.insufficientPermission());
}

/**
 * Zulip's zerver/lib/users.py `access_user_by_id`: the target user, or — in this order — `No such
 * user` (unknown id, deactivated actor, or a bot unless `allowBots`), `User is deactivated` (unless
 * `allowDeactivated`), `Insufficient permission` (not accessible to a restricted guest, or with
 * `forAdmin` not administrable by `actor`). The realm's system bots are in `state.users`, so this
 * is also `access_user_by_id_including_cross_realm`.
 */
export function accessUserById(state: RealmState, actor: User, targetId: number, opts: UserAccessOptions): Result<User> {
  return accessUser(state, actor, state.users.get(targetId), opts);
}

/**
 * Zulip's `access_user_by_email`: as {@link accessUserById} for the user whose API email, delivery
 * email or dummy `user<id>@<host>` address is `email` (case-insensitive).
 */
export function accessUserByEmail(state: RealmState, actor: User, email: string, opts: UserAccessOptions): Result<User> {
  return accessUser(state, actor, findUserByEmail(state, email), opts);
}

/**
 * The target of `GET /users/{user_id_or_email}/presence` (Zulip's zerver/views/presence.py
 * `get_presence_backend`): an active, non-bot user of the realm. Unknown and deactivated users →
 * `No such user`, as is a user the actor cannot access (`canAccessUser`: no existence oracle); bots →
 * `Presence is not supported for bot users.`. parley always applies what Zulip applies with its
 * server setting `CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE` on, the same rule as presence events
 * and `GET /realm/presence`, so a restricted guest learns nothing of users hidden from them.
 */
export function accessUserForPresence(state: RealmState, actor: User, target: User | undefined): Result<User> {
  if (target === undefined || !target.isActive || !actor.isActive || !canAccessUser(state, actor, target.id)) return fail(Errors.noSuchUser());
  if (target.isBot) return fail(Errors.badRequest('Presence is not supported for bot users.'));
  return ok(target);
}
