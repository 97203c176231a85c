/**
 * User group deactivation and reactivation (Zulip's `deactivate_user_group`,
 * `access_user_group_for_deactivation`, `edit_user_group` `deactivated`): permissions, the
 * "in use" objections with `CANNOT_DEACTIVATE_GROUP_IN_USE`, state unchanged after every error,
 * `GET /user_groups` `include_deactivated_groups`, and the per-capability events
 * (`include_deactivated_groups`: `update {deactivated}` vs `remove` / `add`) via verifyAction.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { systemGroupId } from '../../src/domain/groups.js';
import type { CreateUserGroup, DeactivateUserGroup, UpdateUserGroup } from '../../src/realm/commands.js';

const create = (actorId: number, over: Partial<CreateUserGroup> = {}): CreateUserGroup => ({
  type: 'create_user_group', actorId, name: 'team', description: 'The team', members: [], subgroups: [], settings: {}, ...over,
});
const deactivate = (actorId: number, groupId: number): DeactivateUserGroup => ({ type: 'deactivate_user_group', actorId, groupId });
const reactivate = (actorId: number, groupId: number, over: Partial<UpdateUserGroup> = {}): UpdateUserGroup => ({
  type: 'update_user_group', actorId, groupId, deactivated: false, ...over,
});

/** A failing decision's objections, with the state unchanged. */
type Asserts = { equal(a: unknown, b: unknown, ...m: unknown[]): unknown; fail(...m: unknown[]): unknown };
function objectionsOf(t: Asserts, state: Parameters<typeof decide>[0], cmd: DeactivateUserGroup, ctx: Parameters<typeof decide>[2]): unknown {
  const before = fingerprint(state);
  const result = decide(state, cmd, ctx);
  if (result.ok) {
    t.fail('expected CANNOT_DEACTIVATE_GROUP_IN_USE, got success');
    return undefined;
  }
  t.equal(result.error.code, 'CANNOT_DEACTIVATE_GROUP_IN_USE');
  t.equal(result.error.message, 'Cannot deactivate user group in use.');
  t.equal(fingerprint(state), before, 'state unchanged');
  return result.error.data.objections;
}

t.test('deactivate: permissions, errors with the state unchanged, record and evolve', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const groupId = run(state, create(ids.member, { members: [ids.member] }), ctx).groupId;
  rejects(t, state, deactivate(ids.member, 9999), ctx, 'Invalid user group');
  rejects(t, state, deactivate(ids.owner, systemGroupId(state, 'role:members')), ctx, 'Insufficient permission');
  rejects(t, state, deactivate(ids.other, groupId), ctx, 'Insufficient permission');
  rejects(t, state, deactivate(ids.admin, groupId), ctx, 'Insufficient permission');

  const result = decide(state, deactivate(ids.member, groupId), ctx);
  if (!result.ok) throw result.error;
  t.same(result.value.records, [{ type: 'user_group_updated', v: 1, groupId, deactivated: true }]);
  t.same(result.value.events.map((e) => [e.payload, e.capability]), [
    [{ type: 'user_group', op: 'update', group_id: groupId, data: { deactivated: true } }, { name: 'include_deactivated_groups', has: true }],
    [{ type: 'user_group', op: 'remove', group_id: groupId }, { name: 'include_deactivated_groups', has: false }],
  ]);
  t.ok(result.value.events[0]!.userIds.includes(ids.guest), 'every active user is told');
  run(state, deactivate(ids.member, groupId), ctx);
  t.equal(state.groups.get(groupId)!.deactivated, true);
  rejects(t, state, deactivate(ids.member, groupId), ctx, 'User group is deactivated.');

  // Reactivation needs the same permission; then the group can be deactivated again.
  rejects(t, state, reactivate(ids.other, groupId), ctx, 'Insufficient permission');
  run(state, reactivate(ids.member, groupId), ctx);
  t.equal(state.groups.get(groupId)!.deactivated, false);
  t.same(decide(state, reactivate(ids.member, groupId), ctx), { ok: true, value: { records: [], events: [], reply: {} } }, 'reactivating an active group: nothing');

  // The owner holds can_manage_all_groups; with it set to role:members any member may.
  run(state, deactivate(ids.owner, groupId), ctx);
  run(state, reactivate(ids.owner, groupId), ctx);
  state.settings.groups.can_manage_all_groups = systemGroupId(state, 'role:members'); // fixture setup (no PATCH /realm)
  run(state, deactivate(ids.other, groupId), ctx);
  t.equal(state.groups.get(groupId)!.deactivated, true);
});

