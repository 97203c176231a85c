/**
 * User-defined groups (https://zulip.com/api/group-setting-values; Zulip's
 * `zerver/views/user_groups.py` at FL 417):
 * `create_user_group`, `update_user_group_membership` (direct members and subgroups; no cycles),
 * `update_user_group` (name, description, reactivation), `deactivate_user_group`.
 *
 * Permissions (the access family, `domain/access/user-groups.ts`): creating needs the realm's
 * `can_create_groups`; changing a group needs the realm's `can_manage_all_groups` or the group's
 * `can_manage_group`, and for members also its `can_add_members_group` (adding) /
 * `can_remove_members_group` (removing), or `can_join_group` / `can_leave_group` when the actor
 * only adds / removes themselves. System groups cannot be changed. Deactivated groups can still be renamed, described, have their members changed and be
 * reactivated (Zulip's `allow_deactivated=True`); deactivating one again fails with `User group is
 * deactivated.`, deactivating a group in use with `Cannot deactivate user group in use.` and its
 * objections (`user-group-objections.ts`). Errors: `Invalid user group`, `Insufficient permission`,
 * and the membership messages below (Zulip's wording).
 *
 * Events `user_group` go to every active user of the realm: `add` `{group}`, `update`
 * `{group_id, data: {name?, description?}}`, `add_members`/`remove_members` `{group_id, user_ids}`,
 * `add_subgroups`/`remove_subgroups` `{group_id, direct_subgroup_ids}`.
 *
 * Per `include_deactivated_groups` capability (Zulip's `accepts_event`,
 * `process_user_group_name_update_event`): deactivation is `update {data: {deactivated: true}}`
 * for queues with it and `remove {group_id}` for the others; reactivation `update {data:
 * {deactivated: false}}` resp. `add {group}`; renames of a deactivated group only reach queues with it.
 */
import { ok, fail, Errors, type ZulipError } from '../../errors.js';
import type { GroupSettingValue, RealmState, UserGroup } from '../../domain/realm-state.js';
import type { UserGroupCreated, UserGroupMembershipChanged, UserGroupUpdated } from '../../domain/records.js';
import { isUserInGroup } from '../../domain/groups.js';
import { findGroupByName, recursiveSubgroups, userGroupNameError } from '../../domain/user-groups.js';
import { GROUP_PERMISSION_SETTINGS, groupPermissionValues } from '../../domain/group-permissions.js';
import { accessUserGroupById, accessUserGroupForMembers, accessUserGroupForUpdate, hasRealmPermission } from '../../domain/access.js';
import { userGroupWire, type UserGroupObject } from '../../events/register/user-groups.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { CommandReplies } from '../commands.js';
import { groupDeactivationObjections } from './user-group-objections.js';
import type { Handler } from '../decision.js';

/** `POST /user_groups/create`: a user-defined group (settings already defaulted by the endpoint). */
export interface CreateUserGroup {
  type: 'create_user_group';
  actorId: number;
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  /** Group-setting values given by the client, by wire name (`can_manage_group`, …). */
  settings: Record<string, GroupSettingValue>;
}

/** `POST /user_groups/{id}/members` and `/subgroups`: add and/or delete direct members or subgroups. */
export interface UpdateUserGroupMembership {
  type: 'update_user_group_membership';
  actorId: number;
  groupId: number;
  addMembers: number[];
  removeMembers: number[];
  addSubgroups: number[];
  removeSubgroups: number[];
}

/** `PATCH /user_groups/{id}`: new name and/or description; `deactivated: false` reactivates. */
export interface UpdateUserGroup {
  type: 'update_user_group';
  actorId: number;
  groupId: number;
  name?: string;
  description?: string;
  deactivated?: boolean;
}

/** `POST /user_groups/{id}/deactivate`. */
export interface DeactivateUserGroup {
  type: 'deactivate_user_group';
  actorId: number;
  groupId: number;
}

const invalidGroup = () => Errors.badRequest('Invalid user group');

