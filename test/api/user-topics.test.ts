/**
 * Topic visibility (https://zulip.com/api/update-user-topic, https://zulip.com/api/mute-topic,
 * Zulip's `visibility_policy_for_send_message`): `POST /user_topics`,
 * the deprecated `PATCH /users/me/subscriptions/muted_topics`, their events and register state,
 * and the automatic follow on send. Handler-level rules with "state unchanged after error".
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, run, smallRealm } from '../support/realm-fixture.js';
import { evolve } from '../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { getUserTopic } from '../../src/domain/user-topics.js';
import type { RealmState } from '../../src/domain/realm-state.js';
import { visibilityPolicyForSend } from '../../src/realm/handlers/user-topics.js';
import type { SetUserTopic } from '../../src/realm/commands.js';

/** The user's policy for (channel, topic) as stored: 0 (inherit) when there is no row. */
const visibilityPolicyOf = (state: RealmState, userId: number, streamId: number, topic: string): number =>
  getUserTopic(state, userId, streamId, topic)?.visibilityPolicy ?? 0;

const bad = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

// ------------------------------------------------------------------------------------------
// Handler rules

const setCmd = (over: Partial<SetUserTopic> & { userId: number; stream: SetUserTopic['stream'] }): SetUserTopic => ({
  type: 'set_user_topic', topic: 'lunch', visibilityPolicy: 1, ...over,
});

t.test('set_user_topic: record, events, case-insensitive rows, same value is silent', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const result = decide(state, setCmd({ userId: ids.member, stream: { id: streams.general } }), ctx);
  if (!result.ok) throw result.error;
  const { records, events, reply } = result.value;
  t.same(reply, {});
  t.match(records, [{ type: 'user_topic_set', v: 1, userId: ids.member, streamId: streams.general, topic: 'lunch', visibilityPolicy: 1 }]);
  const ts = (records[0] as { lastUpdated: number }).lastUpdated;
  t.ok(Number.isInteger(ts));
  t.same(events, [
    { userIds: [ids.member], payload: { type: 'muted_topics', muted_topics: [['general', 'lunch', ts]] } },
    { userIds: [ids.member], payload: { type: 'user_topic', stream_id: streams.general, topic_name: 'lunch', last_updated: ts, visibility_policy: 1 } },
  ]);
  for (const r of records) evolve(state, r);
  t.equal(visibilityPolicyOf(state, ids.member, streams.general, 'LUNCH'), 1, 'case-insensitive');
  t.equal(visibilityPolicyOf(state, ids.other, streams.general, 'lunch'), 0, 'per user');

  const before = fingerprint(state);
  const again = decide(state, setCmd({ userId: ids.member, stream: { id: streams.general }, topic: 'Lunch' }), ctx);
  t.ok(again.ok);
  if (again.ok) t.same([again.value.records, again.value.events], [[], []], 'same value again: nothing');
  t.equal(fingerprint(state), before);

  run(state, setCmd({ userId: ids.member, stream: { id: streams.general }, topic: 'LUNCH', visibilityPolicy: 3 }), ctx);
  t.equal(state.userTopics.get(ids.member)!.size, 1, 'one row per topic, whatever the case');
  t.equal([...state.userTopics.get(ids.member)!.values()][0]!.topicName, 'lunch', 'first spelling kept');
  const follow = decide(state, setCmd({ userId: ids.member, stream: { id: streams.general }, visibilityPolicy: 0 }), ctx);
  if (!follow.ok) throw follow.error;
  t.match(follow.value.events[0]!.payload, { type: 'muted_topics', muted_topics: [] });
  for (const r of follow.value.records) evolve(state, r);
  t.equal(state.userTopics.has(ids.member), false, 'inherit deletes the row');
  const none = decide(state, setCmd({ userId: ids.member, stream: { id: streams.general }, visibilityPolicy: 0 }), ctx);
  t.ok(none.ok && none.value.records.length === 0, 'removing a missing row: silent success');
});

t.test('set_user_topic: channel access errors leave the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const before = fingerprint(state);
  const cases: Array<[SetUserTopic, string]> = [
    [setCmd({ userId: ids.member, stream: { id: 9999 } }), 'Invalid channel ID'],
    [setCmd({ userId: ids.other, stream: { id: streams.secret } }), 'Invalid channel ID'],
    [setCmd({ userId: ids.guest, stream: { id: streams.general } }), 'Invalid channel ID'],
    [setCmd({ userId: ids.member, stream: { id: 9999 }, visibilityPolicy: 0 }), 'Invalid channel ID'],
    [setCmd({ userId: ids.member, stream: { name: 'nowhere' }, legacy: true }), "Invalid channel name 'nowhere'"],
    [setCmd({ userId: ids.other, stream: { name: 'secret' }, legacy: true }), "Invalid channel name 'secret'"],
    [setCmd({ userId: ids.member, stream: { name: 'nowhere' }, legacy: true, visibilityPolicy: 0 }), 'Topic is not muted'],
    [setCmd({ userId: ids.member, stream: { id: 9999 }, legacy: true, visibilityPolicy: 0 }), 'Topic is not muted'],
  ];
  for (const [cmd, msg] of cases) {
    const result = decide(state, cmd, ctx);
    t.equal(result.ok ? 'ok' : result.error.message, msg, JSON.stringify(cmd));
  }
  t.equal(fingerprint(state), before);
  // Removal only needs the channel to exist: an inaccessible private channel is fine.
  t.ok(decide(state, setCmd({ userId: ids.other, stream: { id: streams.secret }, visibilityPolicy: 0 }), ctx).ok);
});

