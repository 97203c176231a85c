/**
 * `POST /streams/{stream_id}/delete_topic` (https://zulip.com/api/delete-topic): over HTTP with
 * verifyAction (batched `delete_message` events, `first_message_id` update, folded state = fresh
 * register), case-insensitive topic match, errors with "state unchanged"; and at the handler
 * level, batches of 100 and `complete: false` past the per-request bound.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, run, smallRealm, rejects } from '../support/realm-fixture.js';
import { evolve } from '../../src/domain/evolve.js';
import { DELETE_TOPIC_BATCH_SIZE, MAX_DELETE_TOPIC_MESSAGES } from '../../src/realm/handlers/delete-topic.js';

const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
const BULK = { client_capabilities: { bulk_message_deletion: true } };

const send = async (c: Caller, topic: string, content: string): Promise<number> => {
  const r = await c.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic, content });
  if (r.status !== 200) throw new Error(`send failed: ${JSON.stringify(r.body)}`);
  return r.body.id;
};

t.test('delete_topic over HTTP', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const denmark = (await hamlet.call('GET', '/get_stream_id', { stream: 'Denmark' })).body.stream_id as number;
  const doomed = [await send(hamlet, 'Doomed', 'one'), await send(hamlet, 'doomed', 'two'), await send(iago, 'DOOMED', 'three')];
  const kept = await send(hamlet, 'kept', 'stays');

  const before = await hamlet.call('POST', '/register', { fetch_event_types: ['stream'] });
  const cases: Array<[Caller, number, Record<string, unknown>, object]> = [
    [hamlet, denmark, { topic_name: 'doomed' }, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL')],
    [iago, 4242, { topic_name: 'doomed' }, err('Invalid channel ID')],
    [iago, denmark, {}, { result: 'error', msg: "Missing 'topic_name' argument", code: 'REQUEST_VARIABLE_MISSING' }],
  ];
  for (const [caller, streamId, params, expected] of cases) {
    const r = await verifyAction(t, s, hamlet, { action: () => caller.call('POST', `/streams/${streamId}/delete_topic`, params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400);
    t.match(r.actionResult.body, expected);
  }
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['stream'] })).body.streams, before.body.streams, 'unchanged after errors');

  const { events, actionResult } = await verifyAction(t, s, hamlet, {
    registerParams: BULK,
    action: () => iago.call('POST', `/streams/${denmark}/delete_topic`, { topic_name: 'doomed' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(actionResult.body, { result: 'success', msg: '', complete: true });
  t.match(events[0], { type: 'delete_message', message_ids: doomed, message_type: 'stream', stream_id: denmark });
  const left = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: 'Denmark' }] });
  const ids = left.body.messages.map((m: { id: number }) => m.id);
  t.ok(ids.includes(kept) && doomed.every((id) => !ids.includes(id)), 'only the topic is gone');
  // Nothing left: still a success, complete, no events.
  const again = await verifyAction(t, s, hamlet, { action: () => iago.call('POST', `/streams/${denmark}/delete_topic`, { topic_name: 'doomed' }), numEvents: 0, stateChangeExpected: false });
  t.same(again.actionResult.body, { result: 'success', msg: '', complete: true });
});

t.test('delete_topic handler: batches of 100, bounded per request, first_message_id', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const total = MAX_DELETE_TOPIC_MESSAGES + 150;
  const sent: number[] = [];
  for (let i = 0; i < total; i++) {
    sent.push(run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 'bulk', content: `m${i}`, client: 'test' }, ctx).id);
  }
  run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 'other', content: 'keep', client: 'test' }, ctx);
  rejects(t, state, { type: 'delete_topic', actorId: ids.member, streamId: streams.general, topic: 'bulk' }, ctx, 'Must be an organization administrator');
  rejects(t, state, { type: 'delete_topic', actorId: ids.admin, streamId: streams.secret, topic: 'bulk' }, ctx, 'Invalid channel ID');

  const first = decide(state, { type: 'delete_topic', actorId: ids.admin, streamId: streams.general, topic: 'BULK' }, ctx);
  if (!first.ok) throw first.error;
  t.same(first.value.reply, { complete: false }, 'bounded: more remain');
  t.equal(first.value.records.length, MAX_DELETE_TOPIC_MESSAGES / DELETE_TOPIC_BATCH_SIZE);
  const firstBatch = (first.value.records[0] as { ids: number[] }).ids;
  t.same(firstBatch, sent.slice(-DELETE_TOPIC_BATCH_SIZE), 'newest first');
  t.ok(first.value.events.every((e) => e.payload.type === 'delete_message'), 'no first_message_id change yet');
  for (const r of first.value.records) evolve(state, r);

  const second = decide(state, { type: 'delete_topic', actorId: ids.admin, streamId: streams.general, topic: 'bulk' }, ctx);
  if (!second.ok) throw second.error;
  t.same(second.value.reply, { complete: true });
  t.same(second.value.records.map((r) => (r as { ids: number[] }).ids.length), [100, 50]);
  const firstIdUpdate = second.value.events.find((e) => e.payload.type === 'stream');
  t.match(firstIdUpdate?.payload, { property: 'first_message_id' }, 'the oldest message goes: first_message_id moves');
  const fp = fingerprint(state);
  for (const r of second.value.records) evolve(state, r);
  t.not(fingerprint(state), fp);
  t.ok(sent.every((id) => !state.messages.exists(id)), 'all of the topic deleted');
  t.equal(state.streams.get(streams.general)!.firstMessageId, sent[total - 1]! + 1, 'the other topic remains first');
});
