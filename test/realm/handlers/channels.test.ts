/**
 * create_channel / update_channel / archive_channel handlers (https://zulip.com/api/update-stream,
 * https://zulip.com/api/create-channel): records, events, errors leave state unchanged.
 */
import t from 'tap';
import { smallRealm, decide, field, run, fingerprint } from '../../support/realm-fixture.js';
import { systemGroupId } from '../../../src/domain/groups.js';
import type { Command, CreateChannel } from '../../../src/realm/commands.js';

const create = (actorId: number, extra: Record<string, unknown> = {}): CreateChannel => ({
  type: 'create_channel', actorId, name: 'fresh', subscriberIds: [actorId], description: '', announce: false,
  inviteOnly: false, isWebPublic: false, isDefault: false, folderId: null, groups: {}, ...extra,
} as CreateChannel);

t.test('errors leave the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const fp = fingerprint(state);
  const nobody = systemGroupId(state, 'role:nobody');
  const internet = systemGroupId(state, 'role:internet');
  const cases: Array<[Command, string]> = [
    [create(ids.member, { name: 'GENERAL' }), "Channel 'GENERAL' already exists"],
    [create(ids.guest), 'Not allowed for guest users'],
    [create(ids.member, { groups: { can_send_message_group: internet } }), "'can_send_message_group' setting cannot be set to 'role:internet' group."],
    [create(ids.member, { groups: { can_send_message_group: { direct_members: [1], direct_subgroups: [], extra: 1 } } }), 'can_send_message_group is not a valid group-setting value'],
    [create(ids.member, { groups: { can_fly_group: nobody } }), 'Invalid setting can_fly_group'],
    [{ type: 'update_channel', actorId: ids.admin, streamId: streams.general, groups: { can_send_message_group: { new: nobody, old: nobody } } }, "'old' value does not match the expected value."],
    [{ type: 'update_channel', actorId: ids.other, streamId: streams.secret, description: 'x', groups: {} }, 'Invalid channel ID'],
    [{ type: 'update_channel', actorId: ids.guest, streamId: streams.general, description: 'x', groups: {} }, 'Invalid channel ID'],
    [{ type: 'update_channel', actorId: ids.member, streamId: streams.general, description: 'x', groups: {} }, 'You do not have permission to administer this channel.'],
    [{ type: 'archive_channel', actorId: ids.member, streamId: streams.general }, 'You do not have permission to administer this channel.'],
    [{ type: 'archive_channel', actorId: ids.admin, streamId: 999 }, 'Invalid channel ID'],
  ];
  for (const [command, msg] of cases) {
    const result = decide(state, command, ctx);
    t.equal(result.ok ? 'ok' : result.error.message, msg, JSON.stringify(command));
    t.equal(fingerprint(state), fp, 'state unchanged');
  }
});

t.test('create: records, defaults, normalization and events', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const admins = systemGroupId(state, 'role:administrators');
  const result = decide(state, create(ids.member, { subscriberIds: [ids.member, ids.other], groups: {
    can_send_message_group: { direct_members: [], direct_subgroups: [admins] },
    can_resolve_topics_group: { direct_members: [ids.other, ids.member, ids.other], direct_subgroups: [] },
  } }), ctx);
  t.ok(result.ok);
  if (!result.ok) return;
  const [created] = result.value.records as any[];
  t.equal(created.groups.can_send_message_group, admins, 'single-subgroup object becomes the group id');
  t.same(created.groups.can_resolve_topics_group, { direct_members: [ids.member, ids.other].sort((a, b) => a - b), direct_subgroups: [] });
  t.same(created.groups.can_administer_channel_group, { direct_members: [ids.member], direct_subgroups: [] }, 'creator administers');
  const types = result.value.events.map((e) => `${e.payload.type}/${String(field(e, 'op'))}`);
  t.same(types, ['stream/create', 'subscription/add', 'subscription/add', 'subscription/peer_add']);
  t.notOk(result.value.events[0]!.userIds.includes(ids.guest), 'guests do not see public channels');
  const priv = decide(state, create(ids.member, { name: 'p', inviteOnly: true }), ctx);
  t.ok(priv.ok);
  if (priv.ok) t.same([...priv.value.events[0]!.userIds].sort(), [ids.owner, ids.admin, ids.member].sort(), 'private: subscribers and admins');
});

t.test('update with {new, old}; a channel administrator may update; archive', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const id = run(state, create(ids.member), ctx).streamId;
  const nobody = systemGroupId(state, 'role:nobody');
  const everyone = systemGroupId(state, 'role:everyone');
  run(state, { type: 'update_channel', actorId: ids.member, streamId: id, groups: { can_send_message_group: { new: nobody, old: everyone } } }, ctx);
  t.equal(state.streams.get(id)!.groups.can_send_message_group, nobody);
  run(state, { type: 'update_channel', actorId: ids.member, streamId: id, groups: { can_send_message_group: { new: everyone, old: { direct_members: [], direct_subgroups: [nobody] } } } }, ctx);
  t.equal(state.streams.get(id)!.groups.can_send_message_group, everyone, '`old` matches in normalized object form');
  run(state, { type: 'update_channel', actorId: ids.member, streamId: id, newName: 'FRESH', groups: {} }, ctx);
  t.equal(state.streams.get(id)!.name, 'FRESH', 'a pure case change is allowed');
  t.equal(state.streamsByName.get('fresh'), id);
  // Give the administration to `other` only: `member` loses it.
  run(state, { type: 'update_channel', actorId: ids.member, streamId: id, groups: { can_administer_channel_group: { new: { direct_members: [ids.other], direct_subgroups: [] } } } }, ctx);
  const denied = decide(state, { type: 'archive_channel', actorId: ids.member, streamId: id }, ctx);
  t.equal(denied.ok ? 'ok' : denied.error.message, 'You do not have permission to administer this channel.');
  run(state, { type: 'archive_channel', actorId: ids.other, streamId: id }, ctx);
  t.equal(state.streams.get(id)!.isArchived, true);
});

