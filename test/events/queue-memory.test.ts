/**
 * The 10,000-queue attack (one guest registered 10,000 event queues with a 7-day lifespan and the
 * server grew by hundreds of MB, each queue collecting a copy of every event): one user registers
 * 10,000 queues asking for the longest lifespan while messages keep arriving, and the process's
 * resident memory must stay within +50 MiB of what it was after a warm-up, because a user holds at
 * most MAX_QUEUES_PER_USER queues.
 *
 * Driven in-process through the real API dispatcher (no HTTP: 10,000 HTTP round trips take
 * minutes on a loaded 2-core machine), with rate limits off (at 200 requests per minute the
 * attack would take 50 minutes). RSS is VmRSS of this process, measured after a full GC.
 */
import t, { type Test } from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestServer } from '../support/test-server.js';
import { processMemory } from '../support/server-process.js';
import { createDispatcher, type ApiRequest } from '../../src/api/registry.js';
import { encodeBody } from '../../src/api/raw-json.js';
import { buildRoutes } from '../../src/api/endpoints.js';
import { MAX_QUEUE_LIFESPAN_SECONDS, MAX_QUEUES_PER_USER, MAX_USER_BACKLOG_EVENTS } from '../../src/events/event-queues.js';
import { collectingLogger, replaceLogger } from '../../src/log.js';
import type { User } from '../../src/domain/realm-state.js';

const REGISTRATIONS = 10_000;
const WARMUP = 300;
const MAX_GROWTH_MIB = 50;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * An in-process server (rate limits off) and a dispatcher called directly, so the loops measure
 * queue memory rather than HTTP; `request` builds a Basic-authenticated `/api/v1` request. Reply
 * bodies are decoded from what the server would send (`encodeBody`: events are spliced in as JSON).
 */
async function queueFixture(t: Test) {
  const s = await startTestServer(t, { rateLimits: false });
  const registry = s.server.registry;
  const realm = registry.bySubdomainName('')!;
  const dispatchRaw = createDispatcher(buildRoutes({ queues: s.server.queues }), {
    realmForHost: (host) => registry.realmForHost(host),
    authenticate: (r, email, key) => registry.authenticate(r as never, email, key),
  });
  const user = (email: string) => realm.state.users.get(realm.state.usersByEmail.get(email)!)!;
  const request = (u: User, method: string, path: string, body: Array<[string, string]>): ApiRequest => ({
    method,
    path: `/api/v1${path}`,
    query: [],
    body,
    headers: { host: '127.0.0.1', authorization: 'Basic ' + Buffer.from(`${u.email}:${u.apiKey}`).toString('base64') },
    remoteAddress: '127.0.0.1',
  });
  const guest = user('polonius@zulip.com');
  const hamlet = user('hamlet@zulip.com');
  const dispatch = async (req: ApiRequest) => {
    const reply = await dispatchRaw(req);
    return { ...reply, body: reply.body === null ? null : (JSON.parse(encodeBody(reply.body).toString()) as Record<string, unknown>) };
  };
  return { s, realm, dispatch, request, guest, hamlet };
}

t.test('10,000 registrations by one user leave RSS within +50 MiB', { skip: processMemory(process.pid) === undefined && 'no /proc here' }, async (t) => {
  const { s, realm, dispatch, request, guest, hamlet } = await queueFixture(t);
  // Every event type (what a queue collects is the same); a small initial state (fast to build).
  const registerBody: Array<[string, string]> = [['fetch_event_types', '["realm_user"]'], ['queue_lifespan_secs', String(MAX_QUEUE_LIFESPAN_SECONDS)]];
  const queueIds: string[] = [];
  let failures = 0;
  const register = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const reply = await dispatch(request(guest, 'POST', '/register', registerBody));
      JSON.stringify(reply.body); // as the HTTP layer would
      if (reply.status === 200) queueIds.push((reply.body as { queue_id: string }).queue_id);
      else failures++;
    }
  };
  let sent = 0;
  const send = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const reply = await dispatch(request(hamlet, 'POST', '/messages', [['type', 'stream'], ['to', 'Verona'], ['topic', 'attack'], ['content', `message ${sent++} ${'x'.repeat(200)}`]]));
      if (reply.status !== 200) failures++;
    }
  };
  const measure = async () => {
    await new Promise((r) => setTimeout(r, 200));
    gc();
    return processMemory(process.pid)!;
  };

  await register(WARMUP);
  await send(5);
  const before = await measure();
  const started = Date.now();
  for (let i = 0; i < REGISTRATIONS / 1000; i++) {
    await register(1000);
    await send(5); // events keep arriving: every live queue of the guest collects them
  }
  await send(50);
  const seconds = (Date.now() - started) / 1000;
  const after = await measure();
  const growth = after.rssMiB - before.rssMiB;
  t.equal(failures, 0, 'every registration and send succeeded');
  t.equal(new Set(queueIds).size, WARMUP + REGISTRATIONS, 'each registration got its own queue');
  t.ok(s.server.queues.size <= MAX_QUEUES_PER_USER, `${s.server.queues.size} queues live (≤ ${MAX_QUEUES_PER_USER})`);
  t.comment(
    `RSS ${before.rssMiB.toFixed(1)} → ${after.rssMiB.toFixed(1)} MiB (+${growth.toFixed(1)}; anon ${before.anonMiB.toFixed(1)} → ` +
      `${after.anonMiB.toFixed(1)}) after ${REGISTRATIONS} registrations and ${sent} messages in ${seconds.toFixed(1)} s`,
  );
  t.ok(growth < MAX_GROWTH_MIB, `RSS grew ${growth.toFixed(1)} MiB (< ${MAX_GROWTH_MIB})`);

  const poll = (queueId: string) => dispatch(request(guest, 'GET', '/events', [['queue_id', queueId], ['last_event_id', '-1'], ['dont_block', 'true']]));
  const newest = await poll(queueIds.at(-1)!);
  t.equal(newest.status, 200, 'the newest queue is alive');
  t.equal((newest.body as { events: Array<{ type: string }> }).events.filter((e) => e.type === 'message').length, 55, 'and got the 55 messages sent after it');
  const oldest = await poll(queueIds[0]!);
  t.match(oldest.body, { result: 'error', code: 'BAD_EVENT_QUEUE_ID' }, 'the oldest queue was dropped');
});

