/**
 * `update_realm` (https://zulip.com/api/update-realm; Zulip's zerver/views/realm.py `update_realm`):
 * permission rules (administrator; owner-only settings), every validation error with "state
 * unchanged", event kinds (`update` vs `update_dict`) and order, the reply, unchanged values
 * skipped, and the record surviving a snapshot round trip and replay.
 */
import t from 'tap';
import { decide, field, fingerprint, run, smallRealm, rejects } from '../../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { evolve } from '../../../src/domain/evolve.js';
import { systemGroupId } from '../../../src/domain/group-permissions.js';
import { realmGroupSetting } from '../../../src/domain/group-permissions.js';
import type { RealmSettingsRequest, UpdateRealm } from '../../../src/realm/handlers/realm-update.js';

const patch = (actorId: number, settings: RealmSettingsRequest): UpdateRealm => ({ type: 'update_realm', actorId, settings });

t.test('permissions: administrators; owners for the owner-only settings', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const members = systemGroupId(state, 'role:members');
  rejects(t, state, patch(ids.member, { name: 'X' }), ctx, 'Must be an organization administrator');
  rejects(t, state, patch(ids.guest, { name: 'X' }), ctx, 'Must be an organization administrator');
  rejects(t, state, patch(ids.admin, { message_retention_days: 30 }), ctx, 'Must be an organization owner');
  rejects(t, state, patch(ids.admin, { waiting_period_threshold: 3 }), ctx, 'Must be an organization owner');
  for (const name of ['create_multiuse_invite_group', 'can_create_groups', 'can_invite_users_group', 'can_manage_all_groups']) {
    rejects(t, state, patch(ids.admin, { groups: { [name]: { new: members } } }), ctx, 'Must be an organization owner');
  }
  const denied = decide(state, patch(ids.member, { name: 'X' }), ctx);
  t.equal(!denied.ok && denied.error.code, 'UNAUTHORIZED_PRINCIPAL');
  // Administrators may change the rest.
  t.same(run(state, patch(ids.admin, { name: 'New Name', allow_message_editing: false }), ctx), { name: 'updated', allow_message_editing: false });
  t.equal(state.settings.name, 'New Name');
  t.equal(state.settings.allowMessageEditing, false);
});

t.test('validation errors leave the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const nobody = systemGroupId(state, 'role:nobody');
  const everyone = systemGroupId(state, 'role:everyone');
  const internet = systemGroupId(state, 'role:internet');
  const members = systemGroupId(state, 'role:members');
  const cases: Array<[RealmSettingsRequest, string]> = [
    [{ default_language: 'klingon' }, "Invalid language 'klingon'"],
    [{ message_retention_days: 0 }, "Bad value for 'message_retention_days': 0"],
    [{ message_retention_days: 'forever' }, "Bad value for 'message_retention_days': forever"],
    [{ name: 'n'.repeat(41) }, 'name is too long (limit: 40 characters)'],
    [{ description: 'd'.repeat(1001) }, 'description is too long (limit: 1000 characters)'],
    [{ waiting_period_threshold: -1 }, 'waiting_period_threshold is too small'],
    [{ topics_policy: 'empty_topic_only' }, 'Invalid topics_policy'],
    [{ message_edit_history_visibility_policy: 'some' }, 'Invalid message_edit_history_visibility_policy'],
    [{ message_content_edit_limit_seconds: 0 }, "Bad value for 'message_content_edit_limit_seconds': 0"],
    [{ move_messages_within_stream_limit_seconds: 'forever' }, "Bad value for 'move_messages_within_stream_limit_seconds': forever"],
    [{ groups: { can_fly_group: { new: members } } }, 'Invalid setting can_fly_group'],
    [{ groups: { can_create_public_channel_group: members } }, 'can_create_public_channel_group is not a valid group-setting update'],
    [{ groups: { can_create_public_channel_group: { new: 99999 } } }, 'Invalid user group ID'],
    [{ groups: { can_create_public_channel_group: { new: everyone } } }, "'can_create_public_channel_group' setting cannot be set to 'role:everyone' group."],
    [{ groups: { can_create_public_channel_group: { new: internet } } }, "'can_create_public_channel_group' setting cannot be set to 'role:internet' group."],
    [{ groups: { can_access_all_users_group: { new: nobody } } }, "'can_access_all_users_group' setting cannot be set to 'role:nobody' group."],
    [{ groups: { can_manage_billing_group: { new: { direct_members: [], direct_subgroups: [] } } } }, "'can_manage_billing_group' setting cannot be set to 'role:nobody' group."],
    [{ groups: { can_access_all_users_group: { new: { direct_members: [ids.member], direct_subgroups: [] } } } }, "'can_access_all_users_group' must be a system user group."],
    [{ groups: { can_create_web_public_channel_group: { new: members } } }, "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group."],
    [{ groups: { can_create_public_channel_group: { new: nobody, old: nobody } } }, "'old' value does not match the expected value."],
    [{ new_stream_announcements_stream_id: 99999 }, 'Invalid channel ID'],
    [{ moderation_request_channel_id: 99999 }, 'Invalid channel ID'],
    // A valid change before an invalid one is not applied either (all or nothing).
    [{ name: 'Fine', topics_policy: 'bad' }, 'Invalid topics_policy'],
  ];
  for (const [settings, msg] of cases) rejects(t, state, patch(ids.owner, settings), ctx, msg);
  t.equal(state.settings.name, 'Test Org');
  // Zulip's allow_realm_admin: an administrator may pick a private channel without being subscribed.
  t.same(run(state, patch(ids.admin, { moderation_request_channel_id: streams.secret }), ctx), { moderation_request_channel_id: streams.secret });
  t.equal(state.settings.moderationRequestChannelId, streams.secret);
  t.same(run(state, patch(ids.admin, { moderation_request_channel_id: -1 }), ctx), { moderation_request_channel_id: -1 });
  t.equal(state.settings.moderationRequestChannelId, null);
});

