/**
 * User groups in `POST /register`: the `realm_user_groups` list (Zulip's
 * `user_groups_in_realm_serialized`), the realm-level group-setting values (`realm_can_*`), and
 * `server_supported_permission_settings` (`get_server_supported_permission_settings`).
 *
 * System groups (`role:*`) are not stored with members in parley: their membership follows from
 * roles (`domain/groups.ts`). On the wire Zulip represents them as *direct* members plus a chain
 * of subgroups (`create_system_user_groups_for_realm`):
 * `role:owners ⊂ role:administrators ⊂ role:moderators ⊂ role:fulltimemembers ⊂ role:members ⊂
 * role:everyone ⊂ role:internet` (each supergroup has the previous group as its one direct
 * subgroup; `role:nobody` has none). Direct members are the active users whose role maps to the
 * group; users with the member role are direct members of both `role:members` and
 * `role:fulltimemembers` (the realm's waiting period is 0, so every member is a full member).
 */
import { isSystemBot } from '../../domain/system-bots.js';
import { Role, type RealmState, type UserGroup } from '../../domain/realm-state.js';
import type { Static } from 'typebox';
import type { UserGroupSchema } from './schemas.js';
import {
  GROUP_PERMISSION_SETTINGS,
  REALM_PERMISSION_GROUP_SETTINGS,
  STREAM_PERMISSION_GROUP_SETTINGS,
  groupPermissionValues,
  realmGroupSetting,
} from '../../domain/group-permissions.js';

/** `server_supported_permission_settings`, deep-copied per response. */
export function serverSupportedPermissionSettings(): Record<string, unknown> {
  return structuredClone({
    realm: REALM_PERMISSION_GROUP_SETTINGS,
    stream: STREAM_PERMISSION_GROUP_SETTINGS,
    group: GROUP_PERMISSION_SETTINGS,
  });
}

/** Role codes whose holders are direct members of each role-based system group. */
const SYSTEM_GROUP_ROLES: Readonly<Record<string, readonly number[]>> = {
  'role:owners': [Role.owner],
  'role:administrators': [Role.admin],
  'role:moderators': [Role.moderator],
  'role:fulltimemembers': [Role.member],
  'role:members': [Role.member],
  'role:everyone': [Role.guest],
};

/** Each system group's one direct subgroup (the chain described in the module comment). */
const SYSTEM_GROUP_SUBGROUP: Readonly<Record<string, string>> = {
  'role:administrators': 'role:owners',
  'role:moderators': 'role:administrators',
  'role:fulltimemembers': 'role:moderators',
  'role:members': 'role:fulltimemembers',
  'role:everyone': 'role:members',
  'role:internet': 'role:everyone',
};

/** Active user ids by role, ascending, computed once per register call. */
function activeUsersByRole(state: RealmState): Map<number, number[]> {
  const byRole = new Map<number, number[]>();
  for (const user of state.users.values()) {
    if (!user.isActive || isSystemBot(user)) continue;
    let list = byRole.get(user.role);
    if (list === undefined) byRole.set(user.role, (list = []));
    list.push(user.id);
  }
  for (const list of byRole.values()) list.sort((a, b) => a - b);
  return byRole;
}

/**
 * `realm_user_groups`: every non-deactivated named group (deactivated ones too with the
 * `include_deactivated_groups` capability), sorted by id, in Zulip's `UserGroupDict` shape:
 * `{id, name, creator_id, date_created (UNIX s or null), description, members (direct, active,
 * sorted), direct_subgroup_ids (sorted), is_system_group, can_add_members_group, can_join_group,
 * can_leave_group, can_manage_group, can_mention_group, can_remove_members_group, deactivated}`.
 */
export function realmUserGroups(state: RealmState, includeDeactivated: boolean): UserGroupObject[] {
  const byRole = activeUsersByRole(state);
  const groups = [...state.groups.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id);
  return groups.map((group) => groupDict(state, group, byRole));
}

/** A user group object (`realm_user_groups`, `user_group` op `add`): `UserGroupSchema`'s static type. */
export type UserGroupObject = Static<typeof UserGroupSchema>;

/** One group in the `realm_user_groups` shape (e.g. for a `user_group` `add` event). */
export function userGroupWire(state: RealmState, group: UserGroup): UserGroupObject {
  return groupDict(state, group, activeUsersByRole(state));
}

function groupDict(state: RealmState, group: UserGroup, byRole: Map<number, number[]>): UserGroupObject {
  let members: number[];
  let subgroups: number[];
  if (group.isSystemGroup) {
    members = (SYSTEM_GROUP_ROLES[group.name] ?? []).flatMap((role) => byRole.get(role) ?? []);
    const sub = SYSTEM_GROUP_SUBGROUP[group.name];
    const subId = sub === undefined ? undefined : state.systemGroups.get(sub);
    subgroups = subId === undefined ? [] : [subId];
  } else {
    members = [...group.directMembers].filter((id) => state.users.get(id)?.isActive).sort((a, b) => a - b);
    subgroups = [...group.directSubgroups].sort((a, b) => a - b);
  }
  return {
    id: group.id,
    name: group.name,
    creator_id: group.creatorId,
    date_created: Number.isFinite(group.dateCreated) ? Math.floor(group.dateCreated) : null,
    description: group.description,
    members,
    direct_subgroup_ids: subgroups,
    is_system_group: group.isSystemGroup,
    ...groupPermissionValues(state, group),
    deactivated: group.deactivated,
  };
}

/** Zulip's legacy policy enums (`Realm.POLICY_*`) by system group name. */
const POLICY_BY_SYSTEM_GROUP: Readonly<Record<string, number>> = {
  'role:owners': 7,
  'role:administrators': 2,
  'role:moderators': 4,
  'role:fulltimemembers': 3,
  'role:members': 1,
  'role:everyone': 5,
  'role:nobody': 6,
};

/** `SYSTEM_GROUPS_TO_WILDCARD_MENTION_POLICY_MAP`. */
const WILDCARD_POLICY_BY_SYSTEM_GROUP: Readonly<Record<string, number>> = {
  'role:everyone': 1,
  'role:members': 2,
  'role:fulltimemembers': 3,
  'role:administrators': 5,
  'role:nobody': 6,
  'role:moderators': 7,
};

/**
 * A deprecated `realm_*_policy` enum derived from a group setting
 * (`get_corresponding_policy_value_for_group_setting`): the enum of the setting's system group
 * when that enum is one the legacy setting allowed, else `fallback` (the closest superset).
 */
export function legacyPolicy(
  state: RealmState,
  settingName: string,
  validValues: readonly number[],
  fallback: number,
): number {
  const value = realmGroupSetting(state, settingName);
  if (typeof value !== 'number') return fallback;
  const group = state.groups.get(value);
  if (group === undefined || !group.isSystemGroup) return fallback;
  const map = settingName === 'can_mention_many_users_group' ? WILDCARD_POLICY_BY_SYSTEM_GROUP : POLICY_BY_SYSTEM_GROUP;
  const policy = map[group.name];
  return policy !== undefined && validValues.includes(policy) ? policy : fallback;
}
