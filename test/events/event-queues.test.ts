/**
 * EventQueueManager: routing, long-poll, heartbeats, acknowledgement, GC, limits
 * (https://zulip.com/api/real-time-events).
 */
import t from 'tap';
import { EventQueueManager, MAX_QUEUE_LIFESPAN_SECONDS, MAX_QUEUES_PER_USER, MAX_USER_BACKLOG_EVENTS } from '../../src/events/event-queues.js';
import { collectingLogger, replaceLogger } from '../../src/log.js';
import { MAX_QUEUE_EVENTS, type QueueSettings } from '../../src/events/event-queue.js';
import type { RealmEvent } from '../../src/events/realm-event.js';

const settings = (over: Partial<QueueSettings> = {}): QueueSettings => ({
  eventTypes: null, applyMarkdown: true, clientGravatar: false, slimPresence: false, allPublicStreams: false,
  narrow: null, clientCapabilities: {}, ...over,
});
const fast = { idleTimeoutSeconds: 600, heartbeatSeconds: 0.05, heartbeatJitterSeconds: 0, gcIntervalSeconds: 3600 };
const noAbort = () => {};
const typingEvent = (userIds: number[]): RealmEvent => ({ userIds, payload: { type: 'typing', op: 'start' } });
const messageEvent = (userIds: number[], over: Partial<NonNullable<RealmEvent['message']>> = {}): RealmEvent => ({
  userIds,
  payload: { type: 'message', message: { id: 9, content: '<p>hi</p>', content_type: 'text/html', avatar_url: 'https://x', subject: '', type: 'stream', display_recipient: 'Verona' } },
  message: { raw: 'hi', senderEmailPublic: true, flags: { 1: ['read'], 2: [] }, ...over },
});

t.test('ids, routing to users, acknowledgement', async (t) => {
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  const q1 = m.register(1, 1, settings(), 0);
  const q2 = m.register(1, 2, settings(), 0);
  const other = m.register(2, 1, settings(), 0);
  t.equal(q1.lastEventId, -1);
  m.publish(1, 1, [typingEvent([1])]);
  m.publish(1, 2, [typingEvent([1, 2])]);
  t.same((await m.poll(q1, -1, true, noAbort))!.map((e) => e.id), [0, 1]);
  t.same((await m.poll(q2, -1, true, noAbort))!.map((e) => e.id), [0]);
  t.same(await m.poll(other, -1, true, noAbort), [], 'other realm untouched');
  t.same((await m.poll(q1, 0, true, noAbort))!.map((e) => e.id), [1], 'last_event_id acknowledges');
  t.equal(q1.size, 1, 'acknowledged events are pruned');
  t.equal(m.get(q1.id, 1, 2), undefined, 'another user cannot use the queue');
  t.equal(m.get(q1.id, 2, 1), undefined, 'nor another realm');
});

t.test('events of commands already in the register state are skipped', async (t) => {
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  const q = m.register(1, 1, settings(), 5);
  m.publish(1, 5, [typingEvent([1])]);
  m.publish(1, 6, [typingEvent([1])]);
  t.equal(q.size, 1);
});

t.test('long-poll waits, wakes on an event, or returns a heartbeat', async (t) => {
  const m = new EventQueueManager({ ...fast, heartbeatSeconds: 3600 });
  t.teardown(() => m.shutdown());
  const q = m.register(1, 1, settings(), 0);
  const waiting = m.poll(q, -1, false, noAbort);
  t.ok(q.attached);
  m.publish(1, 1, [typingEvent([1])]);
  t.same((await waiting)!.map((e) => e.type), ['typing']);
  t.notOk(q.attached, 'a finished poll detaches');

  const hb = new EventQueueManager(fast);
  t.teardown(() => hb.shutdown());
  const q2 = hb.register(1, 1, settings(), 0);
  const started = Date.now();
  const result = await hb.poll(q2, -1, false, noAbort);
  t.same(result, [{ type: 'heartbeat', id: 0 }]);
  t.ok(Date.now() - started >= 40, 'after the heartbeat interval');
});

