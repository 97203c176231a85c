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
import { Role, type GroupSettingValue, type RealmState, type UserGroup } from '../../domain/realm-state.js';

/** Zulip's `GroupPermissionSetting` as serialized into `server_supported_permission_settings`. */
export interface GroupPermissionSetting {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  /** A system group name, or `stream_creator_or_nobody` / `group_creator` for creator defaults. */
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

function setting(
  allowNobody: boolean,
  allowEveryone: boolean,
  defaultGroupName: string,
  extra: Partial<GroupPermissionSetting> = {},
): GroupPermissionSetting {
  return {
    require_system_group: false,
    allow_internet_group: false,
    allow_nobody_group: allowNobody,
    allow_everyone_group: allowEveryone,
    default_group_name: defaultGroupName,
    default_for_system_groups: null,
    allowed_system_groups: [],
    ...extra,
  };
}

/** `Realm.REALM_PERMISSION_GROUP_SETTINGS` at FL 417 (keys are the `realm_` keys without prefix). */
export const REALM_PERMISSION_GROUP_SETTINGS: Readonly<Record<string, GroupPermissionSetting>> = {
  create_multiuse_invite_group: setting(true, false, 'role:administrators'),
  can_access_all_users_group: setting(false, true, 'role:everyone', {
    require_system_group: true,
    allowed_system_groups: ['role:everyone', 'role:members'],
  }),
  can_add_subscribers_group: setting(true, false, 'role:members'),
  can_add_custom_emoji_group: setting(true, false, 'role:members'),
  can_create_bots_group: setting(true, false, 'role:members'),
  can_create_groups: setting(true, false, 'role:members'),
  can_create_public_channel_group: setting(true, false, 'role:members'),
  can_create_private_channel_group: setting(true, false, 'role:members'),
  can_create_web_public_channel_group: setting(true, false, 'role:owners', {
    require_system_group: true,
    allowed_system_groups: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  }),
  can_create_write_only_bots_group: setting(true, false, 'role:members'),
  can_delete_any_message_group: setting(true, false, 'role:administrators'),
  can_delete_own_message_group: setting(true, true, 'role:everyone'),
  can_invite_users_group: setting(true, false, 'role:members'),
  can_manage_all_groups: setting(false, false, 'role:owners'),
  can_manage_billing_group: setting(false, false, 'role:administrators'),
  can_mention_many_users_group: setting(true, true, 'role:administrators'),
  can_move_messages_between_channels_group: setting(true, false, 'role:members'),
  can_move_messages_between_topics_group: setting(true, true, 'role:everyone'),
  can_resolve_topics_group: setting(true, true, 'role:everyone'),
  can_set_delete_message_policy_group: setting(true, false, 'role:moderators'),
  can_set_topics_policy_group: setting(true, true, 'role:members'),
  can_summarize_topics_group: setting(true, true, 'role:everyone'),
  direct_message_initiator_group: setting(true, true, 'role:everyone'),
  direct_message_permission_group: setting(true, true, 'role:everyone'),
};

/** `Stream.stream_permission_group_settings` at FL 417 (before FL 427 renamed the creator default). */
export const STREAM_PERMISSION_GROUP_SETTINGS: Readonly<Record<string, GroupPermissionSetting>> = {
  can_add_subscribers_group: setting(true, false, 'role:nobody'),
  can_administer_channel_group: setting(true, false, 'stream_creator_or_nobody'),
  can_delete_any_message_group: setting(true, true, 'role:nobody'),
  can_delete_own_message_group: setting(true, true, 'role:nobody'),
  can_move_messages_out_of_channel_group: setting(true, true, 'role:nobody'),
  can_move_messages_within_channel_group: setting(true, true, 'role:nobody'),
  can_remove_subscribers_group: setting(true, true, 'role:administrators'),
  can_send_message_group: setting(true, true, 'role:everyone'),
  can_subscribe_group: setting(true, false, 'role:nobody'),
  can_resolve_topics_group: setting(true, true, 'role:nobody'),
};

/** `NamedUserGroup.GROUP_PERMISSION_SETTINGS`: a user group's own permission settings. */
export const GROUP_PERMISSION_SETTINGS: Readonly<Record<string, GroupPermissionSetting>> = {
  can_add_members_group: setting(true, false, 'group_creator', { default_for_system_groups: 'role:nobody' }),
  can_join_group: setting(true, false, 'role:nobody', { default_for_system_groups: 'role:nobody' }),
  can_leave_group: setting(true, true, 'role:everyone', { default_for_system_groups: 'role:nobody' }),
  can_manage_group: setting(true, false, 'group_creator', { default_for_system_groups: 'role:nobody' }),
  can_mention_group: setting(true, true, 'role:everyone', { default_for_system_groups: 'role:nobody' }),
  can_remove_members_group: setting(true, false, 'role:nobody', { default_for_system_groups: 'role:nobody' }),
};

/** `server_supported_permission_settings`, deep-copied per response. */
export function serverSupportedPermissionSettings(): Record<string, unknown> {
  return structuredClone({
    realm: REALM_PERMISSION_GROUP_SETTINGS,
    stream: STREAM_PERMISSION_GROUP_SETTINGS,
    group: GROUP_PERMISSION_SETTINGS,
  });
}

/** Id of a system group by name; -1 if the realm lacks it (only before `realm_created`). */
function systemGroup(state: RealmState, name: string): number {
  return state.systemGroups.get(name) ?? -1;
}

/** Copies a group-setting value (anonymous groups are objects the response must not share). */
export function copyGroupSetting(value: GroupSettingValue): GroupSettingValue {
  return typeof value === 'number'
    ? value
    : { direct_members: [...value.direct_members], direct_subgroups: [...value.direct_subgroups] };
}

/**
 * The realm's value for one realm-level group setting (`realm_<name>` on the wire): the stored
 * value from `state.settings.groups`, else Zulip's default system group for it.
 */
export function realmGroupSetting(state: RealmState, name: string): GroupSettingValue {
  const stored = state.settings.groups[name];
  if (stored !== undefined) return copyGroupSetting(stored);
  const config = REALM_PERMISSION_GROUP_SETTINGS[name];
  return systemGroup(state, config?.default_group_name ?? 'role:nobody');
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

/** A group's own permission settings on the wire (system groups: `role:nobody` for all). */
export function groupPermissionValues(state: RealmState, group: UserGroup): Record<string, GroupSettingValue> {
  const out: Record<string, GroupSettingValue> = {};
  for (const [name, config] of Object.entries(GROUP_PERMISSION_SETTINGS)) {
    const stored = group.settings?.[name];
    if (stored !== undefined) {
      out[name] = copyGroupSetting(stored);
    } else if (group.isSystemGroup) {
      out[name] = systemGroup(state, config.default_for_system_groups ?? 'role:nobody');
    } else if (config.default_group_name === 'group_creator') {
      out[name] =
        group.creatorId === null
          ? systemGroup(state, 'role:nobody')
          : { direct_members: [group.creatorId], direct_subgroups: [] };
    } else {
      out[name] = systemGroup(state, config.default_group_name);
    }
  }
  return out;
}

/**
 * `realm_user_groups`: every non-deactivated named group (deactivated ones too with the
 * `include_deactivated_groups` capability), sorted by id, in Zulip's `UserGroupDict` shape:
 * `{id, name, creator_id, date_created (UNIX s or null), description, members (direct, active,
 * sorted), direct_subgroup_ids (sorted), is_system_group, can_add_members_group, can_join_group,
 * can_leave_group, can_manage_group, can_mention_group, can_remove_members_group, deactivated}`.
 */
export function realmUserGroups(state: RealmState, includeDeactivated: boolean): Record<string, unknown>[] {
  const byRole = activeUsersByRole(state);
  const groups = [...state.groups.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id);
  return groups.map((group) => groupDict(state, group, byRole));
}

/** One group in the `realm_user_groups` shape (e.g. for a `user_group` `add` event). */
export function userGroupWire(state: RealmState, group: UserGroup): Record<string, unknown> {
  return groupDict(state, group, activeUsersByRole(state));
}

function groupDict(state: RealmState, group: UserGroup, byRole: Map<number, number[]>): Record<string, unknown> {
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
