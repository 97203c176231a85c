/**
 * Group-based permission settings (Zulip's `zerver/lib/types.py` `GroupPermissionSetting` and the
 * tables `Realm.REALM_PERMISSION_GROUP_SETTINGS`, `Stream.stream_permission_group_settings`,
 * `NamedUserGroup.GROUP_PERMISSION_SETTINGS`), and the stored-or-default value of each setting.
 * Handlers check permissions against these; `events/register/user-groups.ts` serializes them.
 */
import type { GroupSettingValue, RealmState, UserGroup } from './realm-state.js';

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

/** The names of a user group's own permission settings (`NamedUserGroup.GROUP_PERMISSION_SETTINGS`). */
export type UserGroupPermissionName =
  | 'can_add_members_group'
  | 'can_join_group'
  | 'can_leave_group'
  | 'can_manage_group'
  | 'can_mention_group'
  | 'can_remove_members_group';

/** `NamedUserGroup.GROUP_PERMISSION_SETTINGS`: a user group's own permission settings. */
export const GROUP_PERMISSION_SETTINGS: Readonly<Record<UserGroupPermissionName, GroupPermissionSetting>> = {
  can_add_members_group: setting(true, false, 'group_creator', { default_for_system_groups: 'role:nobody' }),
  can_join_group: setting(true, false, 'role:nobody', { default_for_system_groups: 'role:nobody' }),
  can_leave_group: setting(true, true, 'role:everyone', { default_for_system_groups: 'role:nobody' }),
  can_manage_group: setting(true, false, 'group_creator', { default_for_system_groups: 'role:nobody' }),
  can_mention_group: setting(true, true, 'role:everyone', { default_for_system_groups: 'role:nobody' }),
  can_remove_members_group: setting(true, false, 'role:nobody', { default_for_system_groups: 'role:nobody' }),
};

/** Id of a system group by name; -1 if the realm lacks it (only before `realm_created`). */
export function systemGroupId(state: RealmState, name: string): number {
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
  return systemGroupId(state, config?.default_group_name ?? 'role:nobody');
}

/** A group's own permission settings on the wire (system groups: `role:nobody` for all). */
export function groupPermissionValues(state: RealmState, group: UserGroup): Record<UserGroupPermissionName, GroupSettingValue> {
  const value = (name: UserGroupPermissionName): GroupSettingValue => {
    const config = GROUP_PERMISSION_SETTINGS[name];
    const stored = group.settings?.[name];
    if (stored !== undefined) return copyGroupSetting(stored);
    if (group.isSystemGroup) return systemGroupId(state, config.default_for_system_groups ?? 'role:nobody');
    if (config.default_group_name === 'group_creator') {
      return group.creatorId === null
        ? systemGroupId(state, 'role:nobody')
        : { direct_members: [group.creatorId], direct_subgroups: [] };
    }
    return systemGroupId(state, config.default_group_name);
  };
  return {
    can_add_members_group: value('can_add_members_group'),
    can_join_group: value('can_join_group'),
    can_leave_group: value('can_leave_group'),
    can_manage_group: value('can_manage_group'),
    can_mention_group: value('can_mention_group'),
    can_remove_members_group: value('can_remove_members_group'),
  };
}
