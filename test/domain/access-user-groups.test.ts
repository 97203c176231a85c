/**
 * The user-group and whole-endpoint role parts of the access family (Zulip's
 * zerver/lib/user_groups.py `access_user_group_for_update`, `user_has_permission_for_group_setting`;
 * zerver/decorator.py `require_realm_admin`): each function denies what Zulip denies — guests (even
 * when a setting names them, for `allow_everyone_group=False` settings), deactivated users, bots
 * outside the settings, system groups, unknown (e.g. another realm's) ids — and the handlers that
 * use them leave the state unchanged on refusal (`rejects`).
 */
import t from 'tap';
import { decide, rejects, run, smallRealm } from '../support/realm-fixture.js';
import {
  accessUserGroupById,
  accessUserGroupForMembers,
  accessUserGroupForUpdate,
  hasRealmPermission,
  requireRealmAdmin,
} from '../../src/domain/access.js';
import { systemGroupId } from '../../src/domain/groups.js';
import type { Result } from '../../src/errors.js';
import type { Command } from '../../src/realm/commands.js';

const message = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.message);
const members = (...ids: number[]) => ({ direct_members: ids, direct_subgroups: [] });

/** smallRealm plus a group "team" (members: member, guest) whose settings name the guest and the bot. */
function groupRealm() {
  const realm = smallRealm();
  const { state, ctx, ids } = realm;
  const groupId = run(state, {
    type: 'create_user_group', actorId: ids.member, name: 'team', description: '', members: [ids.member, ids.guest], subgroups: [],
    settings: {
      can_manage_group: members(ids.member, ids.guest),
      can_add_members_group: members(ids.guest, ids.bot),
      can_join_group: members(ids.guest, ids.other),
      can_remove_members_group: members(ids.guest),
    },
  }, ctx).groupId;
  return { ...realm, groupId, user: (id: number) => state.users.get(id)! };
}

t.test('accessUserGroupForUpdate: who may change a group', async (t) => {
  const { state, ctx, ids, groupId, user } = groupRealm();
  t.equal(message(accessUserGroupForUpdate(state, user(ids.member), groupId, 'can_manage_group')), 'ok', 'can_manage_group member');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.owner), groupId, 'can_manage_group')), 'ok', 'can_manage_all_groups (owners)');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.guest), groupId, 'can_manage_group')), 'Insufficient permission', 'guest named by the setting');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.admin), groupId, 'can_manage_group')), 'Insufficient permission', 'administrators are not owners');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.bot), groupId, 'can_add_members_group')), 'ok', 'a bot named by the setting');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.bot), groupId, 'can_manage_group')), 'Insufficient permission', 'bot outside the setting');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.other), groupId, 'can_add_members_group')), 'Insufficient permission');
  // System groups are never changed, not even by owners; unknown ids (another realm's) are invalid.
  t.equal(message(accessUserGroupForUpdate(state, user(ids.owner), systemGroupId(state, 'role:members'), 'can_manage_group')), 'Insufficient permission');
  const unknown = Math.max(...state.groups.keys()) + 1;
  t.equal(message(accessUserGroupForUpdate(state, user(ids.owner), unknown, 'can_manage_group')), 'Invalid user group');
  t.equal(message(accessUserGroupById(state, unknown)), 'Invalid user group');
  // A deactivated actor is refused even where a setting names them.
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.member }, ctx);
  t.equal(message(accessUserGroupForUpdate(state, user(ids.member), groupId, 'can_manage_group')), 'Insufficient permission', 'deactivated actor');
  // Deactivated groups: only with allowDeactivated.
  run(state, { type: 'deactivate_user_group', actorId: ids.owner, groupId }, ctx);
  t.equal(message(accessUserGroupById(state, groupId)), 'User group is deactivated.');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.owner), groupId, 'can_manage_group')), 'User group is deactivated.');
  t.equal(message(accessUserGroupForUpdate(state, user(ids.owner), groupId, 'can_manage_group', { allowDeactivated: true })), 'ok');
});

t.test('accessUserGroupForMembers: joining and leaving oneself', async (t) => {
  const { state, ids, groupId, user } = groupRealm();
  t.equal(message(accessUserGroupForMembers(state, user(ids.other), groupId, 'add', [ids.other])), 'ok', 'can_join_group: join');
  t.equal(message(accessUserGroupForMembers(state, user(ids.other), groupId, 'add', [ids.admin])), 'Insufficient permission', 'joining is not adding others');
  t.equal(message(accessUserGroupForMembers(state, user(ids.guest), groupId, 'add', [ids.guest])), 'Insufficient permission', 'guests never join (allow_everyone_group=False)');
  t.equal(message(accessUserGroupForMembers(state, user(ids.guest), groupId, 'remove', [ids.guest])), 'ok', 'can_leave_group (role:everyone) lets a guest leave');
  t.equal(message(accessUserGroupForMembers(state, user(ids.guest), groupId, 'remove', [ids.member])), 'Insufficient permission', 'guest removing another');
  t.equal(message(accessUserGroupForMembers(state, user(ids.bot), groupId, 'add', [ids.other])), 'ok', 'bot in can_add_members_group');
});

