/**
 * User-defined groups (https://zulip.com/api/group-setting-values; Zulip's `NamedUserGroup`): the
 * `evolve` steps of their records
 * and the rules shared by handlers and serializers. Membership feeds `hasGroupPermission`
 * (`groups.ts`), which walks `directMembers` / `directSubgroups` recursively.
 */
import type { RealmState, UserGroup } from './realm-state.js';
import type { UserGroupCreated, UserGroupMembershipChanged, UserGroupUpdated } from './records.js';

/** Zulip's `NamedUserGroup.MAX_NAME_LENGTH`. */
export const MAX_USER_GROUP_NAME_LENGTH = 100;
/** Zulip's `NamedUserGroup.INVALID_NAME_PREFIXES`. */
export const INVALID_USER_GROUP_NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'] as const;

/** Zulip's `check_user_group_name`: the error message, or null when the name is valid. */
export function userGroupNameError(name: string): string | null {
  if (name.trim() === '') return "User group name can't be empty!";
  if ([...name].length > MAX_USER_GROUP_NAME_LENGTH) {
    return `User group name cannot exceed ${MAX_USER_GROUP_NAME_LENGTH} characters.`;
  }
  for (const prefix of INVALID_USER_GROUP_NAME_PREFIXES) {
    if (name.startsWith(prefix)) return `User group name cannot start with '${prefix}'.`;
  }
  return null;
}

/** A group (system or user-defined, active or not) with this name, case-insensitively. */
export function findGroupByName(state: RealmState, name: string): UserGroup | undefined {
  const lower = name.toLowerCase();
  for (const g of state.groups.values()) if (g.name.toLowerCase() === lower) return g;
  return undefined;
}

/** Every group reachable from `groupId` through direct subgroups, `groupId` included. */
export function recursiveSubgroups(state: RealmState, groupId: number): Set<number> {
  const seen = new Set<number>();
  const stack = [groupId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const sub of state.groups.get(id)?.directSubgroups ?? []) stack.push(sub);
  }
  return seen;
}

/** `evolve` of `user_group_created`: the new group, with its settings; advances the group id counter. */
export function userGroupCreated(state: RealmState, r: UserGroupCreated): void {
  state.groups.set(r.id, {
    id: r.id,
    name: r.name,
    description: r.description,
    isSystemGroup: false,
    directMembers: new Set(r.members),
    directSubgroups: new Set(r.subgroups),
    dateCreated: r.dateCreated,
    creatorId: r.creatorId,
    deactivated: false,
    settings: structuredClone(r.settings),
  });
  if (r.id >= state.nextIds.group) state.nextIds.group = r.id + 1;
}

/** `evolve` of `user_group_membership_changed`: adds/removes direct members and subgroups. */
export function userGroupMembershipChanged(state: RealmState, r: UserGroupMembershipChanged): void {
  const group = state.groups.get(r.groupId)!;
  for (const id of r.addMembers) group.directMembers.add(id);
  for (const id of r.removeMembers) group.directMembers.delete(id);
  for (const id of r.addSubgroups) group.directSubgroups.add(id);
  for (const id of r.removeSubgroups) group.directSubgroups.delete(id);
}

/** `evolve` of `user_group_updated`: new name and/or description; deactivation or reactivation. */
export function userGroupUpdated(state: RealmState, r: UserGroupUpdated): void {
  const group = state.groups.get(r.groupId)!;
  if (r.name !== undefined) group.name = r.name;
  if (r.description !== undefined) group.description = r.description;
  if (r.deactivated !== undefined) group.deactivated = r.deactivated;
}