t.test('a newer poll finishes the older one; abort and delete', async (t) => {
  const m = new EventQueueManager({ ...fast, heartbeatSeconds: 3600 });
  t.teardown(() => m.shutdown());
  const q = m.register(1, 1, settings(), 0);
  const first = m.poll(q, -1, false, noAbort);
  const second = m.poll(q, -1, false, noAbort);
  t.same(await first, [], 'replaced poll answers with no events');
  t.equal(await Promise.race([second, new Promise((r) => setTimeout(() => r('pending'), 20))]), 'pending');
  let abort = () => {};
  const third = m.poll(q, -1, false, (cb) => (abort = cb));
  t.same(await second, []);
  abort();
  t.same(await third, [], 'an aborted poll lets go');
  t.notOk(q.attached, 'nothing is left attached after an abort');
  const fourth = m.poll(q, -1, false, noAbort);
  m.delete(q);
  t.equal(await fourth, null, 'a deleted queue answers null (BAD_EVENT_QUEUE_ID)');
  t.equal(m.get(q.id, 1, 1), undefined);
  t.equal(m.size, 0);
});

t.test('event_types, narrow, apply_markdown, client_gravatar, local_message_id, all_public_streams', async (t) => {
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  const onlyMessages = m.register(1, 1, settings({ eventTypes: new Set(['message']) }), 0);
  const raw = m.register(1, 1, settings({ applyMarkdown: false, clientGravatar: true }), 0);
  const narrowed = m.register(1, 2, settings({ narrow: (msg) => msg.display_recipient === 'Denmark' }), 0);
  const watcher = m.register(1, 3, settings({ allPublicStreams: true }), 0);
  m.publish(1, 1, [typingEvent([1]), messageEvent([1, 2], { senderQueueId: onlyMessages.id, localId: '42.01', publicStreamId: 7 })]);
  const [a] = (await m.poll(onlyMessages, -1, true, noAbort))!;
  t.match(a, { type: 'message', flags: ['read'], local_message_id: '42.01' });
  t.equal((a!.message as { content: string }).content, '<p>hi</p>');
  const events = (await m.poll(raw, -1, true, noAbort))!;
  t.same(events.map((e) => e.type), ['typing', 'message']);
  t.match(events[1]!.message, { content: 'hi', content_type: 'text/x-markdown', avatar_url: null });
  t.notOk('local_message_id' in events[1]!, 'only the sending queue gets the local id');
  t.equal(narrowed.size, 0, 'narrow excluded the message');
  t.match((await m.poll(watcher, -1, true, noAbort))!, [{ type: 'message', flags: [] }], 'all_public_streams queue gets public messages');
});

t.test('empty topic shown as the display name to clients without the capability', async (t) => {
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  const old = m.register(1, 1, settings(), 0);
  const modern = m.register(1, 1, settings({ clientCapabilities: { empty_topic_name: true } }), 0);
  m.publish(1, 1, [messageEvent([1], { emptyTopicDisplayName: 'general chat' })]);
  t.equal(((await m.poll(old, -1, true, noAbort))![0]!.message as { subject: string }).subject, 'general chat');
  t.equal(((await m.poll(modern, -1, true, noAbort))![0]!.message as { subject: string }).subject, '');
});

t.test('idle queues are collected; attached ones are not', async (t) => {
  let now = 1_000_000;
  const m = new EventQueueManager({ ...fast, heartbeatSeconds: 3600 }, () => now);
  t.teardown(() => m.shutdown());
  const idle = m.register(1, 1, settings(), 0);
  const busy = m.register(1, 1, settings(), 0);
  const longLived = m.register(1, 1, settings({ idleTimeoutSeconds: 3600 }), 0);
  const polling = m.poll(busy, -1, false, noAbort);
  now += 601_000;
  t.equal(m.collectIdle(), 1);
  t.equal(m.get(idle.id, 1, 1), undefined);
  t.ok(m.get(busy.id, 1, 1));
  t.ok(m.get(longLived.id, 1, 1), 'queue_lifespan_secs extends the idle timeout');
  now += 3000_000;
  t.equal(m.collectIdle(), 1, 'until it too has expired');
  m.shutdown();
  t.same(await polling, [{ type: 'heartbeat', id: 0 }], 'shutdown answers waiting polls');
});

