/**
 * Personal message flags (https://zulip.com/api/get-message; Zulip's message_flags views/actions at FL 417):
 * `POST /messages/flags`, `POST /messages/flags/narrow`, `POST /mark_all_as_read`,
 * `POST /mark_stream_as_read`, `POST /mark_topic_as_read`. Every error string with the flags
 * unchanged afterwards; read/unread and starred round trips visible in `GET /messages` flags and
 * in `/register` (`unread_msgs`, `starred_messages`), with `update_message_flags` events checked
 * by verifyAction; mark-as-read touching only its channel/topic; historical rows for starring a
 * message of a public channel without a row; plus the storage: compact ranges (one record, one
 * range for thousands of rows), sorted insertion with the snapshot's dirty chunks.
 */
import t from 'tap';
import { startTestServer, type Caller, type TestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { UserMessages, Flag } from '../../src/domain/message-index.js';
import { Column } from '../../src/domain/column.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { evolve } from '../../src/domain/evolve.js';
import type { MessageFlagsChanged } from '../../src/domain/message-flags.js';
import { clampRange } from '../../src/api/message-flags.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

/** The caller's flags of message `id` as GET /messages shows them. */
async function flagsOf(c: Caller, id: number): Promise<string[]> {
  const r = await c.call('GET', '/messages', { anchor: id, num_before: 0, num_after: 0, narrow: JSON.stringify([{ operator: 'id', operand: id }]) });
  return r.body.messages[0]?.flags;
}

async function send(c: Caller, to: string | number[], topic: string, content: string): Promise<number> {
  const r = await c.call('POST', '/messages', Array.isArray(to) ? { type: 'direct', to: JSON.stringify(to), content } : { type: 'stream', to, topic, content });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.id;
}

async function registerState(c: Caller) {
  return (await c.call('POST', '/register', { fetch_event_types: JSON.stringify(['message', 'update_message_flags', 'starred_messages']) })).body;
}

const unreadIds = (state: any): number[] =>
  [...state.unread_msgs.streams, ...state.unread_msgs.pms, ...state.unread_msgs.huddles].flatMap((b: any) => b.unread_message_ids).sort((a: number, b: number) => a - b);

async function setup(t: Parameters<Parameters<typeof t.test>[1]>[0]): Promise<{ s: TestServer; hamlet: Caller; othello: Caller; iago: Caller }> {
  const s = await startTestServer(t);
  return { s, hamlet: await s.as('hamlet@zulip.com'), othello: await s.as('othello@zulip.com'), iago: await s.as('iago@zulip.com') };
}

t.test('POST /messages/flags: read/unread round trip with events and register state', async (t) => {
  const { s, hamlet } = await setup(t);
  // Demo: hamlet's unread rows are 1, 3 (Verona "welcome") and 6 (DM from othello).
  t.same(unreadIds(await registerState(hamlet)), [1, 3, 6], 'initial unread');
  t.same(await flagsOf(hamlet, 1), [], 'message 1 unread');

  const read = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([1, 2, 6]), op: 'add', flag: 'read' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(read.actionResult.body, { result: 'success', msg: '', messages: [1, 2, 6] }, 'reply echoes the request list');
  t.same(read.events[0], { id: read.events[0]!.id, type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [1, 6], all: false }, 'event lists only changed ids');
  t.same(unreadIds(read.after), [3]);
  t.same(await flagsOf(hamlet, 1), ['read']);
  t.same(await flagsOf(hamlet, 6), ['read']);

  const unreadStream = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([1]), op: 'remove', flag: 'read' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(unreadStream.events[0], {
    id: unreadStream.events[0]!.id,
    type: 'update_message_flags',
    op: 'remove',
    operation: 'remove',
    flag: 'read',
    messages: [1],
    all: false,
    message_details: { '1': { type: 'stream', stream_id: 1, topic: 'welcome', unmuted_stream_msg: true } },
  });
  t.same(await flagsOf(hamlet, 1), [], 'unread again');

  const unreadDm = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([6, 5]), op: 'remove', flag: 'read' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(unreadDm.events[0]!.messages, [6, 5]);
  t.same(unreadDm.events[0]!.message_details, { '6': { type: 'private', user_ids: [5] }, '5': { type: 'private', user_ids: [5] } });
  t.same(unreadIds(unreadDm.after), [1, 3, 5, 6]);
  t.same(unreadDm.after.unread_msgs.count, 4);

  // Nothing to change: success, an event with no ids, no state change.
  const noop = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([2, 4, 9999]), op: 'add', flag: 'read' }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.same(noop.actionResult.body.messages, [2, 4, 9999]);
  t.same(noop.events[0]!.messages, [], 'unknown ids are silently skipped when adding read');
});

