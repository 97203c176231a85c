/**
 * Reading group membership: GET /user_groups/{id}/members, /members/{user_id}, /subgroups
 * (Zulip's zerver/views/user_groups.py): recursive and direct answers agree with
 * `realm_user_groups`, system groups included; guests and bots refused as Zulip's
 * `require_member_or_admin`; unknown groups and users answer Zulip's errors.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';

t.test('members, membership and subgroups of user-defined and system groups', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');

  const inner = (await hamlet.call('POST', '/user_groups/create', { name: 'inner', description: '', members: [othello.userId] })).body.group_id as number;
  const outer = (await hamlet.call('POST', '/user_groups/create', { name: 'outer', description: '', members: [hamlet.userId], subgroups: [inner] })).body.group_id as number;
  const top = (await hamlet.call('POST', '/user_groups/create', { name: 'top', description: '', members: [], subgroups: [outer] })).body.group_id as number;

  t.same((await othello.call('GET', `/user_groups/${outer}/members`)).body, { result: 'success', msg: '', members: [hamlet.userId, othello.userId].sort((a, b) => a - b) });
  t.same((await othello.call('GET', `/user_groups/${outer}/members`, { direct_member_only: true })).body.members, [hamlet.userId]);
  t.same((await othello.call('GET', `/user_groups/${top}/members`)).body.members, [hamlet.userId, othello.userId].sort((a, b) => a - b), 'two levels down');
  t.same((await othello.call('GET', `/user_groups/${top}/members`, { direct_member_only: true })).body.members, []);

  t.same((await othello.call('GET', `/user_groups/${top}/subgroups`)).body, { result: 'success', msg: '', subgroups: [inner, outer].sort((a, b) => a - b) });
  t.same((await othello.call('GET', `/user_groups/${top}/subgroups`, { direct_subgroup_only: true })).body.subgroups, [outer]);

  t.equal((await othello.call('GET', `/user_groups/${top}/members/${othello.userId}`)).body.is_user_group_member, true);
  t.equal((await othello.call('GET', `/user_groups/${top}/members/${othello.userId}`, { direct_member_only: true })).body.is_user_group_member, false);
  t.equal((await othello.call('GET', `/user_groups/${inner}/members/${iago.userId}`)).body.is_user_group_member, false);

  // System groups answer as /register shows them: role-based direct members, a chain of subgroups.
  const groups = (await hamlet.call('GET', '/user_groups')).body.user_groups as { id: number; name: string; members: number[]; direct_subgroup_ids: number[] }[];
  const byName = new Map(groups.map((g) => [g.name, g]));
  const admins = byName.get('role:administrators')!;
  const owners = byName.get('role:owners')!;
  t.same((await hamlet.call('GET', `/user_groups/${admins.id}/members`, { direct_member_only: true })).body.members, admins.members);
  const allAdmins = (await hamlet.call('GET', `/user_groups/${admins.id}/members`)).body.members as number[];
  t.same(allAdmins, [...new Set([...admins.members, ...owners.members])].sort((a, b) => a - b), 'owners are administrators through the subgroup');
  t.ok(allAdmins.includes(iago.userId));
  t.same((await hamlet.call('GET', `/user_groups/${admins.id}/subgroups`)).body.subgroups, [owners.id]);
  const members = byName.get('role:members')!;
  t.equal((await hamlet.call('GET', `/user_groups/${members.id}/members/${iago.userId}`)).body.is_user_group_member, true, 'an administrator is a member');
  t.equal((await hamlet.call('GET', `/user_groups/${members.id}/members/${iago.userId}`, { direct_member_only: true })).body.is_user_group_member, false);
});

t.test('deactivated groups are readable; errors as Zulip', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const group = (await hamlet.call('POST', '/user_groups/create', { name: 'gone', description: '', members: [hamlet.userId] })).body.group_id as number;
  t.equal((await hamlet.call('POST', `/user_groups/${group}/deactivate`)).status, 200);
  t.same((await hamlet.call('GET', `/user_groups/${group}/members`)).body.members, [hamlet.userId], 'deactivated groups keep their members');

  const guest = { result: 'error', msg: 'Not allowed for guest users', code: 'BAD_REQUEST' };
  t.same((await polonius.call('GET', `/user_groups/${group}/members`)).body, guest);
  t.same((await polonius.call('GET', `/user_groups/${group}/subgroups`)).body, guest);
  t.same((await polonius.call('GET', `/user_groups/${group}/members/${hamlet.userId}`)).body, guest);

  const invalid = { result: 'error', msg: 'Invalid user group', code: 'BAD_REQUEST' };
  t.same((await hamlet.call('GET', '/user_groups/99999/members')).body, invalid);
  t.same((await hamlet.call('GET', '/user_groups/99999/subgroups')).body, invalid);
  t.same((await hamlet.call('GET', `/user_groups/99999/members/${hamlet.userId}`)).body, invalid);
  t.same((await hamlet.call('GET', `/user_groups/${group}/members/99999`)).body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  t.same((await hamlet.call('GET', `/user_groups/${group}/members`, { direct_member_only: 'yes' })).status, 400, 'a non-boolean flag is refused');
});