t.test('a queue nobody drains is dropped past its backlog limit', async (t) => {
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  const q = m.register(1, 1, settings(), 0);
  const logged: Array<Record<string, unknown>> = [];
  const original = replaceLogger(collectingLogger(logged, 'warn'));
  try {
    for (let i = 0; i <= MAX_QUEUE_EVENTS; i++) m.publish(1, 1, [typingEvent([1])]);
  } finally {
    replaceLogger(original);
  }
  t.equal(m.get(q.id, 1, 1), undefined);
  t.equal(logged.length, 1);
  t.match(logged[0], { level: 40, event: 'queue_dropped', queue_id: q.id }, 'logged as a warning naming the queue');
});

t.test('queues with the same settings share one message object; others get their own variant', async (t) => {
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  const a = m.register(1, 1, settings(), 0);
  const b = m.register(1, 2, settings(), 0);
  const raw = m.register(1, 2, settings({ applyMarkdown: false }), 0);
  m.publish(1, 1, [messageEvent([1, 2])]);
  const [ea] = (await m.poll(a, -1, true, noAbort))!;
  const [eb] = (await m.poll(b, -1, true, noAbort))!;
  const [er] = (await m.poll(raw, -1, true, noAbort))!;
  t.equal(ea!.message, eb!.message, 'same object');
  t.not(ea!.message, er!.message);
  t.equal((ea!.message as { content: string }).content, '<p>hi</p>');
  t.equal((er!.message as { content: string }).content, 'hi');
  t.same([ea!.flags, eb!.flags], [['read'], []], 'flags stay per user');
});

t.test('queues per user are capped: the longest-idle queue is dropped, registering never fails', async (t) => {
  let clock = 1_000_000;
  const m = new EventQueueManager({ ...fast, heartbeatSeconds: 3600 }, () => clock, 3);
  t.teardown(() => m.shutdown());
  const a = m.register(1, 1, settings(), 0);
  clock += 10;
  const b = m.register(1, 1, settings(), 0);
  clock += 10;
  const c = m.register(1, 1, settings(), 0);
  const otherUser = m.register(1, 2, settings(), 0);
  const waiting = m.poll(a, -1, false, noAbort); // a: oldest, but a client is attached
  clock += 10;
  m.poll(c, -1, true, noAbort); // c: polled just now
  t.equal(m.size, 4);

  const d = m.register(1, 1, settings(), 0);
  t.equal(m.size, 4, 'one queue dropped for the new one');
  t.equal(m.get(b.id, 1, 1), undefined, 'the idle queue with the oldest activity went first');
  t.ok(b.closed);
  t.ok(m.get(a.id, 1, 1) && m.get(c.id, 1, 1) && m.get(d.id, 1, 1), 'the attached one, the recently polled one and the new one stay');
  t.ok(m.get(otherUser.id, 1, 2), "another user's queue is not touched");

  clock += 10;
  m.poll(d, -1, true, noAbort);
  m.register(1, 1, settings(), 0);
  t.equal(m.get(c.id, 1, 1), undefined, 'next: the next idle queue (c), never the attached one while an idle one exists');
  t.ok(m.get(a.id, 1, 1));

  // Every queue attached: the longest-attached one (a) goes, and its poll learns the queue is gone.
  m.poll(d, -1, false, noAbort);
  const last = m.register(1, 1, settings(), 0); // drops the idle queue registered just above
  t.ok(m.get(last.id, 1, 1), 'registering still succeeds');
  m.poll(last, -1, false, noAbort);
  m.register(1, 1, settings(), 0);
  t.equal(await waiting, null, "a dropped queue's waiting poll is told (BAD_EVENT_QUEUE_ID)");
  let held = 0;
  for (const q of [a, b, c, d, last]) if (m.get(q.id, 1, 1)) held++;
  t.equal(held, 2, 'still at most 3 queues for the user');
});