t.test('POST /messages/flags: starred in starred_messages, collapsed', async (t) => {
  const { s, hamlet, othello } = await setup(t);
  const star = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([4, 1]), op: 'add', flag: 'starred' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(star.events[0], { id: star.events[0]!.id, type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [4, 1], all: false });
  t.same(star.after.starred_messages, [1, 4]);
  t.same(await flagsOf(hamlet, 4), ['read', 'starred']);
  t.same((await registerState(othello)).starred_messages, [], 'flags are per user');

  const unstar = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([4, 2, 9999]), op: 'remove', flag: 'starred' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(unstar.events[0]!.messages, [4], 'only the changed id; unknown ids skipped when removing');
  t.same(unstar.after.starred_messages, [1]);
  t.same(await flagsOf(hamlet, 4), ['read']);

  const collapse = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([3]), op: 'add', flag: 'collapsed' }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.same(collapse.events[0]!.flag, 'collapsed');
  t.same(await flagsOf(hamlet, 3), ['collapsed']);
});

t.test('POST /messages/flags: errors leave flags unchanged', async (t) => {
  const { s, hamlet, iago, othello } = await setup(t);
  const dm = await send(iago, [othello.userId], '', 'a private word');
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ messages: '[1]', op: 'add', flag: 'foo' }, bad("Invalid flag: 'foo'")],
    [{ messages: '[1]', op: 'add', flag: 'wildcard_mentioned' }, bad("Invalid flag: 'wildcard_mentioned'")],
    [{ messages: '[1]', op: 'add', flag: 'is_private' }, bad("Invalid flag: 'is_private'")],
    [{ messages: '[1]', op: 'add', flag: 'mentioned' }, bad("Flag not editable: 'mentioned'")],
    [{ messages: '[1]', op: 'remove', flag: 'has_alert_word' }, bad("Flag not editable: 'has_alert_word'")],
    [{ messages: '[1]', op: 'add', flag: 'historical' }, bad("Flag not editable: 'historical'")],
    [{ messages: '[1]', op: 'add', flag: 'force_expand' }, bad("Flag not editable: 'force_expand'")],
    [{ messages: '[1]', op: 'toggle', flag: 'read' }, bad("Invalid message flag operation: 'toggle'")],
    [{ messages: JSON.stringify([1, dm]), op: 'add', flag: 'starred' }, bad('Invalid message(s)')],
    [{ messages: JSON.stringify([1, 9999]), op: 'add', flag: 'starred' }, bad('Invalid message(s)')],
    [{ messages: JSON.stringify([dm]), op: 'remove', flag: 'read' }, bad('Invalid message(s)')],
    [{ op: 'add', flag: 'read' }, { result: 'error', msg: "Missing 'messages' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'messages' }],
    [{ messages: '[1]', flag: 'read' }, { result: 'error', msg: "Missing 'op' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'op' }],
    [{ messages: '[1]', op: 'add' }, { result: 'error', msg: "Missing 'flag' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'flag' }],
  ];
  for (const [params, body] of cases) {
    const r = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', '/messages/flags', params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, String(body.msg));
    t.same(r.actionResult.body, body);
  }
  t.equal((await hamlet.call('POST', '/messages/flags', { messages: '["x"]', op: 'add', flag: 'read' })).status, 400, 'ids must be integers');
  t.same(await flagsOf(hamlet, 1), [], 'message 1 still unread and unstarred');
  t.same((await registerState(hamlet)).starred_messages, [], 'nothing starred');
});

t.test('historical rows: starring a public-channel message without a row', async (t) => {
  const { s, hamlet, iago } = await setup(t);
  // Venice is public with no subscribers: hamlet has no row for iago's message.
  const id = await send(iago, 'Venice', 'gondolas', 'Canals everywhere.');
  const fetch = async () =>
    (await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'Venice' }]) })).body.messages;
  t.same((await fetch()).map((m: any) => m.flags), [['read', 'historical']], 'no row: read + historical');

  // Marking unread in a channel one is not subscribed to is ignored.
  const unread = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([id]), op: 'remove', flag: 'read' }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.same(unread.events[0]!.messages, []);
  t.same(unread.events[0]!.message_details, {});

  const star = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'starred' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(star.events[0]!.messages, [id]);
  t.same(star.after.starred_messages, [id]);
  t.same((await fetch()).map((m: any) => m.flags), [['read', 'starred', 'historical']], 'a historical row now exists');
  t.same(await flagsOf(hamlet, id), ['read', 'starred', 'historical']);
  // The new row sits in order among hamlet's rows: GET /messages without a narrow lists it.
  const all = (await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0 })).body.messages.map((m: any) => m.id);
  t.same(all, [...all].sort((a: number, b: number) => a - b));
  t.ok(all.includes(id), 'own rows include the historical one');

  const unstar = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([id]), op: 'remove', flag: 'starred' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(unstar.after.starred_messages, []);
  t.same(await flagsOf(hamlet, id), ['read', 'historical'], 'the row stays');
});