t.test('events: kinds, order, recipients; unchanged values skipped', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const admins = systemGroupId(state, 'role:administrators');
  const result = decide(state, patch(ids.owner, {
    name: 'Acme',
    message_content_edit_limit_seconds: 'unlimited',
    message_content_delete_limit_seconds: 3600,
    allow_edit_history: false,
    message_retention_days: 'unlimited',
    topics_policy: 'disable_empty_topic',
    groups: { can_create_public_channel_group: { new: admins, old: realmGroupSetting(state, 'can_create_public_channel_group') } },
    new_stream_announcements_stream_id: streams.general,
    signup_announcements_stream_id: -1,
  }), ctx);
  if (!result.ok) throw result.error;
  const { records, events, reply } = result.value;
  t.same(events.map((e) => [field(e, 'op'), field(e, 'op') === 'update' ? field(e, 'property') : Object.keys(field(e, 'data') as object)[0]]), [
    ['update', 'message_content_delete_limit_seconds'],
    ['update_dict', 'message_content_edit_limit_seconds'],
    ['update', 'name'],
    ['update', 'message_edit_history_visibility_policy'],
    ['update', 'allow_edit_history'],
    ['update', 'topics_policy'],
    ['update_dict', 'can_create_public_channel_group'],
    ['update', 'new_stream_announcements_stream_id'],
  ], 'retention unchanged (already unlimited) and signup channel unchanged (already none): no events');
  t.same(events[1]!.payload, { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: null } });
  t.same(events[6]!.payload, { type: 'realm', op: 'update_dict', property: 'default', data: { can_create_public_channel_group: admins } });
  t.same([...events[0]!.userIds].sort(), Object.values(ids).sort(), 'every active user, bots included');
  t.same(reply, {
    message_content_delete_limit_seconds: 3600,
    message_content_edit_limit_seconds: null,
    name: 'updated',
    message_edit_history_visibility_policy: 'updated',
    allow_edit_history: false,
    topics_policy: 'updated',
    can_create_public_channel_group: admins,
    new_stream_announcements_stream_id: streams.general,
  });
  t.equal(records.length, 1);

  // Applied, snapshot round trip and replay agree.
  const before = toSnapshot(state);
  const base = fromSnapshot(1, before.core, before.columns);
  for (const r of records) evolve(state, r);
  t.equal(state.settings.messageContentEditLimitSeconds, null);
  t.equal(state.settings.editHistoryVisibilityPolicy, 'none');
  t.equal(state.settings.allowEditHistory, false);
  t.equal(state.settings.groups.can_create_public_channel_group, admins);
  const after = toSnapshot(state);
  const restored = fromSnapshot(1, after.core, after.columns);
  t.equal(fingerprint(restored), fingerprint(state), 'snapshot round trip');
  t.same(restored.settings, state.settings, 'settings restored');
  for (const r of records) evolve(base, r);
  t.equal(fingerprint(base), fingerprint(state), 'replay');

  // Same values again: nothing recorded, nothing sent, empty reply.
  const again = decide(state, patch(ids.owner, { name: 'Acme', topics_policy: 'disable_empty_topic', groups: { can_create_public_channel_group: { new: admins } } }), ctx);
  t.ok(again.ok && again.value.records.length === 0 && again.value.events.length === 0);
  t.same(again.ok && again.value.reply, {});
  // Retention: days on the record, -1 on the wire for unlimited.
  const retention = decide(state, patch(ids.owner, { message_retention_days: 30 }), ctx);
  t.same(retention.ok && retention.value.events[0]!.payload, { type: 'realm', op: 'update', property: 'message_retention_days', value: 30 });
});
