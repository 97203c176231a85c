/**
 * POST /register, GET /events, DELETE /events, POST /typing through the HTTP stack
 * (https://zulip.com/api/real-time-events).
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';

t.test('register, send, receive the message event with flags and local id', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const reg = await hamlet.call('POST', '/register', { event_types: ['message'], fetch_event_types: ['message', 'realm'] });
  t.equal(reg.status, 200);
  t.match(reg.body, { result: 'success', last_event_id: -1, zulip_feature_level: 417, max_message_length: 10000, max_topic_length: 60 });
  t.type(reg.body.queue_id, 'string');
  const sent = await hamlet.call('POST', '/messages', {
    type: 'stream', to: 'Verona', topic: 'events', content: '**hi**', queue_id: reg.body.queue_id, local_id: '1.01',
  });
  const other = await othello.call('POST', '/messages', { type: 'direct', to: [hamlet.userId], content: 'psst' });
  const polled = await hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  t.equal(polled.body.queue_id, reg.body.queue_id);
  t.same(polled.body.events.map((e: { id: number }) => e.id), [0, 1]);
  const [mine, dm] = polled.body.events;
  t.match(mine, { type: 'message', local_message_id: '1.01', flags: [] });
  t.match(mine.message, { id: sent.body.id, content: '**hi**', content_type: 'text/x-markdown', subject: 'events', display_recipient: 'Verona', type: 'stream' });
  t.equal(mine.message.avatar_url, null, 'client_gravatar defaults to true');
  t.notOk('local_message_id' in dm, 'no local id on messages from others');
  t.match(dm, { type: 'message', flags: [] });
  t.match(dm.message, { id: other.body.id, type: 'private', content: 'psst' });
  const acked = await hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: 1, dont_block: true });
  t.same(acked.body.events, [], 'acknowledged events are gone');
});

t.test('apply_markdown and a long-poll that is woken by a send', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const reg = await hamlet.call('POST', '/register', { event_types: ['message'], apply_markdown: true, client_gravatar: false });
  const poll = hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  await new Promise((r) => setTimeout(r, 50));
  await iago.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'wake', content: '*up*' });
  const woken = await poll;
  t.equal(woken.body.events.length, 1);
  t.match(woken.body.events[0].message, { content: '<p><em>up</em></p>', content_type: 'text/html' });
  t.type(woken.body.events[0].message.avatar_url, 'string');
});

t.test('who receives what: private channel, narrow, event_types', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const outsider = await othello.call('POST', '/register', { event_types: ['message'] });
  const narrowed = await hamlet.call('POST', '/register', { event_types: ['message'], narrow: [['stream', 'Denmark']] });
  const typingOnly = await hamlet.call('POST', '/register', { event_types: ['typing'] });
  await hamlet.call('POST', '/messages', { type: 'stream', to: 'core team', topic: 'secret', content: 'private' });
  await hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'x', content: 'danish' });
  const seen = await othello.call('GET', '/events', { queue_id: outsider.body.queue_id, last_event_id: -1, dont_block: true });
  t.same(seen.body.events.map((e: { message: { content: string } }) => e.message.content), ['danish'], 'no private-channel message for a non-subscriber');
  const n = await hamlet.call('GET', '/events', { queue_id: narrowed.body.queue_id, last_event_id: -1, dont_block: true });
  t.same(n.body.events.map((e: { message: { content: string } }) => e.message.content), ['danish']);
  const ty = await hamlet.call('GET', '/events', { queue_id: typingOnly.body.queue_id, last_event_id: -1, dont_block: true });
  t.same(ty.body.events, []);
  const badNarrow = await hamlet.call('POST', '/register', { narrow: [['search', 'x']] });
  t.same(badNarrow.body, { result: 'error', msg: 'Operator search not supported.', code: 'BAD_REQUEST' });
  const guestAll = await (await s.as('polonius@zulip.com')).call('POST', '/register', { all_public_streams: true });
  t.equal(guestAll.body.msg, 'User not authorized for this query');
});

t.test('queue errors and deletion', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const reg = await hamlet.call('POST', '/register', {});
  const missing = await hamlet.call('GET', '/events', { last_event_id: -1 });
  t.same(missing.body, { result: 'error', msg: "Missing 'queue_id' argument", code: 'BAD_REQUEST' });
  const noLast = await hamlet.call('GET', '/events', { queue_id: reg.body.queue_id });
  t.same(noLast.body, { result: 'error', msg: "Missing 'last_event_id' argument", code: 'BAD_REQUEST' });
  const foreign = await othello.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  t.same(foreign.body, { result: 'error', msg: `Bad event queue ID: ${reg.body.queue_id}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: reg.body.queue_id });
  t.equal(foreign.status, 400);
  const del = await hamlet.call('DELETE', '/events', { queue_id: reg.body.queue_id });
  t.same(del.body, { result: 'success', msg: '' });
  const gone = await hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  t.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID');
  const delAgain = await hamlet.call('DELETE', '/events', { queue_id: reg.body.queue_id });
  t.equal(delAgain.body.code, 'BAD_EVENT_QUEUE_ID');
});

t.test('register state does not double-count a message sent while registering', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const sends = Array.from({ length: 20 }, (_, i) => othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'race', content: `m${i}` }));
  const reg = await hamlet.call('POST', '/register', { event_types: ['message'], fetch_event_types: ['message'] });
  const ids = (await Promise.all(sends)).map((r) => r.body.id as number);
  const events = await hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  const delivered = events.body.events.map((e: { message: { id: number } }) => e.message.id);
  const inState = ids.filter((id) => id <= reg.body.max_message_id);
  t.same([...inState, ...delivered].sort((a, b) => a - b), [...ids].sort((a, b) => a - b), 'every message exactly once: in the state or as an event');
  t.ok(delivered.every((id: number) => id > reg.body.max_message_id), 'no event for a message already in the state');
});

t.test('typing events', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const reg = await othello.call('POST', '/register', { event_types: ['typing'] });
  t.same((await hamlet.call('POST', '/typing', { op: 'start', to: [othello.userId] })).body, { result: 'success', msg: '' });
  await hamlet.call('POST', '/typing', { type: 'stream', op: 'stop', stream_id: 1, topic: 'x' });
  const ev = await othello.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  t.match(ev.body.events[0], {
    type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: hamlet.userId, email: 'hamlet@zulip.com' },
    recipients: [{ user_id: hamlet.userId }, { user_id: othello.userId }],
  });
  t.match(ev.body.events[1], { type: 'typing', op: 'stop', message_type: 'stream', stream_id: 1, topic: 'x' });
  t.equal((await hamlet.call('POST', '/typing', { op: 'bogus', to: [1] })).body.msg, 'Invalid op');
  t.equal((await hamlet.call('POST', '/typing', { op: 'start', to: [] })).body.msg, "Empty 'to' list");
  t.equal((await hamlet.call('POST', '/typing', { op: 'start', to: [999] })).body.msg, 'Invalid user ID 999');
  t.equal((await hamlet.call('POST', '/typing', { type: 'stream', op: 'start', topic: 'x' })).body.msg, 'Missing stream_id');
});

t.test('channel email address', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const r = await hamlet.call('GET', '/streams/1/email_address');
  t.match(r.body.email, /^Verona\.[0-9a-f]{32}@localhost$/);
  const othello = await s.as('othello@zulip.com');
  const priv = await othello.call('GET', '/streams/6/email_address');
  t.same(priv.body, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' }, 'private channel of others: no oracle');
});

t.test("queue_lifespan_secs: 0 = Zulip's default (600 s), capped at 7 days; a user's 51st queue drops the longest-idle one", async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const lifespan = async (value: number | undefined) => {
    const reg = await hamlet.call('POST', '/register', { fetch_event_types: ['realm_user'], ...(value !== undefined && { queue_lifespan_secs: value }) });
    t.equal(reg.status, 200);
    const queue = s.server.queues.get(reg.body.queue_id, s.server.registry.bySubdomainName('')!.id, hamlet.userId)!;
    return { id: reg.body.queue_id as string, seconds: queue.settings.idleTimeoutSeconds ?? s.server.queues.timing.idleTimeoutSeconds };
  };
  t.equal((await lifespan(undefined)).seconds, 600);
  t.equal((await lifespan(0)).seconds, 600);
  t.equal((await lifespan(-5)).seconds, 600);
  t.equal((await lifespan(3600)).seconds, 3600);
  t.equal((await lifespan(10 ** 9)).seconds, 7 * 24 * 3600, "capped at Zulip's MAX_QUEUE_TIMEOUT_SECS");

  const ids: string[] = [];
  for (let i = 0; i < 60; i++) ids.push((await lifespan(7 * 24 * 3600)).id);
  t.equal(s.server.queues.size, 50, 'at most 50 queues for one user');
  const first = await hamlet.call('GET', '/events', { queue_id: ids[0], last_event_id: -1, dont_block: true });
  t.match(first.body, { code: 'BAD_EVENT_QUEUE_ID' }, 'the longest-idle queue was dropped');
  const last = await hamlet.call('GET', '/events', { queue_id: ids.at(-1), last_event_id: -1, dont_block: true });
  t.equal(last.status, 200, 'the newest works');
});
