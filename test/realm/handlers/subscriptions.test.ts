/** `update_subscriptions`, `set_subscription_properties` and default channels for new users. */
import t from 'tap';
import { decide, field, fingerprint, run, smallRealm } from '../../support/realm-fixture.js';
import type { CreateUser, SetSubscriptionProperties, UpdateSubscriptions } from '../../../src/realm/commands.js';
import { STREAM_COLORS } from '../../../src/domain/streams.js';
import { systemGroupId } from '../../../src/domain/groups.js';
import { setupRunner } from '../../../src/realm/apply-command.js';
import { evolve } from '../../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import type { RealmRecord } from '../../../src/domain/records.js';

const sub = (actorId: number, over: Partial<UpdateSubscriptions>): UpdateSubscriptions => ({
  type: 'update_subscriptions', actorId, add: [], remove: [], inviteOnly: false, isWebPublic: false, isDefault: false,
  authorizationErrorsFatal: true, ...over,
});
const props = (actorId: number, changes: SetSubscriptionProperties['changes']): SetSubscriptionProperties => ({
  type: 'set_subscription_properties', actorId, changes,
});

t.test('subscribing self to an existing public channel', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const reply = run(state, sub(ids.other, { add: [{ name: 'EMPTY' }, { name: 'general' }] }), ctx);
  t.same(reply, { subscribed: { [String(ids.other)]: ['empty'] }, already_subscribed: { [String(ids.other)]: ['general'] } });
  t.ok(state.subscriptions.get(streams.empty)!.has(ids.other));
  t.ok(state.userStreams.get(ids.other)!.has(streams.empty));
});

t.test('events of a subscription', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const result = decide(state, sub(ids.other, { add: [{ name: 'empty', color: '#abcdef' }] }), ctx);
  if (!result.ok) throw result.error;
  const { events, records } = result.value;
  t.same(records, [{ type: 'subscriptions_added', v: 1, streamId: streams.empty, subscriptions: [{ userId: ids.other, color: '#abcdef' }] }]);
  const add = events.find((e) => field(e, 'op') === 'add')!;
  t.same(add.userIds, [ids.other]);
  t.match(field(add, 'subscriptions'), [{ stream_id: streams.empty, color: '#abcdef', subscribers: [ids.other], subscriber_count: 1 }]);
  const peer = events.find((e) => field(e, 'op') === 'peer_add')!;
  t.same(peer.payload, { type: 'subscription', op: 'peer_add', stream_ids: [streams.empty], user_ids: [ids.other] });
  t.notOk(peer.userIds.includes(ids.other));
  t.notOk(peer.userIds.includes(ids.guest), 'guests do not see public channels they are not in');
  t.ok(peer.userIds.includes(ids.owner));
});

t.test('creating channels by subscribing', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const result = decide(state, sub(ids.member, { add: [{ name: 'new one', description: 'line\nbreak' }, { name: 'new two' }], principals: [ids.member, ids.other] }), ctx);
  if (!result.ok) throw result.error;
  const { records, events, reply } = result.value;
  t.same(records.map((r) => r.type), ['stream_created', 'stream_created', 'subscriptions_added', 'subscriptions_added']);
  t.match(records[0], { name: 'new one', description: 'line break', creatorId: ids.member, historyPublicToSubscribers: true, id: state.nextIds.stream });
  t.match(records[1], { name: 'new two', id: state.nextIds.stream + 1, recipientId: state.nextIds.recipient + 1 });
  t.same(reply.subscribed, { [String(ids.member)]: ['new one', 'new two'], [String(ids.other)]: ['new one', 'new two'] });
  const creates = events.filter((e) => e.payload.type === 'stream');
  t.equal(creates.length, 2);
  t.match(creates[0]!.payload, { op: 'create', streams: [{ name: 'new one', subscriber_count: 0 }] });
  run(state, sub(ids.member, { add: [{ name: 'new one' }, { name: 'new two' }], principals: [ids.member, ids.other] }), ctx);
  const one = [...state.streams.values()].find((s) => s.name === 'new one')!;
  const two = [...state.streams.values()].find((s) => s.name === 'new two')!;
  t.equal(state.subscriptions.get(one.id)!.size, 2);
  t.not(state.subscriptions.get(one.id)!.get(ids.member)!.color, state.subscriptions.get(two.id)!.get(ids.member)!.color, 'distinct colors within one command');
  t.same(one.groups.can_administer_channel_group, { direct_members: [ids.member], direct_subgroups: [] });
});

