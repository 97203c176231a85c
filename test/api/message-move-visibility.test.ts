/**
 * Message moves and topic visibility (Zulip's `do_update_message`, zerver/actions/message_edit.py):
 * user_topic rows follow a whole-topic move (merged when the destination has messages, removed for
 * users losing access), partial moves apply the sender's "on initiation" automatic follow, refused
 * moves change nothing; and undoing a resolve within the grace period deletes the previous
 * notification instead of posting a new one.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, run, smallRealm } from '../support/realm-fixture.js';
import type { CommandContext } from '../../src/realm/decision.js';
import { visibilityAfterMerge } from '../../src/realm/handlers/message-move-visibility.js';

type Row = { stream_id: number; topic_name: string; visibility_policy: number; last_updated: number };

const send = async (c: Caller, to: string, topic: string, content: string) =>
  (await c.call('POST', '/messages', { type: 'stream', to, topic, content })).body.id as number;
const setPolicy = async (c: Caller, streamId: number, topic: string, policy: number) =>
  (await c.call('POST', '/user_topics', { stream_id: streamId, topic, visibility_policy: policy })).body.result;
/** The caller's user_topic rows as `[stream_id, topic, policy]`, sorted. */
const rows = async (c: Caller) =>
  ((await c.call('POST', '/register', { fetch_event_types: ['user_topic'] })).body.user_topics as Row[])
    .map((r) => [r.stream_id, r.topic_name, r.visibility_policy] as const)
    .filter(([streamId, topic]) => !(streamId === 2 && topic === 'castle') && !(streamId === 1 && topic === 'welcome')) // demo data
    .sort((a, b) => (a[0] - b[0]) || a[1].localeCompare(b[1]));
const quiet = { send_notification_to_old_thread: false, send_notification_to_new_thread: false };
const move = (c: Caller, id: number, params: Record<string, unknown>) => c.call('PATCH', `/messages/${id}`, { ...quiet, ...params });
const MUTED = 1;
const UNMUTED = 2;
const FOLLOWED = 3;

t.test('merge rule (get_visibility_policy_after_merge)', async (t) => {
  t.equal(visibilityAfterMerge(MUTED, FOLLOWED), FOLLOWED);
  t.equal(visibilityAfterMerge(UNMUTED, MUTED), UNMUTED);
  t.equal(visibilityAfterMerge(0, MUTED), 0);
  t.equal(visibilityAfterMerge(MUTED, MUTED), MUTED);
  t.equal(visibilityAfterMerge(UNMUTED, 0), UNMUTED);
});

t.test('change_all rename moves every user_topic row', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = await send(hamlet, 'Verona', 'alpha', 'one');
  await send(hamlet, 'Verona', 'alpha', 'two');
  t.equal(await setPolicy(othello, 1, 'alpha', MUTED), 'success');
  t.same(await rows(hamlet), [[1, 'alpha', FOLLOWED]], 'hamlet follows the topic he started');

  const res = await verifyAction(t, s, othello, {
    action: () => move(hamlet, id, { topic: 'beta', propagate_mode: 'change_all' }),
    stateChangeExpected: true,
  });
  t.equal(res.actionResult.body.result, 'success');
  const types = res.events.map((e) => e.type);
  // Zulip: the old row goes without the legacy event; the new row comes with the full muted list.
  t.same(types, ['user_topic', 'muted_topics', 'user_topic', 'update_message'], 'visibility events before update_message');
  t.match(res.events[0], { type: 'user_topic', stream_id: 1, topic_name: 'alpha', visibility_policy: 0 });
  t.match(res.events[1], { type: 'muted_topics', muted_topics: [['Verona', 'beta']] });
  t.match(res.events[2], { type: 'user_topic', stream_id: 1, topic_name: 'beta', visibility_policy: MUTED });
  t.equal(res.events[2].last_updated, Math.floor(res.events[3].edit_timestamp));
  t.same(await rows(othello), [[1, 'beta', MUTED]]);
  t.same(await rows(hamlet), [[1, 'beta', FOLLOWED]]);

  // Legacy clients (muted_topics only) get the full list.
  const legacy = await verifyAction(t, s, othello, {
    action: () => move(hamlet, id, { topic: 'gamma', propagate_mode: 'change_all' }),
    stateChangeExpected: true,
    eventTypes: ['muted_topics'],
  });
  t.same(legacy.events.map((e) => e.type), ['muted_topics']);
  t.match(legacy.events[0], { muted_topics: [['Verona', 'gamma']] });
  t.same(await rows(othello), [[1, 'gamma', MUTED]]);
});