t.test('deactivate: the objections when the group is in use, in Zulip order', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const support = run(state, create(ids.owner, { name: 'support' }), ctx).groupId;
  const leaders = run(state, create(ids.owner, { name: 'leaders' }), ctx).groupId;
  const outer = run(state, create(ids.owner, { name: 'outer', subgroups: [support] }), ctx).groupId;

  t.same(objectionsOf(t, state, deactivate(ids.owner, support), ctx), [{ type: 'subgroup', supergroup_ids: [outer] }]);
  run(state, deactivate(ids.owner, outer), ctx);
  t.ok(decide(state, deactivate(ids.owner, support), ctx).ok, 'a deactivated supergroup does not object');

  // Channel settings: the group itself or inside an anonymous value; archived channels do not count.
  run(state, { type: 'update_channel', actorId: ids.owner, streamId: streams.general, groups: { can_send_message_group: { new: support } } }, ctx);
  run(state, {
    type: 'update_channel', actorId: ids.owner, streamId: streams.empty,
    groups: { can_add_subscribers_group: { new: { direct_members: [ids.other], direct_subgroups: [support] } }, can_subscribe_group: { new: support } },
  }, ctx);
  // Another group's setting, and the realm's.
  state.groups.get(leaders)!.settings!.can_mention_group = { direct_members: [], direct_subgroups: [support] }; // fixture setup
  state.settings.groups.can_create_groups = support; // fixture setup (no PATCH /realm)
  state.settings.groups.can_invite_users_group = { direct_members: [ids.member], direct_subgroups: [support] };

  t.same(objectionsOf(t, state, deactivate(ids.owner, support), ctx), [
    { type: 'channel', channel_id: streams.general, settings: ['can_send_message_group'] },
    { type: 'channel', channel_id: streams.empty, settings: ['can_add_subscribers_group', 'can_subscribe_group'] },
    { type: 'user_group', group_id: leaders, settings: ['can_mention_group'] },
    { type: 'realm', settings: ['can_create_groups', 'can_invite_users_group'] },
  ]);

  run(state, { type: 'archive_channel', actorId: ids.owner, streamId: streams.general }, ctx);
  run(state, { type: 'archive_channel', actorId: ids.owner, streamId: streams.empty }, ctx);
  run(state, deactivate(ids.owner, leaders), ctx);
  t.same(objectionsOf(t, state, deactivate(ids.owner, support), ctx), [{ type: 'realm', settings: ['can_create_groups', 'can_invite_users_group'] }],
    'archived channels and deactivated groups do not object');
  delete state.settings.groups.can_create_groups;
  delete state.settings.groups.can_invite_users_group;
  t.ok(decide(state, deactivate(ids.owner, support), ctx).ok);
});

t.test('deactivated state survives a snapshot round trip', async (t) => {
  const { fromSnapshot, toSnapshot } = await import('../../src/domain/realm-snapshot.js');
  const { state, ctx, ids } = smallRealm();
  const groupId = run(state, create(ids.member), ctx).groupId;
  run(state, deactivate(ids.member, groupId), ctx);
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(1, structuredClone(core), columns);
  t.equal(copy.groups.get(groupId)!.deactivated, true);
  t.equal(fingerprint(copy), fingerprint(state));
});

const ERR = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const WITH = { client_capabilities: { include_deactivated_groups: true } };
const groupIds = async (caller: Caller, params: Record<string, unknown> = {}) =>
  (await caller.call('GET', '/user_groups', params)).body.user_groups.map((g: { id: number }) => g.id) as number[];