t.test('realm-level creation permissions', async (t) => {
  const { state, ctx, ids } = smallRealm();
  // Test-only: no realm-settings command exists yet, so the realm groups are set directly.
  state.settings.groups.can_create_private_channel_group = systemGroupId(state, 'role:administrators');
  state.settings.groups.can_create_public_channel_group = systemGroupId(state, 'role:moderators');
  const fp = fingerprint(state);
  for (const command of [create(ids.member, { inviteOnly: true }), create(ids.member)]) {
    const result = decide(state, command, ctx);
    t.equal(result.ok ? 'ok' : result.error.message, 'Insufficient permission');
    t.equal(fingerprint(state), fp);
  }
  t.ok(decide(state, create(ids.admin, { inviteOnly: true }), ctx).ok, 'administrators may create private channels');
  const web = decide(state, create(ids.owner, { isWebPublic: true }), ctx);
  t.equal(web.ok ? 'ok' : web.error.message, 'Web-public channels are not enabled.');
});

t.test('subscribing others needs the realm can_add_subscribers_group', async (t) => {
  const { state, ctx, ids } = smallRealm();
  state.settings.groups.can_add_subscribers_group = systemGroupId(state, 'role:administrators'); // test-only
  const result = decide(state, create(ids.member, { subscriberIds: [ids.member, ids.other] }), ctx);
  t.equal(result.ok ? 'ok' : result.error.message, 'Insufficient permission');
  t.ok(decide(state, create(ids.member, { subscriberIds: [ids.member] }), ctx).ok, 'self only is fine');
});

t.test('replaying the records reproduces the state', async (t) => {
  const { emptyRealmState } = await import('../../../src/domain/realm-state.js');
  const { setupRunner } = await import('../../../src/realm/apply-command.js');
  const { evolve } = await import('../../../src/domain/evolve.js');
  const { fixedContext } = await import('../../support/realm-fixture.js');
  const { Role } = await import('../../../src/domain/realm-state.js');
  const records: any[] = [];
  const live = emptyRealmState(1);
  const runner = setupRunner(live, fixedContext(), records);
  runner({ type: 'create_realm', subdomain: '', name: 'R', description: '' });
  const owner = runner({ type: 'create_user', email: 'o@x.com', fullName: 'Olga Owner', role: Role.owner, passwordHash: null, isBot: false, botType: null, botOwnerId: null, timezone: '' }).userId;
  const id = runner(create(owner, { description: 'first' }) as any).streamId;
  runner({ type: 'update_channel', actorId: owner, streamId: id, newName: 'Renamed', description: 'second', isPrivate: true, messageRetentionDays: 'unlimited', topicsPolicy: 'disable_empty_topic', groups: { can_send_message_group: { new: { direct_members: [owner], direct_subgroups: [] } } } });
  runner({ type: 'archive_channel', actorId: owner, streamId: id });
  const replayed = emptyRealmState(1);
  for (const record of structuredClone(records)) evolve(replayed, record);
  t.equal(fingerprint(replayed), fingerprint(live));
  t.match(replayed.streams.get(id), { name: 'Renamed', description: 'second', inviteOnly: true, historyPublicToSubscribers: false, messageRetentionDays: -1, isArchived: true, topicsPolicy: 'disable_empty_topic' });
  t.equal(replayed.streamsByName.get('renamed'), id);
  t.notOk(replayed.streamsByName.has('fresh'));
});

t.test('create_channel by the system (actorId null): no permission checks, no notices', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const system = { ...create(ids.member), actorId: null, name: 'setup', inviteOnly: true, isDefault: false, subscriberIds: [ids.guest, ids.other] } as Command;
  const asGuest = { ...create(ids.guest), name: 'setup' } as Command;
  const guestResult = decide(state, asGuest, ctx);
  t.equal(!guestResult.ok && guestResult.error.message, 'Not allowed for guest users', 'a guest may not create channels');
  const result = decide(state, system, ctx);
  t.ok(result.ok, 'the system may');
  if (!result.ok) return;
  t.equal(result.value.followUps?.length ?? 0, 0, 'no Notification Bot notice without a creator');
  const [created] = result.value.records as any[];
  t.equal(created.creatorId, null);
  t.equal(created.historyPublicToSubscribers, false, 'private default: protected history');
  run(state, system, ctx);
  const again = decide(state, { ...system, name: 'SETUP' } as Command, ctx);
  t.equal(!again.ok && again.error.message, "Channel 'SETUP' already exists", 'the same wording as real requests');
  const real = decide(state, create(ids.member), ctx);
  t.ok(real.ok && (real.value.followUps?.length ?? 0) > 0, 'a real creator gets the Notification Bot notice');
});