t.test('10,000 registrations by one user keep at most MAX_QUEUES_PER_USER queues', async (t) => {
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  for (let i = 0; i < 10_000; i++) m.register(1, 7, settings({ idleTimeoutSeconds: MAX_QUEUE_LIFESPAN_SECONDS }), 0);
  t.equal(m.size, MAX_QUEUES_PER_USER);
  m.publish(1, 1, [typingEvent([7])]);
  t.equal(m.size, MAX_QUEUES_PER_USER, 'the survivors still receive events');
});

t.test("one user's queues together hold at most their backlog bound: the longest-idle go, the polling client stays", async (t) => {
  let clock = 1_000_000;
  const m = new EventQueueManager(fast, () => clock, 10, 25);
  t.teardown(() => m.shutdown());
  const idleOld = m.register(1, 1, settings(), 0);
  clock += 10;
  const idleNew = m.register(1, 1, settings(), 0);
  clock += 10;
  const polling = m.register(1, 1, settings(), 0);
  const other = m.register(1, 2, settings(), 0);
  const logged: Array<Record<string, unknown>> = [];
  const original = replaceLogger(collectingLogger(logged, 'warn'));
  let acknowledged = -1;
  try {
    for (let i = 0; i < 8; i++) m.publish(1, i + 1, [typingEvent([1, 2])]);
    t.equal(idleOld.backlog.events, 24, 'three queues × 8 events, counted across queues');
    t.equal(idleOld.backlog, polling.backlog, 'one counter per user');
    t.not(other.backlog, polling.backlog, "another user's own counter");
    clock += 10;
    const got = (await m.poll(polling, acknowledged, true, noAbort))!;
    acknowledged = got.at(-1)!.id;
    m.poll(polling, acknowledged, true, noAbort); // acknowledges: the polling queue holds nothing
    t.equal(polling.backlog.events, 16, 'acknowledged events leave the count');
    for (let i = 8; i < 13; i++) {
      m.publish(1, i + 1, [typingEvent([1, 2])]);
      clock += 10;
      const batch = (await m.poll(polling, acknowledged, true, noAbort))!;
      acknowledged = batch.at(-1)!.id;
    }
  } finally {
    replaceLogger(original);
  }
  // After event 13 the idle queues hold 13 + 13 = 26 > 25: the longest-idle one (idleOld) goes.
  t.equal(m.get(idleOld.id, 1, 1), undefined, 'the longest-idle queue was dropped');
  t.ok(idleOld.closed);
  t.ok(m.get(idleNew.id, 1, 1), 'one drop was enough');
  t.ok(m.get(polling.id, 1, 1), 'the polling client was never dropped');
  t.ok(m.get(other.id, 1, 2), "another user's queue is untouched (13 events, its own bound)");
  t.equal(polling.backlog.events, 13 + polling.size, 'the count equals what the live queues hold');
  t.match(logged, [{ level: 40, event: 'queue_dropped', user_id: 1, dropped: 1 }], 'logged once, naming the user');
});

t.test('MAX_USER_BACKLOG_EVENTS bounds 50 undrained queues far below 50 × MAX_QUEUE_EVENTS', async (t) => {
  t.ok(MAX_USER_BACKLOG_EVENTS >= 2 * MAX_QUEUE_EVENTS, 'a polling client (at most one queue cap behind) is never the one dropped');
  const m = new EventQueueManager(fast);
  t.teardown(() => m.shutdown());
  const queues = Array.from({ length: MAX_QUEUES_PER_USER }, () => m.register(1, 7, settings(), 0));
  const original = replaceLogger(collectingLogger([], 'warn'));
  try {
    for (let i = 0; i < 3 * (MAX_USER_BACKLOG_EVENTS / MAX_QUEUES_PER_USER); i++) m.publish(1, 1, [typingEvent([7])]);
  } finally {
    replaceLogger(original);
  }
  let held = 0;
  for (const q of queues) if (m.get(q.id, 1, 7)) held += q.size;
  t.ok(held <= MAX_USER_BACKLOG_EVENTS, `${held} events held (≤ ${MAX_USER_BACKLOG_EVENTS})`);
  t.equal(queues[0]!.backlog.events, held, 'the counter matches');
  t.ok(m.size > 0 && m.size < MAX_QUEUES_PER_USER, `${m.size} queues left`);
});
