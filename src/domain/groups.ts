/**
 * User groups and the one evaluator of group-setting values
 * (https://zulip.com/api/group-setting-values). System groups
 * (`role:*`) derive their membership from roles; user-defined groups have direct members and
 * subgroups, evaluated recursively. Deactivated users are never members.
 */
import { Role, type GroupSettingValue, type RealmState, type StreamGroupSetting, type User } from './realm-state.js';
import type { SystemGroupData } from './records.js';

/** Zulip's system groups in id order, with Zulip's descriptions. */
export const SYSTEM_GROUPS = [
  ['role:internet', 'Everyone on the internet'],
  ['role:everyone', 'Everyone including guests'],
  ['role:members', 'Everyone except guests'],
  ['role:fulltimemembers', 'Members of this organization, not including new accounts and guests'],
  ['role:moderators', 'Moderators of this organization, including administrators'],
  ['role:administrators', 'Administrators of this organization, including owners'],
  ['role:owners', 'Owners of this organization'],
  ['role:nobody', 'Nobody'],
] as const;
export type SystemGroupName = (typeof SYSTEM_GROUPS)[number][0];

/** System group records for a new realm, with ids starting at `firstId`. */
export function systemGroupData(firstId: number): SystemGroupData[] {
  return SYSTEM_GROUPS.map(([name, description], i) => ({ id: firstId + i, name, description }));
}

/** Whether `user` belongs to the system group `name` by role. */
function inSystemGroup(name: string, user: User): boolean {
  switch (name) {
    case 'role:internet':
    case 'role:everyone':
      return true;
    case 'role:members':
    case 'role:fulltimemembers':
      return user.role <= Role.member;
    case 'role:moderators':
      return user.role <= Role.moderator;
    case 'role:administrators':
      return user.role <= Role.admin;
    case 'role:owners':
      return user.role === Role.owner;
    default:
      return false;
  }
}

/** Id of a system group by name (always present after `realm_created`). */
export function systemGroupId(state: RealmState, name: SystemGroupName): number {
  return state.systemGroups.get(name)!;
}

/**
 * Whether user `userId` is in group `groupId`, directly or through subgroups. `seen`: the groups
 * already being descended (the guard against subgroup cycles), internal to the recursion.
 */
export function isUserInGroup(state: RealmState, userId: number, groupId: number, seen?: Set<number>): boolean {
  const user = state.users.get(userId);
  if (user === undefined || !user.isActive) return false;
  const group = state.groups.get(groupId);
  if (group === undefined || group.deactivated || seen?.has(groupId)) return false;
  if (group.isSystemGroup) return inSystemGroup(group.name, user);
  if (group.directMembers.has(userId)) return true;
  if (group.directSubgroups.size === 0) return false;
  // The cycle guard is only needed to descend, so the common checks (a system group such as
  // `role:everyone` for every send) allocate no Set.
  const visited = seen ?? new Set<number>();
  visited.add(groupId);
  for (const sub of group.directSubgroups) if (isUserInGroup(state, userId, sub, visited)) return true;
  return false;
}

/** Whether the user is allowed by a group-setting value (https://zulip.com/api/group-setting-values). */
export function hasGroupPermission(state: RealmState, userId: number, value: GroupSettingValue): boolean {
  if (typeof value === 'number') return isUserInGroup(state, userId, value);
  const user = state.users.get(userId);
  if (user === undefined || !user.isActive) return false;
  if (value.direct_members.includes(userId)) return true;
  return value.direct_subgroups.some((g) => isUserInGroup(state, userId, g));
}

/**
 * Zulip's defaults for a new channel's permission settings
 * (https://zulip.com/api/group-setting-values, https://zulip.com/api/create-channel).
 */
export function defaultStreamGroups(
  state: RealmState,
  creatorId: number | null,
): Record<StreamGroupSetting, GroupSettingValue> {
  const nobody = systemGroupId(state, 'role:nobody');
  return {
    can_add_subscribers_group: nobody,
    can_administer_channel_group:
      creatorId === null ? nobody : { direct_members: [creatorId], direct_subgroups: [] },
    can_delete_any_message_group: nobody,
    // Zulip: Stream.stream_permission_group_settings default NOBODY (the realm-level setting
    // already lets everyone delete their own messages).
    can_delete_own_message_group: nobody,
    can_move_messages_out_of_channel_group: nobody,
    can_move_messages_within_channel_group: nobody,
    can_remove_subscribers_group: systemGroupId(state, 'role:administrators'),
    can_resolve_topics_group: nobody,
    can_send_message_group: systemGroupId(state, 'role:everyone'),
    can_subscribe_group: nobody,
  };
}

/** Zulip's defaults for realm-level group settings, by wire name, given system group ids. */
export function defaultRealmGroups(groups: readonly SystemGroupData[]): Record<string, GroupSettingValue> {
  const id = (name: SystemGroupName) => groups.find((g) => g.name === name)!.id;
  return {
    can_access_all_users_group: id('role:everyone'),
    can_add_custom_emoji_group: id('role:members'),
    can_add_subscribers_group: id('role:members'),
    can_create_groups: id('role:members'),
    can_create_private_channel_group: id('role:members'),
    can_create_public_channel_group: id('role:members'),
    can_create_web_public_channel_group: id('role:owners'),
    can_delete_any_message_group: id('role:administrators'),
    can_delete_own_message_group: id('role:everyone'),
    can_invite_users_group: id('role:members'),
    can_manage_all_groups: id('role:owners'),
    can_mention_many_users_group: id('role:administrators'),
    can_move_messages_between_channels_group: id('role:members'),
    can_move_messages_between_topics_group: id('role:everyone'),
    can_resolve_topics_group: id('role:everyone'),
    create_multiuse_invite_group: id('role:administrators'),
    direct_message_initiator_group: id('role:everyone'),
    direct_message_permission_group: id('role:everyone'),
  };
}
