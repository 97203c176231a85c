/**
 * The 10,000-queue attack (issue: one guest registered 10,000 event queues with a 7-day
 * lifespan): against a real server process, one user registers 10,000 queues asking for the
 * longest lifespan; the server's resident memory (VmRSS, /proc/<pid>/status) must stay within
 * +50 MiB of what it was after a warm-up, because a user holds at most MAX_QUEUES_PER_USER
 * queues. Rate limits are off (at 200 requests per minute the attack would take 50 minutes).
 */
import t from 'tap';
import { basicAuth, fetchApiKey, processMemory, startServer } from '../support/server-process.js';
import { MAX_QUEUE_LIFESPAN_SECONDS } from '../../src/events/event-queues.js';

const REGISTRATIONS = 10_000;
const WARMUP = 500;
const CONCURRENCY = 8;
const MAX_GROWTH_MIB = 50;

t.test('10,000 registrations by one user leave RSS within +50 MiB', { skip: processMemory(process.pid) === undefined && 'no /proc here' }, async (t) => {
  const server = await startServer({ t, args: ['--rate-limits', 'off'] });
  const email = 'polonius@zulip.com';
  const { api_key: key } = await fetchApiKey(server.url, email, 'parley-e2e-password');
  const headers = { authorization: basicAuth(email, key), 'content-type': 'application/x-www-form-urlencoded' };
  // All event types (what a queue holds is the same), a small initial state (fast to build).
  const body = new URLSearchParams({ fetch_event_types: '["realm_user"]', queue_lifespan_secs: String(MAX_QUEUE_LIFESPAN_SECONDS) }).toString();
  const queueIds = new Set<string>();
  let failures = 0;
  const register = async (count: number) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        const reply = await fetch(`${server.url}/api/v1/register`, { method: 'POST', headers, body });
        const json = (await reply.json()) as { queue_id?: string };
        if (reply.status === 200 && json.queue_id) queueIds.add(json.queue_id);
        else failures++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  const settle = () => new Promise((r) => setTimeout(r, 1000));

  await register(WARMUP);
  await settle();
  const before = processMemory(server.pid)!;
  const started = Date.now();
  await register(REGISTRATIONS);
  const seconds = (Date.now() - started) / 1000;
  await settle();
  const after = processMemory(server.pid)!;
  const growth = after.rssMiB - before.rssMiB;
  t.equal(failures, 0, 'every registration succeeded');
  t.equal(queueIds.size, WARMUP + REGISTRATIONS, 'each got its own queue');
  t.comment(
    `RSS ${before.rssMiB.toFixed(1)} → ${after.rssMiB.toFixed(1)} MiB (+${growth.toFixed(1)}; anon ${before.anonMiB.toFixed(1)} → ${after.anonMiB.toFixed(1)}) ` +
      `after ${REGISTRATIONS} registrations in ${seconds.toFixed(1)} s`,
  );
  t.ok(growth < MAX_GROWTH_MIB, `RSS grew ${growth.toFixed(1)} MiB (< ${MAX_GROWTH_MIB})`);

  // The newest queue works; one of the first ones was dropped and says so.
  const ids = [...queueIds];
  const newest = await fetch(`${server.url}/api/v1/events?queue_id=${encodeURIComponent(ids.at(-1)!)}&last_event_id=-1&dont_block=true`, { headers });
  t.equal(newest.status, 200, 'the newest queue is alive');
  const oldest = await fetch(`${server.url}/api/v1/events?queue_id=${encodeURIComponent(ids[0]!)}&last_event_id=-1&dont_block=true`, { headers });
  t.match(await oldest.json(), { result: 'error', code: 'BAD_EVENT_QUEUE_ID' }, 'the oldest queue was dropped');
  t.equal(oldest.status, 400);
});