t.test('mark_stream_as_read / mark_topic_as_read / mark_all_as_read', async (t) => {
  const { s, hamlet, othello, iago } = await setup(t);
  const denmark = await send(othello, 'Denmark', 'castle', 'Indeed.');
  const a1 = await send(othello, 'Verona', 'Alpha', 'a');
  const b1 = await send(othello, 'Verona', 'beta', 'b');
  const a2 = await send(iago, 'Verona', 'alpha', 'a again');
  t.same(unreadIds(await registerState(hamlet)), [1, 3, 6, denmark, a1, b1, a2].sort((x, y) => x - y));

  const stream = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/mark_stream_as_read', { stream_id: 2 }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(stream.actionResult.body, { result: 'success', msg: '' });
  t.same(stream.events[0], { id: stream.events[0]!.id, type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [denmark], all: false });
  t.same(unreadIds(stream.after), [1, 3, 6, a1, b1, a2], 'only Denmark was marked');

  const again = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', '/mark_stream_as_read', { stream_id: 2 }), numEvents: 0, stateChangeExpected: false });
  t.same(again.actionResult.body, { result: 'success', msg: '' }, 'nothing unread: success, no event');

  const topic = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/mark_topic_as_read', { stream_id: 1, topic_name: 'ALPHA' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(topic.events[0]!.messages, [a1, a2], 'the topic, matched case-insensitively');
  t.same(unreadIds(topic.after), [1, 3, 6, b1]);

  const errors: Array<[string, Record<string, unknown>, Caller, Record<string, unknown>]> = [
    ['/mark_stream_as_read', { stream_id: 999 }, hamlet, bad('Invalid channel ID')],
    ['/mark_stream_as_read', { stream_id: 6 }, othello, bad('Invalid channel ID')],
    ['/mark_topic_as_read', { stream_id: 999, topic_name: 'x' }, hamlet, bad('Invalid channel ID')],
    ['/mark_topic_as_read', { stream_id: 6, topic_name: 'x' }, othello, bad('Invalid channel ID')],
    ['/mark_topic_as_read', { stream_id: 1, topic_name: 'nope' }, hamlet, bad("No such topic 'nope'")],
    ['/mark_topic_as_read', { stream_id: 2, topic_name: 'welcome' }, hamlet, bad("No such topic 'welcome'")],
    ['/mark_stream_as_read', {}, hamlet, { result: 'error', msg: "Missing 'stream_id' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'stream_id' }],
    ['/mark_topic_as_read', { stream_id: 1 }, hamlet, { result: 'error', msg: "Missing 'topic_name' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'topic_name' }],
  ];
  for (const [path, params, who, body] of errors) {
    const r = await verifyAction(t, s, who, { action: () => who.call('POST', path, params), numEvents: 0, stateChangeExpected: false });
    t.same(r.actionResult.body, body, `${path} ${JSON.stringify(params)}`);
  }
  t.same(unreadIds(await registerState(hamlet)), [1, 3, 6, b1], 'unchanged after errors');
  t.same(unreadIds(await registerState(othello)).length > 0, true, "othello's unread untouched");

  const all = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', '/mark_all_as_read'), numEvents: 1, stateChangeExpected: true });
  t.same(all.actionResult.body, { result: 'success', msg: '', complete: true });
  t.same(all.events[0], { id: all.events[0]!.id, type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [], all: true });
  t.same(all.after.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
  t.same(await flagsOf(hamlet, b1), ['read']);
  const allAgain = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', '/mark_all_as_read'), numEvents: 1, stateChangeExpected: false });
  t.same(allAgain.events[0]!.all, true, 'mark all sends its event even when nothing changed');
});

t.test('POST /messages/flags/narrow', async (t) => {
  const { s, hamlet, othello } = await setup(t);
  const extra = await send(othello, 'Verona', 'welcome', 'one more');
  const narrowed = (params: Record<string, unknown>) =>
    hamlet.call('POST', '/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }]), op: 'add', flag: 'read', ...params });

  const r = await verifyAction(t, s, hamlet, { action: () => narrowed({}), numEvents: 1, stateChangeExpected: true });
  t.same(r.actionResult.body, {
    result: 'success', msg: '', processed_count: 4, updated_count: 3, first_processed_id: 1, last_processed_id: extra, found_oldest: true, found_newest: true,
  });
  t.same(r.events[0]!.messages, [1, 3, extra]);
  t.same(unreadIds(r.after), [6], 'only Verona was marked');

  const part = await verifyAction(t, s, hamlet, {
    action: () => narrowed({ anchor: 'newest', num_before: 2, num_after: 0, op: 'remove' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(part.actionResult.body, {
    result: 'success', msg: '', processed_count: 2, updated_count: 2, first_processed_id: 3, last_processed_id: extra, found_oldest: false, found_newest: true,
  });
  t.same(unreadIds(part.after), [3, 6, extra]);

  const star = await verifyAction(t, s, hamlet, {
    action: () => narrowed({ anchor: 'first_unread', num_before: 0, num_after: 1, flag: 'starred', narrow: '[]' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(star.actionResult.body.first_processed_id, 3, 'first_unread anchor');
  t.same(star.after.starred_messages, [3, 4]);

  const empty = await narrowed({ narrow: JSON.stringify([{ operator: 'channel', operand: 'Rome' }]) });
  t.same(empty.body, { result: 'success', msg: '', processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null, found_oldest: true, found_newest: true });

  const errors: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ narrow: JSON.stringify([{ operator: 'channel', operand: 'Nowhere' }]) }, { result: 'error', msg: 'Invalid narrow operator: unknown channel Nowhere', code: 'BAD_NARROW', desc: 'unknown channel Nowhere' }],
    [{ anchor: 'x' }, bad('Invalid anchor')],
    [{ num_before: 1, num_after: 1, include_anchor: false }, bad('The anchor can only be excluded at an end of the range')],
    [{ flag: 'mentioned' }, bad("Flag not editable: 'mentioned'")],
    [{ op: 'set' }, bad("Invalid message flag operation: 'set'")],
    [{ num_after: -1 }, bad('num_after is too small')],
  ];
  for (const [params, body] of errors) {
    const e = await verifyAction(t, s, hamlet, { action: () => narrowed(params), numEvents: 0, stateChangeExpected: false });
    t.same(e.actionResult.body, body, JSON.stringify(params));
  }
  t.same(unreadIds(await registerState(hamlet)), [3, 6, extra], 'unchanged after errors');

  t.same(clampRange(10, 10), { numBefore: 10, numAfter: 10 });
  t.same(clampRange(6000, 0), { numBefore: 5000, numAfter: 0 });
  t.same(clampRange(6000, 6000), { numBefore: 2500, numAfter: 2500 });
  t.same(clampRange(100, 6000), { numBefore: 100, numAfter: 4900 });
});

t.test('storage: one record with compact ranges; sorted insertion keeps snapshots correct', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const sendTo = (topic: string) =>
    run(state, { type: 'send_message', senderId: ids.other, messageType: 'stream', to: streams.general, topic, content: 'x', client: 'test' }, ctx).id;
  const first = sendTo('bulk');
  for (let i = 0; i < 2999; i++) sendTo('bulk');
  const own = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 'bulk', content: 'mine', client: 'test', readBySender: true }, ctx).id;
  const last = sendTo('other');

  const all = decide(state, { type: 'mark_all_as_read', userId: ids.member }, ctx);
  t.ok(all.ok);
  if (!all.ok) return;
  t.equal(all.value.records.length, 1, 'one record');
  t.same((all.value.records[0] as MessageFlagsChanged).ranges, [first, last], 'one range spans already-read rows');
  t.equal(all.value.reply.count, 3001);

  const topic = decide(state, { type: 'mark_channel_as_read', userId: ids.member, streamId: streams.general, topic: 'bulk' }, ctx);
  t.ok(topic.ok);
  if (!topic.ok) return;
  t.same((topic.value.records[0] as MessageFlagsChanged).ranges, [first, own - 1], 'the range stops before an unrelated unread row');
  for (const r of topic.value.records) evolve(state, r);
  t.equal(state.messages.userFlags(ids.member, last)! & Flag.read, 0, 'other topic untouched');
  t.equal(state.messages.userFlags(ids.member, first)! & Flag.read, Flag.read);

  rejects(t, state, { type: 'update_message_flags', userId: ids.member, op: 'add', flag: 'starred', messages: [first, 999999] }, ctx, 'Invalid message(s)');
  rejects(t, state, { type: 'mark_channel_as_read', userId: ids.other, streamId: streams.secret, topic: null }, ctx, 'Invalid channel ID');
  rejects(t, state, { type: 'mark_channel_as_read', userId: ids.guest, streamId: streams.general, topic: null }, ctx, 'Invalid channel ID');

  // Historical rows survive a snapshot round trip.
  const emptyMsg = run(state, { type: 'send_message', senderId: ids.owner, messageType: 'stream', to: streams.empty, topic: 't', content: 'y', client: 'test' }, ctx).id;
  run(state, { type: 'update_message_flags', userId: ids.member, op: 'add', flag: 'starred', messages: [emptyMsg] }, ctx);
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(state.id, structuredClone(core), columns);
  t.equal(copy.messages.userFlags(ids.member, emptyMsg), Flag.read | Flag.starred | Flag.historical);
  t.equal(fingerprint(copy), fingerprint(state));
});

t.test('UserMessages.insertMany: sorted merge, dirty chunks, length', async (t) => {
  const um = new UserMessages(new Column('int32', 4), new Column('uint16', 4)); // 16 rows per chunk
  for (let id = 10; id < 500; id += 10) um.append(id, Flag.read); // 49 rows: chunks 0..3
  um.ids.takeDirtyChunks();
  um.flags.takeDirtyChunks();
  um.insertMany([5, 255, 600], Flag.starred);
  t.equal(um.length, 52);
  const ids: number[] = [];
  for (let i = 0; i < um.length; i++) ids.push(um.ids.get(i));
  t.same(ids, [...ids].sort((a, b) => a - b), 'ids stay sorted');
  t.equal(um.flags.get(um.indexOf(5)), Flag.starred);
  t.equal(um.flags.get(um.indexOf(250)), Flag.read, 'moved rows keep their flags');
  t.same(um.ids.takeDirtyChunks(), [0, 1, 2, 3], 'every chunk rows moved in is dirty');
  t.same(um.flags.takeDirtyChunks(), [0, 1, 2, 3]);
  um.insertMany([700], 0);
  t.same(um.ids.takeDirtyChunks(), [3], 'appending touches only the last chunk');
  t.equal(um.setFlag(700, Flag.read, true), true);
  t.equal(um.setFlag(700, Flag.read, true), false, 'no change the second time');
  t.equal(um.setFlag(701, Flag.read, true), false, 'no row');
});
