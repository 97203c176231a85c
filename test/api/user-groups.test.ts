/**
 * User groups (https://zulip.com/api/group-setting-values): create, members, subgroups (no cycles),
 * rename; permissions; errors
 * with the state unchanged; `user_group` events folded into `realm_user_groups` (verify_action);
 * membership feeding `hasGroupPermission`.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, run, smallRealm } from '../support/realm-fixture.js';
import { hasGroupPermission, isUserInGroup, systemGroupId } from '../../src/domain/groups.js';
import type { CreateUserGroup, UpdateUserGroupMembership } from '../../src/realm/commands.js';

const create = (actorId: number, over: Partial<CreateUserGroup> = {}): CreateUserGroup => ({
  type: 'create_user_group', actorId, name: 'team', description: 'The team', members: [], subgroups: [], settings: {}, ...over,
});
const membership = (actorId: number, groupId: number, over: Partial<UpdateUserGroupMembership>): UpdateUserGroupMembership => ({
  type: 'update_user_group_membership', actorId, groupId, addMembers: [], removeMembers: [], addSubgroups: [], removeSubgroups: [], ...over,
});

t.test('create: record, event, defaults, and permission evaluation', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const result = decide(state, create(ids.member, { members: [ids.member, ids.other] }), ctx);
  if (!result.ok) throw result.error;
  const { records, events, reply } = result.value;
  const groupId = reply.groupId;
  t.match(records, [{ type: 'user_group_created', v: 1, id: groupId, name: 'team', members: [ids.member, ids.other], creatorId: ids.member }]);
  t.equal(events.length, 1);
  t.match(events[0]!.payload, {
    type: 'user_group', op: 'add',
    group: {
      id: groupId, name: 'team', description: 'The team', members: [ids.member, ids.other], direct_subgroup_ids: [],
      is_system_group: false, creator_id: ids.member, deactivated: false,
      can_manage_group: { direct_members: [ids.member], direct_subgroups: [] },
      can_add_members_group: { direct_members: [ids.member], direct_subgroups: [] },
      can_mention_group: systemGroupId(state, 'role:everyone'),
      can_join_group: systemGroupId(state, 'role:nobody'),
    },
  });
  t.ok(events[0]!.userIds.includes(ids.guest), 'every active user is told');
  run(state, create(ids.member, { members: [ids.member, ids.other] }), ctx);
  t.ok(isUserInGroup(state, ids.other, groupId));
  t.notOk(isUserInGroup(state, ids.admin, groupId));
  t.ok(hasGroupPermission(state, ids.other, groupId), 'a user-defined group works as a group-setting value');
  const outer = run(state, create(ids.admin, { name: 'outer', subgroups: [groupId] }), ctx).groupId;
  t.ok(hasGroupPermission(state, ids.other, outer), 'through a subgroup');
  t.ok(hasGroupPermission(state, ids.member, { direct_members: [], direct_subgroups: [outer] }), 'anonymous group via subgroups');
});

t.test('create: every error leaves the state unchanged', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, create(ids.member), ctx);
  const before = fingerprint(state);
  const cases: Array<[CreateUserGroup, string]> = [
    [create(ids.guest, { name: 'g' }), 'Insufficient permission'],
    [create(ids.member, { name: '  ' }), "User group name can't be empty!"],
    [create(ids.member, { name: 'x'.repeat(101) }), 'User group name cannot exceed 100 characters.'],
    [create(ids.member, { name: 'role:foo' }), "User group name cannot start with 'role:'."],
    [create(ids.member, { name: '@foo' }), "User group name cannot start with '@'."],
    [create(ids.member, { name: 'TEAM' }), "User group 'TEAM' already exists."],
    [create(ids.member, { name: 'new', members: [9999] }), 'Invalid user ID: 9999'],
    [create(ids.member, { name: 'new', subgroups: [9999] }), 'Invalid user group ID: 9999'],
    [create(ids.member, { name: 'new', settings: { can_manage_group: 9999 } }), 'Invalid user group'],
  ];
  for (const [cmd, msg] of cases) {
    const r = decide(state, cmd, ctx);
    t.equal(r.ok ? 'ok' : r.error.message, msg, JSON.stringify(cmd));
  }
  t.equal(fingerprint(state), before);
  t.ok(decide(state, create(ids.member, { name: 'x'.repeat(100) }), ctx).ok, '100 characters are fine');
});

t.test('members and subgroups: rules, cycles, permissions; state unchanged after errors', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const team = run(state, create(ids.member, { members: [ids.member] }), ctx).groupId;
  const outer = run(state, create(ids.member, { name: 'outer', subgroups: [team] }), ctx).groupId;
  const nobody = systemGroupId(state, 'role:nobody');
  const before = fingerprint(state);
  const cases: Array<[UpdateUserGroupMembership, string]> = [
    [membership(ids.member, 9999, { addMembers: [ids.other] }), 'Invalid user group'],
    [membership(ids.owner, nobody, { addMembers: [ids.other] }), 'Insufficient permission'],
    [membership(ids.other, team, { addMembers: [ids.admin] }), 'Insufficient permission'],
    [membership(ids.other, team, { addMembers: [ids.other] }), 'Insufficient permission'],
    [membership(ids.other, team, { addSubgroups: [outer] }), 'Insufficient permission'],
    [membership(ids.member, team, { addMembers: [ids.member] }), `User ${ids.member} is already a member of this group`],
    [membership(ids.member, team, { addMembers: [9999] }), 'Invalid user ID: 9999'],
    [membership(ids.member, team, { removeMembers: [ids.other] }), `There is no member '${ids.other}' in this user group`],
    [membership(ids.member, outer, { addSubgroups: [team] }), `User group ${team} is already a subgroup of this group.`],
    [membership(ids.member, outer, { removeSubgroups: [outer] }), `User group ${outer} is not a subgroup of this group.`],
    [membership(ids.member, team, { addSubgroups: [outer] }), `User group ${team} is already a subgroup of one of the passed subgroups.`],
    [membership(ids.member, team, { addSubgroups: [team] }), `User group ${team} is already a subgroup of one of the passed subgroups.`],
    [membership(ids.member, team, { addSubgroups: [9999] }), 'Invalid user group ID: 9999'],
  ];
  for (const [cmd, msg] of cases) {
    const r = decide(state, cmd, ctx);
    t.equal(r.ok ? 'ok' : r.error.message, msg, JSON.stringify(cmd));
  }
  t.equal(fingerprint(state), before);

  // The owner manages every group (realm can_manage_all_groups = role:owners).
  run(state, membership(ids.owner, team, { addMembers: [ids.other], addSubgroups: [systemGroupId(state, 'role:administrators')] }), ctx);
  t.ok(isUserInGroup(state, ids.admin, team), 'through a system subgroup');
  t.ok(isUserInGroup(state, ids.other, outer), 'recursively');
  // Anyone may leave (can_leave_group = role:everyone).
  const leave = decide(state, membership(ids.other, team, { removeMembers: [ids.other] }), ctx);
  if (!leave.ok) throw leave.error;
  t.same(leave.value.events.map((e) => e.payload), [{ type: 'user_group', op: 'remove_members', group_id: team, user_ids: [ids.other] }]);
});

t.test('update: name and description', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const team = run(state, create(ids.member), ctx).groupId;
  run(state, create(ids.member, { name: 'other' }), ctx);
  const before = fingerprint(state);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ actorId: ids.other, name: 'x' }, 'Insufficient permission'],
    [{ actorId: ids.member, name: 'OTHER' }, "User group 'OTHER' already exists."],
    [{ actorId: ids.member, name: '' }, "User group name can't be empty!"],
    [{ actorId: ids.member, groupId: systemGroupId(state, 'role:members'), name: 'x' }, 'Insufficient permission'],
  ];
  for (const [over, msg] of cases) {
    const r = decide(state, { type: 'update_user_group', groupId: team, actorId: ids.member, ...over }, ctx);
    t.equal(r.ok ? 'ok' : r.error.message, msg, JSON.stringify(over));
  }
  t.equal(fingerprint(state), before);
  const r = decide(state, { type: 'update_user_group', actorId: ids.member, groupId: team, name: 'Team', description: 'The team' }, ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.events.map((e) => e.payload), [{ type: 'user_group', op: 'update', group_id: team, data: { name: 'Team' } }], 'only what changed');
});

t.test('HTTP: GET /user_groups, create, members, subgroups, rename, with events', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const polonius = await s.as('polonius@zulip.com');

  const list = await hamlet.call('GET', '/user_groups');
  t.equal(list.status, 200);
  const names = list.body.user_groups.map((g: { name: string }) => g.name);
  t.ok(names.includes('role:members') && names.includes('role:owners'));
  const members = list.body.user_groups.find((g: { name: string }) => g.name === 'role:members');
  t.ok(members.members.includes(hamlet.userId), 'system group members computed');

  const created = await verifyAction(t, s, othello, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => hamlet.call('POST', '/user_groups/create', { name: 'leads', description: 'Team leads', members: [hamlet.userId] }),
  });
  t.equal(created.actionResult.status, 200);
  const groupId = created.actionResult.body.group_id as number;
  t.type(groupId, 'number');
  t.match(created.events[0], { type: 'user_group', op: 'add', group: { id: groupId, name: 'leads', members: [hamlet.userId] } });

  t.same((await polonius.call('POST', '/user_groups/create', { name: 'g', description: '', members: [] })).body,
    { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' }, 'guests may not create groups');
  t.same((await hamlet.call('POST', `/user_groups/${groupId}/members`, {})).body,
    { result: 'error', msg: 'Nothing to do. Specify at least one of "add" or "delete".', code: 'BAD_REQUEST' });
  t.same((await hamlet.call('PATCH', `/user_groups/${groupId}`, {})).body, { result: 'error', msg: 'No new data supplied', code: 'BAD_REQUEST' });
  t.same((await othello.call('POST', `/user_groups/${groupId}/members`, { add: [othello.userId] })).body,
    { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' }, 'can_join_group is nobody');

  await verifyAction(t, s, othello, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => hamlet.call('POST', `/user_groups/${groupId}/members`, { add: [othello.userId] }),
  });
  const inner = (await hamlet.call('POST', '/user_groups/create', { name: 'inner', description: '', members: [] })).body.group_id;
  const sub = await verifyAction(t, s, othello, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => hamlet.call('POST', `/user_groups/${groupId}/subgroups`, { add: [inner] }),
  });
  t.match(sub.events[0], { op: 'add_subgroups', group_id: groupId, direct_subgroup_ids: [inner] });
  t.same((await hamlet.call('POST', `/user_groups/${inner}/subgroups`, { add: [groupId] })).body,
    { result: 'error', msg: `User group ${inner} is already a subgroup of one of the passed subgroups.`, code: 'BAD_REQUEST' });
  await verifyAction(t, s, othello, {
    numEvents: 2,
    stateChangeExpected: true,
    action: () => hamlet.call('POST', `/user_groups/${groupId}/members`, { delete: [othello.userId], delete_subgroups: [inner] }),
  });
  // Zulip sends the rename and the new description as two events.
  const renamed = await verifyAction(t, s, othello, {
    numEvents: 2,
    stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/user_groups/${groupId}`, { name: 'Leads', description: 'New' }),
  });
  t.match(renamed.events[0], { op: 'update', group_id: groupId, data: { name: 'Leads' } });
  t.match(renamed.events[1], { op: 'update', group_id: groupId, data: { description: 'New' } });
  t.equal((await hamlet.call('GET', '/user_groups')).body.user_groups.find((g: { id: number }) => g.id === groupId).name, 'Leads');
});

t.test('user-defined groups survive a snapshot round trip', async (t) => {
  const { fromSnapshot, toSnapshot } = await import('../../src/domain/realm-snapshot.js');
  const { state, ctx, ids } = smallRealm();
  const team = run(state, create(ids.member, { members: [ids.other], settings: { can_mention_group: systemGroupId(state, 'role:members') } }), ctx).groupId;
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(1, structuredClone(core), columns);
  t.equal(fingerprint(copy), fingerprint(state));
  t.ok(isUserInGroup(copy, ids.other, team));
  t.equal(copy.groups.get(team)!.settings!.can_mention_group, systemGroupId(state, 'role:members'));
});