t.test('user topics survive a snapshot round trip; old snapshots without them load', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  run(state, setCmd({ userId: ids.member, stream: { id: streams.general }, topic: 'Lunch', visibilityPolicy: 3 }), ctx);
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(1, structuredClone(core), columns);
  t.equal(fingerprint(copy), fingerprint(state));
  t.equal(visibilityPolicyOf(copy, ids.member, streams.general, 'lunch'), 3);
  const old = structuredClone(core) as Partial<typeof core>;
  delete old.userTopics;
  t.equal(fromSnapshot(1, old, columns).userTopics.size, 0);
});

t.test('automatic policy on send (Zulip visibility_policy_for_send_message)', async (t) => {
  const defaults = { follow: 3, unmuteInMuted: 2 };
  t.equal(visibilityPolicyForSend(defaults, false, 0, true), 3, 'initiating a topic follows it');
  t.equal(visibilityPolicyForSend(defaults, false, 0, false), null, 'replying does not');
  t.equal(visibilityPolicyForSend(defaults, true, 0, false), 2, 'sending in a muted channel unmutes');
  t.equal(visibilityPolicyForSend(defaults, true, 2, false), null, 'already unmuted');
  t.equal(visibilityPolicyForSend(defaults, true, 1, false), 2, 'muted topic in muted channel: unmuted');
  t.equal(visibilityPolicyForSend(defaults, false, 3, true), null, 'followed never changes');
  t.equal(visibilityPolicyForSend({ follow: 2, unmuteInMuted: 4 }, false, 1, false), 3, 'on send: follow');
  t.equal(visibilityPolicyForSend({ follow: 1, unmuteInMuted: 4 }, false, 0, false), 3, 'on participation: follow');
  t.equal(visibilityPolicyForSend({ follow: 4, unmuteInMuted: 3 }, true, 0, true), 2, 'unmute on initiation');
  t.equal(visibilityPolicyForSend({ follow: 4, unmuteInMuted: 4 }, true, 0, true), null, 'never');
});

t.test('send_message: first message of a topic follows it for a human sender', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const send = (senderId: number, topic: string) =>
    decide(state, { type: 'send_message', senderId, messageType: 'stream', to: 'general', topic, content: 'hi', client: 'test' }, ctx);
  const first = send(ids.member, 'Plans');
  if (!first.ok) throw first.error;
  t.same(first.value.reply, { id: 1, automatic_new_visibility_policy: 3 });
  t.same(first.value.records.map((r) => r.type), ['user_topic_set', 'message_sent']);
  t.same(first.value.events.map((e) => e.payload.type), ['muted_topics', 'user_topic', 'message']);
  t.same(first.value.events[1]!.userIds, [ids.member]);
  for (const r of first.value.records) evolve(state, r);
  const reply = send(ids.other, 'plans');
  if (!reply.ok) throw reply.error;
  t.same(reply.value.reply, { id: 2 }, 'not the initiator (case-insensitive topic)');
  const again = send(ids.member, 'PLANS');
  t.ok(again.ok && again.value.records.length === 1, 'already followed');
  const bot = send(ids.bot, 'bots only');
  t.ok(bot.ok && bot.value.records.length === 1 && !('automatic_new_visibility_policy' in bot.value.reply), 'bots never');
  const dm = decide(state, { type: 'send_message', senderId: ids.member, messageType: 'private', to: [ids.other], topic: undefined, content: 'x', client: 'test' }, ctx);
  t.ok(dm.ok && dm.value.records.length === 1, 'direct messages never');
  void streams;
});

