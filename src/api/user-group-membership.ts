/**
 * Reading a user group's membership (https://zulip.com/api/get-user-group-members,
 * https://zulip.com/api/get-is-user-group-member, https://zulip.com/api/get-user-group-subgroups;
 * Zulip's zerver/views/user_groups.py `get_user_group_members`, `get_is_user_group_member`,
 * `get_subgroups_of_user_group`):
 * - `GET /user_groups/{user_group_id}/members` (`direct_member_only`, default false) →
 *   `{members: [user ids]}`, recursive through subgroups unless `direct_member_only`;
 * - `GET /user_groups/{user_group_id}/members/{user_id}` (`direct_member_only`) →
 *   `{is_user_group_member}`;
 * - `GET /user_groups/{user_group_id}/subgroups` (`direct_subgroup_only`) → `{subgroups: [group ids]}`,
 *   recursive unless `direct_subgroup_only` (the group itself is not listed).
 *
 * Who: Zulip's `@require_member_or_admin` (guests: `Not allowed for guest users`; bots: `This
 * endpoint does not accept bot requests.`); the group as `access_user_group_to_read_membership`
 * (any group of the realm, deactivated ones included; unknown id: `Invalid user group`); the user
 * of the second form as `access_user_by_id(for_admin=False)`.
 *
 * Membership is the one `/register` shows (`realm_user_groups`: active users only; system groups
 * as role-based direct members plus their chain of subgroups), so the three answers agree with it.
 */
import { accessUserById, accessUserGroupById, requireMemberOrAdmin } from '../domain/access.js';
import type { RealmState, User, UserGroup } from '../domain/realm-state.js';
import type { Result } from '../errors.js';
import { realmUserGroups } from '../events/register/user-groups.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Direct members and direct subgroups of every group (deactivated included), by group id. */
function directMembership(state: RealmState): Map<number, { members: readonly number[]; subgroups: readonly number[] }> {
  return new Map(realmUserGroups(state, true).map((g) => [g.id, { members: g.members, subgroups: g.direct_subgroup_ids }]));
}

/** Group ids reachable from `groupId` through subgroups (not `groupId` itself unless in a cycle), ascending. */
function subgroupClosure(byId: ReturnType<typeof directMembership>, groupId: number, directOnly: boolean): number[] {
  const direct = byId.get(groupId)?.subgroups ?? [];
  if (directOnly) return [...direct];
  const seen = new Set<number>();
  const stack = [...direct];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(byId.get(id)?.subgroups ?? []));
  }
  return [...seen].sort((a, b) => a - b);
}

/** Members of `groupId` (direct, or also those of every subgroup), ascending user ids. */
function memberIds(state: RealmState, groupId: number, directOnly: boolean): number[] {
  const byId = directMembership(state);
  const members = new Set(byId.get(groupId)?.members ?? []);
  if (!directOnly) for (const sub of subgroupClosure(byId, groupId, false)) for (const id of byId.get(sub)?.members ?? []) members.add(id);
  return [...members].sort((a, b) => a - b);
}

/** The group whose membership `user` asks for: Zulip's `require_member_or_admin`, then `access_user_group_to_read_membership`. */
function groupToRead(state: RealmState, user: User, groupId: number): Result<UserGroup> {
  const allowed = requireMemberOrAdmin(user);
  if (!allowed.ok) return allowed;
  return accessUserGroupById(state, groupId, { allowDeactivated: true });
}

/** `GET /user_groups/{user_group_id}/members`. */
export const getUserGroupMembers = defineEndpoint({
  auth: 'user',
  pathParams: { user_group_id: 'int' },
  params: { direct_member_only: P.bool({ default: false }) },
  handler: ({ realm, user, path, params }) => {
    const group = groupToRead(realm.state, user, path.user_group_id);
    if (!group.ok) return group.error;
    return { members: memberIds(realm.state, group.value.id, params.direct_member_only) };
  },
});

/** `GET /user_groups/{user_group_id}/members/{user_id}`. */
export const getIsUserGroupMember = defineEndpoint({
  auth: 'user',
  pathParams: { user_group_id: 'int', user_id: 'int' },
  params: { direct_member_only: P.bool({ default: false }) },
  handler: ({ realm, user, path, params }) => {
    const group = groupToRead(realm.state, user, path.user_group_id);
    if (!group.ok) return group.error;
    const target = accessUserById(realm.state, user, path.user_id, { forAdmin: false });
    if (!target.ok) return target.error;
    return { is_user_group_member: memberIds(realm.state, group.value.id, params.direct_member_only).includes(target.value.id) };
  },
});

/** `GET /user_groups/{user_group_id}/subgroups`. */
export const getUserGroupSubgroups = defineEndpoint({
  auth: 'user',
  pathParams: { user_group_id: 'int' },
  params: { direct_subgroup_only: P.bool({ default: false }) },
  handler: ({ realm, user, path, params }) => {
    const group = groupToRead(realm.state, user, path.user_group_id);
    if (!group.ok) return group.error;
    return { subgroups: subgroupClosure(directMembership(realm.state), group.value.id, params.direct_subgroup_only) };
  },
});
