/**
 * User-group access (Zulip's zerver/lib/user_groups.py `get_user_group_by_id_in_realm`,
 * `access_user_group_for_update`, `access_user_group_for_deactivation`'s permission half; the
 * views' join/leave fallbacks in zerver/views/user_groups.py `add_members_to_group_backend` /
 * `remove_members_from_group_backend`), and the group-setting permission test they all use:
 * zerver/lib/user_groups.py `user_has_permission_for_group_setting` — a guest never holds a
 * setting whose `allow_everyone_group` is false, whatever group it names.
 *
 * Errors (Zulip's wording, 400): unknown id → `Invalid user group`; deactivated (unless allowed)
 * → `User group is deactivated.`; system group, deactivated actor or missing permission →
 * `Insufficient permission`.
 */
import { Errors, fail, ok, type Result } from '../../errors.js';
import { hasGroupPermission } from '../groups.js';
import {
  GROUP_PERMISSION_SETTINGS,
  REALM_PERMISSION_GROUP_SETTINGS,
  groupPermissionValues,
  realmGroupSetting,
  type GroupPermissionSetting,
  type UserGroupPermissionName,
} from '../group-permissions.js';
import { Role, type GroupSettingValue, type RealmState, type User, type UserGroup } from '../realm-state.js';

/** The group settings that guard changes to a group (all but `can_mention_group`). */
export type UserGroupPermission = Exclude<UserGroupPermissionName, 'can_mention_group'>;

/**
 * Zulip's `user_has_permission_for_group_setting`: whether `user` is in the group-setting value
 * `value` (recursively), refusing guests for settings with `allow_everyone_group` false.
 */
export function hasPermissionForGroupSetting(state: RealmState, user: User, value: GroupSettingValue, config: GroupPermissionSetting): boolean {
  if (!config.allow_everyone_group && user.role === Role.guest) return false;
  return hasGroupPermission(state, user.id, value);
}

/**
 * Zulip's `UserProfile.has_permission` for a realm-level group setting (`can_create_groups`,
 * `can_manage_all_groups`, …; the names of `Realm.REALM_PERMISSION_GROUP_SETTINGS`): the realm's
 * stored value or its default. False for deactivated users and unknown setting names.
 */
export function hasRealmPermission(state: RealmState, user: User, setting: string): boolean {
  const config = REALM_PERMISSION_GROUP_SETTINGS[setting];
  if (config === undefined || !user.isActive) return false;
  return hasPermissionForGroupSetting(state, user, realmGroupSetting(state, setting), config);
}

/** Options of {@link accessUserGroupById} and {@link accessUserGroupForUpdate}. */
export interface UserGroupAccessOptions {
  /** Accept a deactivated group (default false: `User group is deactivated.`). */
  allowDeactivated?: boolean;
}

/**
 * Zulip's `get_user_group_by_id_in_realm`: the group (system or user-defined) or `Invalid user
 * group`; a deactivated one unless `allowDeactivated` (`User group is deactivated.`). No
 * permission check: reading a group's membership is open to every user of the realm.
 */
export function accessUserGroupById(state: RealmState, groupId: number, opts: UserGroupAccessOptions = {}): Result<UserGroup> {
  const group = state.groups.get(groupId);
  if (group === undefined) return fail(Errors.badRequest('Invalid user group'));
  if (group.deactivated && !opts.allowDeactivated) return fail(Errors.badRequest('User group is deactivated.'));
  return ok(group);
}

/**
 * Zulip's `access_user_group_for_update`: the group `actor` may change under `permission`, or
 * the error. After the lookup ({@link accessUserGroupById}): system groups are never changed;
 * the realm's `can_manage_all_groups` and the group's `can_manage_group` allow everything; any
 * other `permission` is then checked on its own. A deactivated actor is refused.
 */
export function accessUserGroupForUpdate(
  state: RealmState,
  actor: User,
  groupId: number,
  permission: UserGroupPermission,
  opts: UserGroupAccessOptions = {},
): Result<UserGroup> {
  const found = accessUserGroupById(state, groupId, opts);
  if (!found.ok) return found;
  const group = found.value;
  if (group.isSystemGroup || !actor.isActive) return fail(Errors.insufficientPermission());
  if (hasRealmPermission(state, actor, 'can_manage_all_groups')) return ok(group);
  const values = groupPermissionValues(state, group);
  const holds = (name: UserGroupPermission) => hasPermissionForGroupSetting(state, actor, values[name], GROUP_PERMISSION_SETTINGS[name]);
  if (holds('can_manage_group')) return ok(group);
  if (permission !== 'can_manage_group' && holds(permission)) return ok(group);
  return fail(Errors.insufficientPermission());
}

/**
 * Adding (`add`) or removing (`remove`) the direct members `userIds` of a group (Zulip's
 * `add_members_to_group_backend` / `remove_members_from_group_backend`, deactivated groups
 * included): `can_add_members_group` / `can_remove_members_group`, or — when the actor only adds
 * or removes themself — `can_join_group` / `can_leave_group`. Errors as
 * {@link accessUserGroupForUpdate}.
 */
export function accessUserGroupForMembers(
  state: RealmState,
  actor: User,
  groupId: number,
  change: 'add' | 'remove',
  userIds: readonly number[],
): Result<UserGroup> {
  const opts = { allowDeactivated: true };
  if (userIds.length === 1 && userIds[0] === actor.id) {
    const asSelf = accessUserGroupForUpdate(state, actor, groupId, change === 'add' ? 'can_join_group' : 'can_leave_group', opts);
    if (asSelf.ok) return asSelf;
  }
  return accessUserGroupForUpdate(state, actor, groupId, change === 'add' ? 'can_add_members_group' : 'can_remove_members_group', opts);
}