t.test('HTTP: deactivate and reactivate, events per include_deactivated_groups', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const groupId = (await hamlet.call('POST', '/user_groups/create', { name: 'leads', description: 'Leads', members: [hamlet.userId] })).body.group_id as number;

  const before = await groupIds(hamlet, { include_deactivated_groups: true });
  t.same((await othello.call('POST', `/user_groups/${groupId}/deactivate`)).body, ERR('Insufficient permission'));
  t.same((await hamlet.call('POST', '/user_groups/9999/deactivate')).body, ERR('Invalid user group'));
  t.same(await groupIds(hamlet, { include_deactivated_groups: true }), before, 'unchanged after errors');

  const withCap = await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], registerParams: WITH, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('POST', `/user_groups/${groupId}/deactivate`),
  });
  t.same(withCap.actionResult.body, { result: 'success', msg: '' });
  t.match(withCap.events[0], { type: 'user_group', op: 'update', group_id: groupId, data: { deactivated: true } });
  t.match(withCap.after.realm_user_groups.find((g: { id: number }) => g.id === groupId), { deactivated: true });
  t.notOk((await groupIds(hamlet)).includes(groupId), 'GET /user_groups hides deactivated groups');
  t.match((await hamlet.call('GET', '/user_groups', { include_deactivated_groups: true })).body.user_groups.find((g: { id: number }) => g.id === groupId),
    { id: groupId, deactivated: true });
  t.same((await hamlet.call('POST', `/user_groups/${groupId}/deactivate`)).body, ERR('User group is deactivated.'));

  // Reactivation: `update {deactivated: false}` with the capability, `add {group}` without.
  t.same((await othello.call('PATCH', `/user_groups/${groupId}`, { deactivated: false })).body, ERR('Insufficient permission'));
  const back = await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/user_groups/${groupId}`, { deactivated: false }),
  });
  t.match(back.events[0], { type: 'user_group', op: 'add', group: { id: groupId, name: 'leads', members: [hamlet.userId], deactivated: false } });
  t.ok((await groupIds(hamlet)).includes(groupId));

  // Without the capability: `remove`; reactivation with it: `update`.
  const without = await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('POST', `/user_groups/${groupId}/deactivate`),
  });
  t.same(without.events[0], { id: without.events[0]!.id, type: 'user_group', op: 'remove', group_id: groupId });
  t.notOk(without.after.realm_user_groups.some((g: { id: number }) => g.id === groupId), 'register without the capability omits it');
  const backWith = await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], registerParams: WITH, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/user_groups/${groupId}`, { deactivated: false }),
  });
  t.match(backWith.events[0], { type: 'user_group', op: 'update', group_id: groupId, data: { deactivated: false } });
  // `deactivated: true` through PATCH changes nothing (Zulip only reactivates there).
  await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], numEvents: 0, stateChangeExpected: false,
    action: () => hamlet.call('PATCH', `/user_groups/${groupId}`, { deactivated: true }),
  });
});

t.test('HTTP: a deactivated group can be renamed, described and changed; renames only reach capable clients', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const groupId = (await hamlet.call('POST', '/user_groups/create', { name: 'old', description: '', members: [hamlet.userId] })).body.group_id as number;
  await hamlet.call('POST', `/user_groups/${groupId}/deactivate`);

  const renamedWith = await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], registerParams: WITH, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/user_groups/${groupId}`, { name: 'older' }),
  });
  t.match(renamedWith.events[0], { op: 'update', group_id: groupId, data: { name: 'older' } });
  await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], numEvents: 0, stateChangeExpected: false,
    action: () => hamlet.call('PATCH', `/user_groups/${groupId}`, { name: 'oldest' }),
  });
  // Zulip sends description updates to every client; clients without the group ignore them.
  const described = await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], numEvents: 1, stateChangeExpected: false,
    action: () => hamlet.call('PATCH', `/user_groups/${groupId}`, { description: 'retired' }),
  });
  t.match(described.events[0], { op: 'update', group_id: groupId, data: { description: 'retired' } });
  const added = await verifyAction(t, s, othello, {
    eventTypes: ['user_group'], fetchEventTypes: ['realm_user_groups', 'user_group'], registerParams: WITH, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('POST', `/user_groups/${groupId}/members`, { add: [othello.userId] }),
  });
  t.match(added.events[0], { op: 'add_members', group_id: groupId, user_ids: [othello.userId] });
  t.match((await hamlet.call('GET', '/user_groups', { include_deactivated_groups: true })).body.user_groups.find((g: { id: number }) => g.id === groupId),
    { name: 'oldest', description: 'retired', deactivated: true });
});

t.test('HTTP: a group in use answers CANNOT_DEACTIVATE_GROUP_IN_USE with objections', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const inner = (await hamlet.call('POST', '/user_groups/create', { name: 'inner', description: '', members: [hamlet.userId] })).body.group_id as number;
  const outer = (await hamlet.call('POST', '/user_groups/create', { name: 'outer', description: '', members: [], subgroups: [inner] })).body.group_id as number;
  t.equal((await iago.call('PATCH', '/streams/1', { can_send_message_group: { new: inner } })).status, 200);
  const before = await groupIds(hamlet);
  const reply = await hamlet.call('POST', `/user_groups/${inner}/deactivate`);
  t.equal(reply.status, 400);
  t.same(reply.body, {
    result: 'error', msg: 'Cannot deactivate user group in use.', code: 'CANNOT_DEACTIVATE_GROUP_IN_USE',
    objections: [{ type: 'subgroup', supergroup_ids: [outer] }, { type: 'channel', channel_id: 1, settings: ['can_send_message_group'] }],
  });
  t.same(await groupIds(hamlet), before, 'state unchanged');
});