t.test('private channels and history', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, sub(ids.member, { add: [{ name: 'hidden' }], inviteOnly: true }), ctx);
  const hidden = [...state.streams.values()].find((s) => s.name === 'hidden')!;
  t.ok(hidden.inviteOnly);
  t.notOk(hidden.historyPublicToSubscribers);
  run(state, sub(ids.member, { add: [{ name: 'shared' }], inviteOnly: true, historyPublicToSubscribers: true }), ctx);
  t.ok([...state.streams.values()].find((s) => s.name === 'shared')!.historyPublicToSubscribers);
});

t.test('joining rules and errors leave the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const before = fingerprint(state);
  const errors: Array<[UpdateSubscriptions, string]> = [
    [sub(ids.other, { add: [{ name: 'secret' }] }), 'Unable to access channel (secret).'],
    [sub(ids.guest, { add: [{ name: 'general' }] }), 'Unable to access channel (general).'],
    [sub(ids.guest, { add: [{ name: 'brand new' }] }), 'Insufficient permission'],
    [sub(ids.member, { add: [{ name: 'general' }], principals: ['nobody@example.com'] }), 'No such user'],
    [sub(ids.member, { add: [{ name: 'general' }], principals: [999] }), 'No such user'],
    [sub(ids.member, { add: [{ name: '  ' }] }), "Channel name can't be empty!"],
    [sub(ids.member, { add: [{ name: 'x'.repeat(61) }] }), 'Channel name too long (limit: 60 characters).'],
    [sub(ids.member, { add: [{ name: 'a\u0000b' }] }), 'Invalid character in channel name, at position 2!'],
    [sub(ids.member, { add: [{ name: 'brand new' }], isDefault: true }), 'Insufficient permission'],
    [sub(ids.admin, { add: [{ name: 'brand new' }], isDefault: true, inviteOnly: true }), 'A default channel cannot be private.'],
    [sub(ids.member, { add: [{ name: 'brand new' }], isWebPublic: true }), 'Insufficient permission'],
    [sub(ids.member, { remove: ['nope', 'secret2'] }), 'Channel(s) (nope, secret2) do not exist'],
    [sub(ids.other, { remove: ['secret'] }), 'Channel(s) (secret) do not exist'],
    [sub(ids.other, { remove: ['general'], principals: [ids.member] }), 'Insufficient permission'],
  ];
  for (const [cmd, msg] of errors) {
    const r = decide(state, cmd, ctx);
    t.notOk(r.ok, msg);
    if (!r.ok) t.equal(r.error.message, msg);
  }
  t.equal(fingerprint(state), before, 'state unchanged');

  const soft = run(state, sub(ids.other, { add: [{ name: 'secret' }, { name: 'empty' }], authorizationErrorsFatal: false }), ctx);
  t.same(soft, { subscribed: { [String(ids.other)]: ['empty'] }, already_subscribed: {}, unauthorized: ['secret'] });

  // can_subscribe_group lets a member join a private channel; admins may always.
  state.streams.get(streams.secret)!.groups.can_subscribe_group = { direct_members: [ids.other], direct_subgroups: [] };
  t.match(run(state, sub(ids.other, { add: [{ name: 'secret' }] }), ctx), { subscribed: { [String(ids.other)]: ['secret'] } });
  t.match(run(state, sub(ids.admin, { add: [{ name: 'secret' }] }), ctx), { subscribed: { [String(ids.admin)]: ['secret'] } });
});