/** Active users of the realm: who receives `user_group` events. */
function everyone(state: RealmState): number[] {
  return [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
}

function checkUserIds(state: RealmState, ids: readonly number[]): ZulipError | null {
  for (const id of ids) {
    const user = state.users.get(id);
    if (user === undefined || !user.isActive) return Errors.badRequest(`Invalid user ID: ${id}`);
  }
  return null;
}

function checkGroupIds(state: RealmState, ids: readonly number[]): ZulipError | null {
  for (const id of ids) {
    const group = state.groups.get(id);
    if (group === undefined || group.deactivated) return Errors.badRequest(`Invalid user group ID: ${id}`);
  }
  return null;
}

function checkSettingValue(state: RealmState, value: GroupSettingValue): ZulipError | null {
  if (typeof value === 'number') return state.groups.has(value) ? null : invalidGroup();
  return checkUserIds(state, value.direct_members) ?? checkGroupIds(state, value.direct_subgroups);
}

/** Variants of a `user_group` event by the queue's `include_deactivated_groups` capability. */
const withDeactivatedGroups = (has: boolean) => ({ capability: { name: 'include_deactivated_groups', has } });

/** Zulip's wire dict of a user-defined group (as in `realm_user_groups`). */
function groupWire(state: RealmState, group: UserGroup): UserGroupObject {
  return {
    id: group.id,
    name: group.name,
    creator_id: group.creatorId,
    date_created: Math.floor(group.dateCreated),
    description: group.description,
    members: [...group.directMembers].sort((a, b) => a - b),
    direct_subgroup_ids: [...group.directSubgroups].sort((a, b) => a - b),
    is_system_group: false,
    ...groupPermissionValues(state, group),
    deactivated: false,
  };
}

export const createUserGroup: Handler<CreateUserGroup, CommandReplies['create_user_group']> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  if (!hasRealmPermission(state, actor, 'can_create_groups')) return fail(Errors.insufficientPermission());
  const nameError = userGroupNameError(cmd.name);
  if (nameError !== null) return fail(Errors.badRequest(nameError));
  if (findGroupByName(state, cmd.name) !== undefined) return fail(Errors.badRequest(`User group '${cmd.name}' already exists.`));
  const members = [...new Set(cmd.members)];
  const subgroups = [...new Set(cmd.subgroups)];
  const bad = checkUserIds(state, members) ?? checkGroupIds(state, subgroups);
  if (bad) return fail(bad);
  const settings: Record<string, GroupSettingValue> = {};
  for (const [name, config] of Object.entries(GROUP_PERMISSION_SETTINGS)) {
    const given = cmd.settings[name];
    if (given !== undefined) {
      const err = checkSettingValue(state, given);
      if (err) return fail(err);
      settings[name] = given;
    } else if (config.default_group_name === 'group_creator') {
      settings[name] = { direct_members: [actor.id], direct_subgroups: [] };
    } else {
      settings[name] = state.systemGroups.get(config.default_group_name)!;
    }
  }
  const record: UserGroupCreated = {
    type: 'user_group_created',
    v: 1,
    id: state.nextIds.group,
    name: cmd.name,
    description: cmd.description,
    members,
    subgroups,
    creatorId: actor.id,
    dateCreated: Math.floor(ctx.now()),
    settings,
  };
  const group: UserGroup = {
    id: record.id, name: record.name, description: record.description, isSystemGroup: false,
    directMembers: new Set(members), directSubgroups: new Set(subgroups), dateCreated: record.dateCreated,
    creatorId: actor.id, deactivated: false, settings,
  };
  const event: RealmEvent = { userIds: everyone(state), payload: { type: 'user_group', op: 'add', group: groupWire(state, group) } };
  return ok({ records: [record], events: [event], reply: { groupId: record.id } });
};

export const updateUserGroupMembership: Handler<UpdateUserGroupMembership, CommandReplies['update_user_group_membership']> = (
  state,
  cmd,
) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const found = accessUserGroupById(state, cmd.groupId, { allowDeactivated: true });
  if (!found.ok) return found;
  const group = found.value;
  const addMembers = [...new Set(cmd.addMembers)];
  const removeMembers = [...new Set(cmd.removeMembers)];
  const addSubgroups = [...new Set(cmd.addSubgroups)];
  const removeSubgroups = [...new Set(cmd.removeSubgroups)];

  if (addMembers.length > 0) {
    const access = accessUserGroupForMembers(state, actor, group.id, 'add', addMembers);
    if (!access.ok) return access;
    const bad = checkUserIds(state, addMembers);
    if (bad) return fail(bad);
    for (const id of addMembers) {
      if (group.directMembers.has(id)) return fail(Errors.badRequest(`User ${id} is already a member of this group`));
    }
  }
  if (removeMembers.length > 0) {
    const access = accessUserGroupForMembers(state, actor, group.id, 'remove', removeMembers);
    if (!access.ok) return access;
    const bad = checkUserIds(state, removeMembers);
    if (bad) return fail(bad);
    for (const id of removeMembers) {
      if (!group.directMembers.has(id)) return fail(Errors.badRequest(`There is no member '${id}' in this user group`));
    }
  }
  if (addSubgroups.length > 0 || removeSubgroups.length > 0) {
    // Zulip's `lock_subgroups_with_respect_to_supergroup(permission_setting="can_manage_group")`.
    const access = accessUserGroupForUpdate(state, actor, group.id, 'can_manage_group', { allowDeactivated: true });
    if (!access.ok) return access;
    const bad = checkGroupIds(state, [...addSubgroups, ...removeSubgroups]);
    if (bad) return fail(bad);
    for (const id of addSubgroups) {
      if (group.directSubgroups.has(id)) return fail(Errors.badRequest(`User group ${id} is already a subgroup of this group.`));
    }
    for (const id of removeSubgroups) {
      if (!group.directSubgroups.has(id)) return fail(Errors.badRequest(`User group ${id} is not a subgroup of this group.`));
    }
    for (const id of addSubgroups) {
      if (recursiveSubgroups(state, id).has(group.id)) {
        return fail(Errors.badRequest(`User group ${group.id} is already a subgroup of one of the passed subgroups.`));
      }
    }
  }
  const record: UserGroupMembershipChanged = {
    type: 'user_group_membership_changed', v: 1, groupId: group.id, addMembers, removeMembers, addSubgroups, removeSubgroups,
  };
  const to = everyone(state);
  const events: RealmEvent[] = [];
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
  if (addMembers.length > 0) events.push({ userIds: to, payload: { type: 'user_group', op: 'add_members', group_id: group.id, user_ids: sorted(addMembers) } });
  if (removeMembers.length > 0) events.push({ userIds: to, payload: { type: 'user_group', op: 'remove_members', group_id: group.id, user_ids: sorted(removeMembers) } });
  if (addSubgroups.length > 0) events.push({ userIds: to, payload: { type: 'user_group', op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: sorted(addSubgroups) } });
  if (removeSubgroups.length > 0) events.push({ userIds: to, payload: { type: 'user_group', op: 'remove_subgroups', group_id: group.id, direct_subgroup_ids: sorted(removeSubgroups) } });
  if (events.length === 0) return ok({ records: [], events: [], reply: {} });
  return ok({ records: [record], events, reply: {} });
};