t.test('hasRealmPermission: guests never hold allow_everyone_group=False realm settings', async (t) => {
  const { state, ctx, ids, user } = groupRealm();
  t.equal(hasRealmPermission(state, user(ids.member), 'can_create_groups'), true);
  t.equal(hasRealmPermission(state, user(ids.guest), 'can_create_groups'), false);
  state.settings.groups.can_create_groups = members(ids.guest, ids.other);
  t.equal(hasRealmPermission(state, user(ids.guest), 'can_create_groups'), false, 'named, still refused');
  t.equal(hasRealmPermission(state, user(ids.member), 'can_create_groups'), false, 'not named');
  t.equal(hasRealmPermission(state, user(ids.other), 'can_create_groups'), true);
  t.equal(hasRealmPermission(state, user(ids.other), 'no_such_setting'), false);
  const create = (actorId: number): Command => ({ type: 'create_user_group', actorId, name: `g${actorId}`, description: '', members: [], subgroups: [], settings: {} });
  rejects(t, state, create(ids.guest), ctx, 'Insufficient permission');
  rejects(t, state, create(ids.member), ctx, 'Insufficient permission');
  t.ok(decide(state, create(ids.other), ctx).ok, 'the named member creates');
  // Was: channel creation, bot creation and register's can_create_streams tested the group alone.
  state.settings.groups.can_create_public_channel_group = members(ids.guest, ids.other);
  t.equal(hasRealmPermission(state, user(ids.guest), 'can_create_public_channel_group'), false, 'guest named for channel creation');
  state.settings.groups.can_create_bots_group = members(ids.guest);
  t.equal(hasRealmPermission(state, user(ids.guest), 'can_create_bots_group'), false, 'guest named for bot creation');
  // A realm-level setting a guest may hold (allow_everyone_group=True) is not refused to them.
  t.equal(hasRealmPermission(state, user(ids.guest), 'can_resolve_topics_group'), true);
});

t.test('user-group handlers refuse through the family, state unchanged', async (t) => {
  const { state, ctx, ids, groupId } = groupRealm();
  rejects(t, state, { type: 'update_user_group', actorId: ids.guest, groupId, name: 'renamed' }, ctx, 'Insufficient permission');
  rejects(t, state, { type: 'update_user_group', actorId: ids.owner, groupId: systemGroupId(state, 'role:members'), name: 'x' }, ctx, 'Insufficient permission');
  rejects(t, state, { type: 'deactivate_user_group', actorId: ids.guest, groupId }, ctx, 'Insufficient permission');
  const membership = (actorId: number, addMembers: number[], removeMembers: number[] = []): Command & { type: 'update_user_group_membership' } => ({
    type: 'update_user_group_membership', actorId, groupId, addMembers, removeMembers, addSubgroups: [], removeSubgroups: [],
  });
  rejects(t, state, membership(ids.guest, [ids.other]), ctx, 'Insufficient permission');
  rejects(t, state, membership(ids.other, [ids.admin]), ctx, 'Insufficient permission');
  rejects(t, state, membership(ids.guest, [], [ids.member]), ctx, 'Insufficient permission');
  const addSubgroup = (actorId: number): Command => ({ ...membership(actorId, []), addSubgroups: [systemGroupId(state, 'role:owners')] });
  rejects(t, state, addSubgroup(ids.guest), ctx, 'Insufficient permission');
  t.ok(decide(state, addSubgroup(ids.member), ctx).ok, 'the manager adds a subgroup');
  t.ok(decide(state, membership(ids.other, [ids.other]), ctx).ok, 'a member of can_join_group joins');
});

t.test('requireRealmAdmin and the administrator-only handlers', async (t) => {
  const { state, ctx, ids, user } = groupRealm();
  t.equal(message(requireRealmAdmin(user(ids.admin))), 'ok');
  t.equal(message(requireRealmAdmin(user(ids.owner))), 'ok');
  t.equal(message(requireRealmAdmin(user(ids.member))), 'Must be an organization administrator');
  t.equal(message(requireRealmAdmin(user(ids.guest))), 'Must be an organization administrator');
  t.equal(message(requireRealmAdmin(user(ids.bot))), 'Must be an organization administrator');
  t.equal(message(requireRealmAdmin(undefined)), 'No such user', 'unknown (another realm\'s) id');
  const linkifier = (actorId: number): Command => ({ type: 'add_linkifier', actorId, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://x.example/{id}' });
  const field = (actorId: number): Command => ({
    type: 'create_custom_profile_field', actorId, fieldType: 1, name: 'Phone', hint: '', fieldData: {},
    displayInProfileSummary: false, required: false, editableByUser: true,
  });
  for (const id of [ids.member, ids.guest, ids.bot]) {
    rejects(t, state, linkifier(id), ctx, 'Must be an organization administrator');
    rejects(t, state, field(id), ctx, 'Insufficient permission');
  }
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.admin }, ctx);
  t.equal(message(requireRealmAdmin(user(ids.admin))), 'No such user', 'deactivated administrator');
  rejects(t, state, linkifier(ids.admin), ctx, 'No such user');
  t.ok(decide(state, linkifier(ids.owner), ctx).ok, 'an active owner adds a linkifier');
});