t.test('subscribing others', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  // Realm can_add_subscribers_group (members) on a public channel.
  t.match(run(state, sub(ids.member, { add: [{ name: 'empty' }], principals: ['guest@example.com'] }), ctx), { subscribed: { [String(ids.guest)]: ['empty'] } });
  // Private channel: the realm group needs a subscription; the channel's group does not.
  const before = fingerprint(state);
  const denied = decide(state, sub(ids.other, { add: [{ name: 'secret' }], principals: [ids.guest] }), ctx);
  t.notOk(denied.ok);
  if (!denied.ok) t.equal(denied.error.message, 'Unable to access channel (secret).');
  t.equal(fingerprint(state), before);
  state.streams.get(streams.secret)!.groups.can_add_subscribers_group = { direct_members: [ids.other], direct_subgroups: [] };
  t.match(run(state, sub(ids.other, { add: [{ name: 'secret' }], principals: [ids.guest] }), ctx), { subscribed: { [String(ids.guest)]: ['secret'] } });
  // Realm setting to nobody: members can no longer add others to public channels.
  state.settings.groups.can_add_subscribers_group = systemGroupId(state, 'role:nobody');
  const r = decide(state, sub(ids.member, { add: [{ name: 'general' }], principals: [ids.guest] }), ctx);
  t.notOk(r.ok);
  t.match(run(state, sub(ids.admin, { add: [{ name: 'general' }], principals: [ids.guest] }), ctx), { subscribed: { [String(ids.guest)]: ['general'] } });
});

t.test('unsubscribing keeps history', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const sent = run(state, { type: 'send_message', senderId: ids.owner, messageType: 'stream', to: 'general', topic: 't', content: 'hi', client: 'test' }, ctx);
  const result = decide(state, sub(ids.member, { remove: ['general', 'empty'] }), ctx);
  if (!result.ok) throw result.error;
  t.same(result.value.reply, { removed: ['general'], not_removed: ['empty'] });
  t.same(result.value.records, [{ type: 'subscriptions_removed', v: 1, streamId: streams.general, userIds: [ids.member] }]);
  const remove = result.value.events.find((e) => field(e, 'op') === 'remove')!;
  t.same(remove, { userIds: [ids.member], payload: { type: 'subscription', op: 'remove', subscriptions: [{ name: 'general', stream_id: streams.general }] } });
  const peer = result.value.events.find((e) => field(e, 'op') === 'peer_remove')!;
  t.notOk(peer.userIds.includes(ids.member));
  run(state, sub(ids.member, { remove: ['general'] }), ctx);
  t.notOk(state.subscriptions.get(streams.general)!.has(ids.member));
  t.notOk(state.userStreams.get(ids.member)!.has(streams.general));
  t.not(state.messages.userFlags(ids.member, sent.id), undefined, 'UserMessage row kept');

  // Private channel: losing access sends stream delete; admins may remove others.
  const priv = decide(state, sub(ids.admin, { remove: ['secret'], principals: [ids.member] }), ctx);
  if (!priv.ok) throw priv.error;
  t.match(priv.value.events.find((e) => e.payload.type === 'stream')!, { userIds: [ids.member], payload: { op: 'delete' } });
  // Removing your own bot needs no permission.
  run(state, sub(ids.member, { add: [{ name: 'empty' }], principals: [ids.bot] }), ctx);
  state.streams.get(streams.empty)!.groups.can_remove_subscribers_group = systemGroupId(state, 'role:nobody');
  t.same(run(state, sub(ids.member, { remove: ['empty'], principals: [ids.bot] }), ctx), { removed: ['empty'], not_removed: [] });
});