t.test('move into a topic with messages merges policies', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const prospero = await s.as('prospero@zulip.com');
  const aaron = await s.as('aaron@zulip.com');
  const id = await send(hamlet, 'Verona', 'src', 'moving');
  await send(hamlet, 'Verona', 'dst', 'already here');
  await setPolicy(othello, 1, 'src', MUTED);
  await setPolicy(othello, 1, 'dst', FOLLOWED);
  await setPolicy(cordelia, 1, 'src', UNMUTED);
  await setPolicy(cordelia, 1, 'dst', MUTED);
  await setPolicy(prospero, 1, 'dst', MUTED);
  await setPolicy(aaron, 1, 'src', MUTED);
  await setPolicy(aaron, 1, 'dst', MUTED);

  const res = await verifyAction(t, s, othello, {
    action: () => move(hamlet, id, { topic: 'dst', propagate_mode: 'change_all' }),
    stateChangeExpected: true,
  });
  // The legacy list comes with the removal here (Zulip omits it; see moveVisibilityPolicies).
  t.same(res.events.map((e) => e.type), ['muted_topics', 'user_topic', 'update_message'], 'followed wins: only the old row goes');
  t.match(res.events[1], { stream_id: 1, topic_name: 'src', visibility_policy: 0 });
  t.same(await rows(othello), [[1, 'dst', FOLLOWED]]);
  t.same(await rows(cordelia), [[1, 'dst', UNMUTED]], 'unmuted beats muted');
  t.same(await rows(prospero), [], 'no policy on the moved topic + muted destination = inherit');
  t.same(await rows(aaron), [[1, 'dst', MUTED]], 'both muted stays muted');
  t.same(await rows(hamlet), [[1, 'dst', FOLLOWED]], 'followed both: one row');
});

t.test('move to a topic without messages takes the old policy, even over a stale row', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const prospero = await s.as('prospero@zulip.com');
  const id = await send(hamlet, 'Verona', 'src2', 'moving');
  await setPolicy(prospero, 1, 'empty topic', MUTED);
  const res = await verifyAction(t, s, prospero, {
    action: () => move(hamlet, id, { topic: 'empty topic', propagate_mode: 'change_all' }),
    stateChangeExpected: true,
  });
  t.match(res.events.find((e) => e.type === 'user_topic'), { topic_name: 'empty topic', visibility_policy: 0 });
  t.match(res.events.find((e) => e.type === 'muted_topics'), { muted_topics: [] });
  t.same(await rows(prospero), []);
});

t.test('channel move: users losing access lose the row, others keep it in the new channel', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const id = await send(hamlet, 'Verona', 'private plans', 'shh');
  await setPolicy(othello, 1, 'private plans', MUTED);
  await setPolicy(iago, 1, 'private plans', UNMUTED);
  const res = await verifyAction(t, s, othello, {
    action: () => move(iago, id, { stream_id: 6, propagate_mode: 'change_all' }),
    stateChangeExpected: true,
  });
  t.same(res.events.map((e) => e.type), ['muted_topics', 'user_topic', 'delete_message']);
  t.match(res.events[1], { stream_id: 1, topic_name: 'private plans', visibility_policy: 0 });
  t.same(await rows(othello), []);
  t.same(await rows(iago), [[6, 'private plans', UNMUTED]]);
  t.same(await rows(hamlet), [[6, 'private plans', FOLLOWED]]);
});

t.test('partial moves', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const first = await send(othello, 'Verona', 'part', 'first');
  const second = await send(hamlet, 'Verona', 'part', 'second');
  await setPolicy(othello, 1, 'part', MUTED);
  t.same(await rows(hamlet), [], 'hamlet did not start "part"');

  // change_one of one message out of two: rows stay; the sender follows the topic the message starts.
  const one = await verifyAction(t, s, hamlet, {
    action: () => move(hamlet, second, { topic: 'part two', propagate_mode: 'change_one' }),
    stateChangeExpected: true,
  });
  t.same(one.events.map((e) => e.type), ['muted_topics', 'user_topic', 'update_message']);
  t.match(one.events[1], { type: 'user_topic', topic_name: 'part two', visibility_policy: FOLLOWED });
  t.same(await rows(hamlet), [[1, 'part two', FOLLOWED]]);
  t.same(await rows(othello), [[1, 'part', MUTED]], 'othello keeps the row of the old topic');

  // change_later that takes every remaining message: a whole-topic move, merged into "part two".
  const later = await verifyAction(t, s, othello, {
    action: () => move(hamlet, first, { topic: 'part two', propagate_mode: 'change_later' }),
    stateChangeExpected: true,
  });
  t.same(later.events.map((e) => e.type), ['muted_topics', 'user_topic', 'update_message']);
  t.match(later.events[1], { topic_name: 'part', visibility_policy: 0 });
  t.same(await rows(othello), [], 'muted + nothing in a topic with messages = inherit');
  t.same(await rows(hamlet), [[1, 'part two', FOLLOWED]]);

  // A moved message that does not become the first one: no automatic follow.
  const third = await send(othello, 'Verona', 'late', 'x');
  await send(othello, 'Verona', 'target', 'earlier');
  const fourth = await send(othello, 'Verona', 'late', 'y');
  await othello.call('POST', '/user_topics', { stream_id: 1, topic: 'target', visibility_policy: 0 });
  const before = await rows(othello);
  t.equal((await move(othello, fourth, { topic: 'target', propagate_mode: 'change_one' })).body.result, 'success');
  t.same(await rows(othello), before, 'not first in the destination: unchanged');
  t.ok(third);
});