/**
 * The backlog attack: after 10,000 registrations (messages flowing), the user's 50 surviving queues
 * are never drained while events keep coming (typing notifications cost no disk write, so 20,000
 * of them take seconds): 50 × 20,000 = 1,000,000 events would be held without a bound on the
 * user's total backlog (MAX_USER_BACKLOG_EVENTS).
 */
t.test("one user's undrained queues stay within the total backlog bound: live heap within +25 MiB, RSS within +150 MiB", { skip: processMemory(process.pid) === undefined && 'no /proc here' }, async (t) => {
  const TYPING_EVENTS = 20_000;
  const { s, realm, dispatch, request, guest, hamlet } = await queueFixture(t);
  const registerBody: Array<[string, string]> = [['fetch_event_types', '["realm_user"]'], ['queue_lifespan_secs', String(MAX_QUEUE_LIFESPAN_SECONDS)]];
  let failures = 0;
  const queueIds: string[] = [];
  const register = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const reply = await dispatch(request(guest, 'POST', '/register', registerBody));
      if (reply.status === 200) queueIds.push((reply.body as { queue_id: string }).queue_id);
      else failures++;
    }
  };
  const flood = async (typing: number, messages: number) => {
    for (let i = 0; i < typing; i++) {
      const reply = await dispatch(request(hamlet, 'POST', '/typing', [['op', i % 2 ? 'stop' : 'start'], ['type', 'direct'], ['to', JSON.stringify([guest.id])]]));
      if (reply.status !== 200) failures++;
    }
    for (let i = 0; i < messages; i++) {
      const reply = await dispatch(request(hamlet, 'POST', '/messages', [['type', 'stream'], ['to', 'Verona'], ['topic', 'flood'], ['content', `flood ${i} ${'x'.repeat(200)}`]]));
      if (reply.status !== 200) failures++;
    }
  };
  const measure = async () => {
    await new Promise((r) => setTimeout(r, 200));
    gc();
    return processMemory(process.pid)!;
  };
  const held = () => {
    let events = 0;
    for (const id of queueIds) events += s.server.queues.get(id, realm.id, guest.id)?.size ?? 0;
    return events;
  };

  await register(100);
  await flood(100, 5);
  const before = await measure();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = Date.now();
  const logged: Array<Record<string, unknown>> = [];
  const original = replaceLogger(collectingLogger(logged, 'warn'));
  try {
    for (let round = 0; round < 10; round++) {
      await register(1000);
      await flood(0, 5);
    }
    // Now the 50 surviving queues, never drained, get every typing notification.
    await flood(TYPING_EVENTS, 0);
  } finally {
    replaceLogger(original);
  }
  const seconds = (Date.now() - started) / 1000;
  const after = await measure();
  const growth = after.rssMiB - before.rssMiB;
  const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  t.equal(failures, 0, 'every registration, typing notification and send succeeded');
  t.ok(held() <= MAX_USER_BACKLOG_EVENTS, `the guest's queues hold ${held()} events (≤ ${MAX_USER_BACKLOG_EVENTS})`);
  t.ok(logged.some((e) => e.event === 'queue_dropped' && e.user_id === guest.id), 'the drops were logged');
  t.comment(
    `RSS ${before.rssMiB.toFixed(1)} → ${after.rssMiB.toFixed(1)} MiB (+${growth.toFixed(1)}), live heap +${heapGrowth.toFixed(1)} MiB after 10,000 registrations, ` +
      `${TYPING_EVENTS} typing notifications and 50 messages in ${seconds.toFixed(1)} s; ${s.server.queues.size} queues, ${held()} events held`,
  );
  // Live memory is the bound's measure; RSS also keeps the garbage of 20,000 requests' high-water.
  t.ok(heapGrowth < 25, `live heap grew ${heapGrowth.toFixed(1)} MiB (< 25; 1,000,000 held events would be > 50)`);
  t.ok(growth < 3 * MAX_GROWTH_MIB, `RSS grew ${growth.toFixed(1)} MiB (< ${3 * MAX_GROWTH_MIB}; the spread-copied events held before took ~350 MiB)`);

  // A client that keeps polling is never the one dropped: it registers, then polls after every event.
  const client = await dispatch(request(guest, 'POST', '/register', registerBody));
  const queueId = (client.body as { queue_id: string }).queue_id;
  let lastEventId = -1;
  let received = 0;
  for (let i = 0; i < 3_000; i++) {
    await flood(1, 0);
    const reply = await dispatch(request(guest, 'GET', '/events', [['queue_id', queueId], ['last_event_id', String(lastEventId)], ['dont_block', 'true']]));
    if (reply.status !== 200) break;
    const events = (reply.body as { events: Array<{ id: number }> }).events;
    received += events.length;
    if (events.length) lastEventId = events.at(-1)!.id;
  }
  t.equal(received, 3_000, 'the polling client got every event while idle queues were dropped around it');
});