export const updateUserGroup: Handler<UpdateUserGroup, CommandReplies['update_user_group']> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const found = accessUserGroupForUpdate(state, actor, cmd.groupId, 'can_manage_group', { allowDeactivated: true });
  if (!found.ok) return found;
  const group = found.value;
  const data: { name?: string; description?: string } = {};
  if (cmd.name !== undefined && cmd.name !== group.name) {
    const nameError = userGroupNameError(cmd.name);
    if (nameError !== null) return fail(Errors.badRequest(nameError));
    const other = findGroupByName(state, cmd.name);
    if (other !== undefined && other.id !== group.id) return fail(Errors.badRequest(`User group '${cmd.name}' already exists.`));
    data.name = cmd.name;
  }
  if (cmd.description !== undefined && cmd.description !== group.description) data.description = cmd.description;
  // Zulip: `deactivated: false` reactivates a deactivated group; any other value changes nothing.
  const reactivate = cmd.deactivated === false && group.deactivated;
  if (data.name === undefined && data.description === undefined && !reactivate) return ok({ records: [], events: [], reply: {} });
  const record: UserGroupUpdated = { type: 'user_group_updated', v: 1, groupId: group.id, ...data, ...(reactivate && { deactivated: false }) };
  const to = everyone(state);
  const events: RealmEvent[] = [];
  // Zulip sends the name and the description separately; a deactivated group's rename only to
  // clients that keep deactivated groups.
  if (data.name !== undefined) {
    events.push({ userIds: to, payload: { type: 'user_group', op: 'update', group_id: group.id, data: { name: data.name } }, ...(group.deactivated && withDeactivatedGroups(true)) });
  }
  if (data.description !== undefined) {
    events.push({ userIds: to, payload: { type: 'user_group', op: 'update', group_id: group.id, data: { description: data.description } } });
  }
  if (reactivate) {
    const wire = userGroupWire(state, { ...group, ...data, deactivated: false });
    events.push({ userIds: to, payload: { type: 'user_group', op: 'update', group_id: group.id, data: { deactivated: false } }, ...withDeactivatedGroups(true) });
    events.push({ userIds: to, payload: { type: 'user_group', op: 'add', group: wire }, ...withDeactivatedGroups(false) });
  }
  return ok({ records: [record], events, reply: {} });
};

/**
 * `POST /user_groups/{id}/deactivate` (Zulip's `deactivate_user_group`): needs `can_manage_group`
 * (or the realm's `can_manage_all_groups`); the group must not be in use.
 */
export const deactivateUserGroup: Handler<DeactivateUserGroup, CommandReplies['deactivate_user_group']> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  // Zulip's `access_user_group_for_deactivation`: the permission, then the objections.
  const found = accessUserGroupForUpdate(state, actor, cmd.groupId, 'can_manage_group');
  if (!found.ok) return found;
  const group = found.value;
  const objections = groupDeactivationObjections(state, group.id);
  if (objections.length > 0) return fail(Errors.cannotDeactivateGroupInUse(objections));
  const record: UserGroupUpdated = { type: 'user_group_updated', v: 1, groupId: group.id, deactivated: true };
  const to = everyone(state);
  const events: RealmEvent[] = [
    { userIds: to, payload: { type: 'user_group', op: 'update', group_id: group.id, data: { deactivated: true } }, ...withDeactivatedGroups(true) },
    { userIds: to, payload: { type: 'user_group', op: 'remove', group_id: group.id }, ...withDeactivatedGroups(false) },
  ];
  return ok({ records: [record], events, reply: {} });
};

/**
 * Re-exported for tests: whether a user is in a group, recursively
 * (https://zulip.com/api/group-setting-values).
 */
export { isUserInGroup };