t.test('send_message: initiation counts only accessible, existing messages of the same channel', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const send = (senderId: number, to: string, topic: string) => {
    const result = decide(state, { type: 'send_message', senderId, messageType: 'stream', to, topic, content: 'hi', client: 'test' }, ctx);
    if (!result.ok) throw result.error;
    for (const r of result.value.records) evolve(state, r);
    return result.value.reply;
  };
  // A private channel with protected history: a later subscriber cannot see the earlier messages.
  const vault = run(state, { type: 'create_channel', actorId: null, name: 'vault', description: '', inviteOnly: true, historyPublicToSubscribers: false, isWebPublic: false, isDefault: false, subscriberIds: [ids.owner] }, ctx).streamId;
  t.same(send(ids.owner, 'vault', 'Plans'), { id: 1, automatic_new_visibility_policy: 3 }, 'owner initiates');
  run(state, { type: 'subscribe', streamId: vault, userIds: [ids.member] }, ctx);
  t.same(send(ids.member, 'vault', 'plans'), { id: 2, automatic_new_visibility_policy: 3 }, 'no accessible message: the later subscriber initiates too');
  run(state, { type: 'subscribe', streamId: vault, userIds: [ids.other] }, ctx);
  t.same(send(ids.other, 'vault', 'Plans'), { id: 3, automatic_new_visibility_policy: 3 }, 'still none accessible to the next one');
  t.same(send(ids.owner, 'general', 'plans'), { id: 4, automatic_new_visibility_policy: 3 }, 'the same topic name in another channel does not count');
  t.same(send(ids.admin, 'general', 'PLANS'), { id: 5 }, 'a public-history topic with a message is not initiated');
});

// ------------------------------------------------------------------------------------------
// HTTP, events and register state

t.test('POST /user_topics: errors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('cordelia@zulip.com'); // has started no topic in the demo
  const polonius = await s.as('polonius@zulip.com');
  const streams = (await hamlet.call('GET', '/streams')).body.streams as Array<{ name: string; stream_id: number }>;
  const verona = streams.find((x) => x.name === 'Verona')!.stream_id;
  const core = (await (await s.as('iago@zulip.com')).call('GET', '/streams')).body.streams.find((x: { name: string }) => x.name === 'core team')!.stream_id;
  const post = (caller: typeof hamlet, params: Record<string, unknown>) => caller.call('POST', '/user_topics', params);
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ topic: 'x', visibility_policy: 1 }, { ...bad("Missing 'stream_id' argument", 'REQUEST_VARIABLE_MISSING'), var_name: 'stream_id' }],
    [{ stream_id: verona, topic: 'x'.repeat(61), visibility_policy: 1 }, bad('topic is too long (limit: 60 characters)')],
    [{ stream_id: verona, topic: 'x', visibility_policy: 4 }, bad('Invalid visibility_policy')],
    [{ stream_id: 999999, topic: 'x', visibility_policy: 1 }, bad('Invalid channel ID')],
    [{ stream_id: 999999, topic: 'x', visibility_policy: 0 }, bad('Invalid channel ID')],
  ];
  for (const [params, body] of cases) {
    const r = await post(hamlet, params);
    t.equal(r.status, 400, JSON.stringify(params));
    t.same(r.body, body, JSON.stringify(params));
  }
  t.same((await post(polonius, { stream_id: core, topic: 'x', visibility_policy: 1 })).body, bad('Invalid channel ID'), 'private, unsubscribed');
  t.equal((await post(hamlet, { stream_id: verona, topic: 'x'.repeat(60), visibility_policy: 1 })).status, 200, '60 characters are fine');
  const reg = await hamlet.call('POST', '/register', { fetch_event_types: ['user_topic'] });
  t.same(reg.body.user_topics.map((r: { topic_name: string }) => r.topic_name), ['x'.repeat(60)]);
});

t.test('POST /user_topics: events (legacy muted_topics first) and register state', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('cordelia@zulip.com'); // has started no topic in the demo
  const verona = (await hamlet.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id as number;
  const set = (topic: string, visibility_policy: number) => hamlet.call('POST', '/user_topics', { stream_id: verona, topic, visibility_policy });

  const muted = await verifyAction(t, s, hamlet, { action: () => set('lunch', 1), numEvents: 2, stateChangeExpected: true });
  t.same(muted.events.map((e) => e.type), ['muted_topics', 'user_topic']);
  t.match(muted.events[0], { muted_topics: [['Verona', 'lunch', Number]] });
  t.match(muted.events[1], { stream_id: verona, topic_name: 'lunch', visibility_policy: 1 });
  t.same(muted.actionResult.body, { result: 'success', msg: '' });
  t.equal(muted.after.user_topics.length, 1);
  t.equal(muted.after.muted_topics.length, 1);

  // A queue that asked for user_topic gets no legacy event and no legacy register key.
  const modern = await verifyAction(t, s, hamlet, { eventTypes: ['user_topic', 'muted_topics'], action: () => set('LUNCH', 3), numEvents: 1, stateChangeExpected: true });
  t.same(modern.events.map((e) => e.type), ['user_topic']);
  t.notOk('muted_topics' in modern.after);
  t.match(modern.after.user_topics, [{ topic_name: 'lunch', visibility_policy: 3 }]);

  const legacy = await verifyAction(t, s, hamlet, { eventTypes: ['muted_topics'], action: () => set('dinner', 1), numEvents: 1, stateChangeExpected: true });
  t.same(legacy.events.map((e) => e.type), ['muted_topics']);
  t.match(legacy.after.muted_topics, [['Verona', 'dinner', Number]], 'followed topics are not in the legacy list');

  await verifyAction(t, s, hamlet, { action: () => set('Dinner', 1), numEvents: 0, stateChangeExpected: false });
  await verifyAction(t, s, hamlet, { action: () => set('breakfast', 0), numEvents: 0, stateChangeExpected: false });
  await verifyAction(t, s, hamlet, { action: () => set('dinner', 0), numEvents: 2, stateChangeExpected: true });
  const othello = await s.as('othello@zulip.com');
  t.same((await othello.call('POST', '/register', { fetch_event_types: ['user_topic'] })).body.user_topics, [], 'per user');
});