t.test('subscription properties', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const result = decide(state, props(ids.member, [{ streamId: streams.general, property: 'in_home_view', value: false }]), ctx);
  if (!result.ok) throw result.error;
  t.same(result.value.records, [{ type: 'subscription_property_changed', v: 1, streamId: streams.general, userId: ids.member, property: 'is_muted', value: true }]);
  t.same(result.value.events.map((e) => e.payload), [
    { type: 'subscription', op: 'update', stream_id: streams.general, property: 'in_home_view', value: false },
    { type: 'subscription', op: 'update', stream_id: streams.general, property: 'is_muted', value: true },
  ]);
  run(state, props(ids.member, [
    { streamId: streams.general, property: 'color', value: '#123456' },
    { streamId: streams.general, property: 'pin_to_top', value: true },
    { streamId: streams.general, property: 'push_notifications', value: false },
    { streamId: streams.general, property: 'is_muted', value: true },
  ]), ctx);
  t.match(state.subscriptions.get(streams.general)!.get(ids.member), { color: '#123456', pinToTop: true, pushNotifications: false, isMuted: true });

  const before = fingerprint(state);
  const errors: Array<[SetSubscriptionProperties['changes'][number], string]> = [
    [{ streamId: streams.general, property: 'bogus', value: true }, 'Unknown subscription property: bogus'],
    [{ streamId: 999, property: 'color', value: '#fff' }, 'Invalid channel ID'],
    [{ streamId: streams.secret, property: 'color', value: '#fff' }, 'Invalid channel ID'],
    [{ streamId: streams.empty, property: 'color', value: '#fff' }, `Not subscribed to channel ID ${streams.empty}`],
    [{ streamId: streams.general, property: 'color', value: 'red' }, 'color is not a valid hex color code'],
    [{ streamId: streams.general, property: 'color', value: true }, 'color is not a string'],
    [{ streamId: streams.general, property: 'pin_to_top', value: 'yes' }, 'pin_to_top is not a boolean'],
  ];
  for (const [change, msg] of errors) {
    const r = decide(state, props(ids.other, [{ streamId: streams.general, property: 'color', value: '#000000' }, change]), ctx);
    t.notOk(r.ok, msg);
    if (!r.ok) t.equal(r.error.message, msg);
  }
  t.equal(fingerprint(state), before, 'state unchanged (no partial apply)');
});

t.test('new users join default channels', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  state.streams.get(streams.general)!.isDefault = true;
  state.streams.get(streams.empty)!.isDefault = true;
  const newUser = (email: string, isBot = false): CreateUser => ({
    type: 'create_user', email, fullName: 'New Person', role: 400, passwordHash: null, isBot, botType: isBot ? 1 : null,
    botOwnerId: isBot ? ids.member : null, timezone: '',
  });
  const result = decide(state, newUser('new@example.com'), ctx);
  if (!result.ok) throw result.error;
  t.same(result.value.records.slice(1).map((r) => r.type === 'subscriptions_added' && r.streamId), [streams.general, streams.empty]);
  t.match(result.value.events[0]!.payload, { type: 'subscription', op: 'peer_add', stream_ids: [streams.general] });
  const { userId } = run(state, newUser('new@example.com'), ctx);
  t.same([...state.userStreams.get(userId)!].sort(), [streams.general, streams.empty].sort());
  t.equal(state.subscriptions.get(streams.general)!.get(userId)!.color, STREAM_COLORS[0]);
  t.equal(state.subscriptions.get(streams.empty)!.get(userId)!.color, STREAM_COLORS[1]);
  const bot = run(state, newUser('newbot@example.com', true), ctx);
  t.equal(state.userStreams.get(bot.userId)!.size, 0, 'bots are not subscribed');
});

t.test('replaying the new records reproduces the state; snapshots keep it', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const records: RealmRecord[] = [];
  const runner = setupRunner(state, ctx, records);
  runner(sub(ids.member, { add: [{ name: 'fresh' }, { name: 'empty' }], principals: [ids.member, ids.other] }));
  runner(sub(ids.other, { remove: ['general'] }));
  runner(props(ids.member, [{ streamId: streams.general, property: 'is_muted', value: true }, { streamId: streams.general, property: 'color', value: '#010203' }]));
  const replayed = smallRealm().state;
  for (const r of records) evolve(replayed, r);
  t.equal(fingerprint(replayed), fingerprint(state));
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(state.id, JSON.parse(JSON.stringify(core)), columns);
  t.match(restored.subscriptions.get(streams.general)!.get(ids.member), { isMuted: true, color: '#010203' });
  t.notOk(restored.subscriptions.get(streams.general)!.has(ids.other));
});