t.test('a refused move leaves every row alone', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = await send(hamlet, 'Verona', 'keep', 'x');
  await setPolicy(othello, 1, 'keep', MUTED);
  const before = [await rows(hamlet), await rows(othello)];
  const refused = await move(othello, id, { stream_id: 6, propagate_mode: 'change_all' });
  t.same(refused.body, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  const general = await move(hamlet, id, { topic: '✔', propagate_mode: 'change_all' });
  t.same(general.body, { result: 'error', msg: 'General chat cannot be marked as resolved', code: 'BAD_REQUEST' });
  t.same([await rows(hamlet), await rows(othello)], before, 'rows unchanged');
});

t.test('undoing a resolve within the grace period deletes the notice', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const id = await send(hamlet, 'Verona', 'bug', 'it is broken');
  t.equal((await iago.call('PATCH', `/messages/${id}`, { topic: '✔ bug', propagate_mode: 'change_all' })).body.result, 'success');
  const notices = async (topic: string) => {
    const narrow = JSON.stringify([{ operator: 'channel', operand: 1 }, { operator: 'topic', operand: topic }]);
    const res = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow });
    return (res.body.messages as Array<{ id: number; content: string }>);
  };
  const resolvedTopic = await notices('✔ bug');
  const notice = resolvedTopic.at(-1)!;
  t.match(notice.content, /has marked this topic as resolved\./);

  const undo = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', `/messages/${id}`, { topic: 'bug', propagate_mode: 'change_all' }),
    stateChangeExpected: true,
  });
  t.equal(undo.actionResult.body.result, 'success');
  t.notOk(undo.events.some((e) => e.type === 'message'), 'no "unresolved" notice');
  // Legacy queues (no bulk_message_deletion) get one event per id.
  t.match(undo.events.find((e) => e.type === 'delete_message'), { message_id: notice.id, message_type: 'stream', topic: 'bug' });
  t.same((await notices('bug')).map((m) => m.id), [id], 'only the original message is left');
  t.equal((await hamlet.call('GET', `/messages/${notice.id}`)).body.msg, 'Invalid message(s)');

  // When something was said after the notice, unresolving posts a notice again.
  await iago.call('PATCH', `/messages/${id}`, { topic: '✔ bug', propagate_mode: 'change_all' });
  await send(hamlet, 'Verona', '✔ bug', 'still broken');
  await iago.call('PATCH', `/messages/${id}`, { topic: 'bug', propagate_mode: 'change_all' });
  const after = await notices('bug');
  t.match(after.at(-1)!.content, /has marked this topic as unresolved\./);
  t.equal(after.length, 4, 'original, resolved notice, reply, unresolved notice');
});

t.test('handler: the grace period is 60 seconds', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  let clock = 1_800_000_000;
  const at: CommandContext = { now: () => clock, randomToken: ctx.randomToken };
  const sent = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 't', content: 'x', client: 'test' }, at);
  const edit = (topic: string) => ({
    type: 'edit_message' as const, actorId: ids.admin, messageId: sent.id, topic, propagateMode: 'change_all' as const,
    sendNotificationToOldThread: false, sendNotificationToNewThread: true,
  });
  const lastId = () => state.nextIds.message - 1;

  run(state, edit('✔ t'), at);
  const resolvedNotice = lastId();
  clock += 60;
  const undo = decide(state, edit('t'), at);
  t.ok(undo.ok && undo.value.followUps?.some((c) => c.type === 'delete_message' && c.messageId === resolvedNotice), 'at 60 s: delete');
  run(state, edit('t'), at);
  t.notOk(state.messages.exists(resolvedNotice), 'notice deleted');

  run(state, edit('✔ t'), at);
  const second = lastId();
  clock += 61;
  run(state, edit('t'), at);
  t.ok(state.messages.exists(second), 'after 61 s the notice stays');
  t.ok(lastId() > second, 'and an "unresolved" notice is sent');
});