t.test('PATCH /users/me/subscriptions/muted_topics', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('cordelia@zulip.com'); // has started no topic in the demo
  const polonius = await s.as('polonius@zulip.com');
  const verona = (await hamlet.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id as number;
  const patch = (caller: typeof hamlet, params: Record<string, unknown>) => caller.call('PATCH', '/users/me/subscriptions/muted_topics', params);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ stream: 'Verona', topic: 'x', op: 'mute' }, 'Invalid op'],
    [{ stream: 'Verona', topic: 'x'.repeat(61), op: 'add' }, 'topic is too long (limit: 60 characters)'],
    [{ topic: 'x', op: 'add' }, "Please supply 'stream'."],
    [{ stream: 'Verona', stream_id: verona, topic: 'x', op: 'add' }, "Please choose one: 'stream' or 'stream_id'."],
    [{ stream: 'Nowhere', topic: 'x', op: 'add' }, "Invalid channel name 'Nowhere'"],
    [{ stream_id: 999999, topic: 'x', op: 'add' }, 'Invalid channel ID'],
    [{ stream: 'Nowhere', topic: 'x', op: 'remove' }, 'Topic is not muted'],
    [{ stream_id: 999999, topic: 'x', op: 'remove' }, 'Topic is not muted'],
  ];
  for (const [params, msg] of cases) {
    const r = await patch(hamlet, params);
    t.equal(r.status, 400, JSON.stringify(params));
    t.same(r.body, bad(msg), JSON.stringify(params));
  }
  t.same((await patch(polonius, { stream: 'core team', topic: 'x', op: 'add' })).body, bad("Invalid channel name 'core team'"));
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['muted_topics'] })).body.muted_topics, [], 'errors changed nothing');

  const add = await verifyAction(t, s, hamlet, { action: () => patch(hamlet, { stream: 'verona', topic: 'no messages here', op: 'add' }), numEvents: 2, stateChangeExpected: true });
  t.equal(add.actionResult.status, 200, 'success whether or not messages exist');
  t.match(add.after.muted_topics, [['Verona', 'no messages here', Number]]);
  t.match(add.after.user_topics, [{ stream_id: verona, topic_name: 'no messages here', visibility_policy: 1 }]);
  await verifyAction(t, s, hamlet, { action: () => patch(hamlet, { stream_id: verona, topic: 'NO MESSAGES HERE', op: 'add' }), numEvents: 0, stateChangeExpected: false });
  await verifyAction(t, s, hamlet, { action: () => patch(hamlet, { stream_id: verona, topic: 'No Messages Here', op: 'remove' }), numEvents: 2, stateChangeExpected: true });
  const idem = await patch(hamlet, { stream_id: verona, topic: 'no messages here', op: 'remove' });
  t.same(idem.body, { result: 'success', msg: '' }, 'removing an unmuted topic succeeds');
});

t.test('send: automatic follow of an initiated topic, with events to the sender', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const send = (caller: typeof hamlet, topic: string) => caller.call('POST', '/messages', { type: 'stream', to: 'Verona', topic, content: 'x' });
  const v = await verifyAction(t, s, hamlet, { action: () => send(hamlet, 'brand new'), numEvents: 3, stateChangeExpected: true });
  t.same(v.events.map((e) => e.type), ['muted_topics', 'user_topic', 'message']);
  t.match(v.events[1], { topic_name: 'brand new', visibility_policy: 3 });
  t.equal(v.actionResult.body.automatic_new_visibility_policy, 3);
  const r = await send(othello, 'Brand New');
  t.equal(r.status, 200);
  t.notOk('automatic_new_visibility_policy' in r.body, 'a reply does not follow');
  const again = await send(hamlet, 'brand new');
  t.notOk('automatic_new_visibility_policy' in again.body, 'already followed');
});
