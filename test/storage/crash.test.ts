/**
 * Durability of acknowledged writes across a crash (src/README.md: persistence): a `POST /messages` reply is
 * sent only once the message is on disk, so `kill -9` in the middle of a burst of concurrent sends
 * must not lose any message whose reply reached the client, and recovery must not invent, garble
 * or duplicate messages, nor reuse ids. Also: SIGTERM during a burst finishes in-flight work and
 * exits 0 with everything acknowledged still there.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import type { Test } from 'tap';
import { api, CLI_PATH, fetchApiKey, makeTempDir, startServer as startParley, type ServerProcess, type StartServerOptions } from '../support/server-process.js';

/** Every server here runs with `--rate-limits off`: the bursts send thousands of messages as one user. */
const startServer = (options: StartServerOptions) => startParley({ ...options, args: [...(options.args ?? []), '--rate-limits', 'off'] });

const PW = 'crash-test-password';
const EMAIL = 'hamlet@zulip.com';
const CONCURRENCY = 8;
const MAX_SENDS = 3000;
const MAX_BURST_MS = 1500;

/** A bounded burst of concurrent channel sends with unique contents. */
interface Burst {
  /** id → content of every send whose success reply was received. */
  readonly acked: Map<number, string>;
  /** Every content sent (acknowledged or not). */
  readonly sent: Set<string>;
  /** Requests sent and not yet answered (or failed). */
  inFlight(): number;
  /** Non-success HTTP replies (status + body), other than `allowStatus`. */
  readonly failures: string[];
  /** Network errors (expected once the server is killed). */
  networkErrors: number;
  /** Resolves when every loop has stopped. */
  readonly done: Promise<void>;
}

/**
 * Starts `CONCURRENCY` loops each sending `POST /messages` (Verona, topic "crash") with content
 * `<prefix>-<n>` until `MAX_SENDS` sends were started, `MAX_BURST_MS` passed, or the loop hit an
 * error (a network error or a non-success reply stops that loop). Replies with `allowStatus`
 * (e.g. 503 while shutting down) stop the loop without counting as failures.
 */
function startBurst(url: string, key: string, prefix: string, allowStatus: number[] = []): Burst {
  const acked = new Map<number, string>();
  const sent = new Set<string>();
  const failures: string[] = [];
  let started = 0;
  let settled = 0;
  const deadline = Date.now() + MAX_BURST_MS;
  const burst = {
    acked,
    sent,
    failures,
    networkErrors: 0,
    inFlight: () => started - settled,
    done: Promise.resolve(),
  };
  const loop = async () => {
    while (started < MAX_SENDS && Date.now() < deadline) {
      const content = `${prefix}-${started++}`;
      sent.add(content);
      try {
        const reply = await api<{ id: number }>(url, EMAIL, key, 'POST', 'messages', {
          type: 'stream',
          to: 'Verona',
          topic: 'crash',
          content,
        });
        settled++;
        if (reply.status === 200 && reply.body.result === 'success' && typeof reply.body.id === 'number') {
          acked.set(reply.body.id, content);
          continue;
        }
        if (!allowStatus.includes(reply.status)) failures.push(`HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
        return;
      } catch {
        settled++;
        burst.networkErrors++;
        return;
      }
    }
  };
  burst.done = Promise.all(Array.from({ length: CONCURRENCY }, loop)).then(() => {});
  return burst;
}

/**
 * Resolves once `burst` has `acks` acknowledged sends, or `ms` passed with at least one ack (on a
 * slow machine), and in any case before the burst's own deadline, so the loops are still running.
 */
async function waitForAcks(burst: Burst, acks: number, ms: number): Promise<void> {
  const start = Date.now();
  for (;;) {
    const elapsed = Date.now() - start;
    if (burst.acked.size >= acks || (elapsed >= ms && burst.acked.size > 0) || elapsed >= MAX_BURST_MS - 200) return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Fetches every id in `expected` (8 at a time) and asserts its raw content. */
async function assertAllPresent(t: Test, server: ServerProcess, key: string, expected: Map<number, string>): Promise<void> {
  const ids = [...expected.keys()];
  const wrong: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const reply = await api<{ raw_content: string }>(server.url, EMAIL, key, 'GET', `messages/${id}`);
      if (reply.status !== 200 || reply.body.raw_content !== expected.get(id)) {
        wrong.push(`#${id}: expected ${expected.get(id)}, got HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  t.same(wrong.slice(0, 20), [], `all ${ids.length} acknowledged messages are back with their content (${wrong.length} wrong)`);
}

/**
 * Scans ids in [from, to) and asserts that each existing message has a content this test sent
 * (acknowledged or in flight at the crash) and that no content appears twice.
 */
async function assertNoGarbage(t: Test, server: ServerProcess, key: string, from: number, to: number, sent: Set<string>): Promise<void> {
  const seen = new Map<string, number>();
  const problems: string[] = [];
  let next = from;
  const worker = async () => {
    while (next < to) {
      const id = next++;
      const reply = await api<{ raw_content: string }>(server.url, EMAIL, key, 'GET', `messages/${id}`);
      if (reply.status !== 200) continue; // an unacknowledged send that did not survive: allowed
      const content = reply.body.raw_content;
      if (!sent.has(content)) problems.push(`#${id} has unexpected content ${JSON.stringify(content)}`);
      const other = seen.get(content);
      if (other !== undefined) problems.push(`content ${content} stored twice (#${other}, #${id})`);
      seen.set(content, id);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  t.same(problems.slice(0, 20), [], `ids ${from}..${to - 1}: only sent contents, no duplicates`);
}

/** Sends one message and returns its id. */
async function sendOne(server: ServerProcess, key: string, content: string): Promise<number> {
  const reply = await api<{ id: number }>(server.url, EMAIL, key, 'POST', 'messages', {
    type: 'stream',
    to: 'Verona',
    topic: 'crash',
    content,
  });
  if (reply.status !== 200) throw new Error(`send failed: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.id;
}

t.test('SIGKILL during a burst of sends loses no acknowledged message', async (t) => {
  const dataDir = makeTempDir(t);
  // Round 2 snapshots every 200 records, so the kill lands around snapshot writes too.
  const rounds = [
    { killAtAcks: 100, killAtMs: 400, args: [] as string[] },
    { killAtAcks: 600, killAtMs: 900, args: ['--snapshot-every-records', '200'] },
    { killAtAcks: 30, killAtMs: 150, args: ['--snapshot-every-records', '200'] },
  ];
  const allAcked = new Map<number, string>();
  const allSent = new Set<string>();
  let key: string | undefined;
  let firstId = Infinity;

  for (const [i, round] of rounds.entries()) {
    await t.test(`round ${i + 1}: kill -9 after ~${round.killAtAcks} acks`, async (t) => {
      const server = await startServer({ t, dataDir, demoPassword: PW, args: round.args });
      const login = await fetchApiKey(server.url, EMAIL, PW);
      if (key !== undefined) t.equal(login.api_key, key, 'the API key survived the crash');
      key = login.api_key;
      if (allAcked.size > 0) await assertAllPresent(t, server, key, allAcked);

      const burst = startBurst(server.url, key, `crash-r${i + 1}`);
      await waitForAcks(burst, round.killAtAcks, round.killAtMs);
      const inFlightAtKill = burst.inFlight();
      const ackedAtKill = burst.acked.size;
      server.child.kill('SIGKILL');
      const status = await server.exited();
      await burst.done;
      t.equal(status.signal, 'SIGKILL', 'the server died by SIGKILL');
      t.same(burst.failures, [], 'no error replies before the kill');
      t.ok(ackedAtKill > 0, `${ackedAtKill} sends acknowledged before the kill`);
      t.ok(inFlightAtKill > 0, `${inFlightAtKill} sends in flight at the kill`);
      t.comment(`acked ${burst.acked.size} (at kill ${ackedAtKill}), sent ${burst.sent.size}, network errors ${burst.networkErrors}`);
      for (const [id, content] of burst.acked) {
        allAcked.set(id, content);
        firstId = Math.min(firstId, id);
      }
      for (const content of burst.sent) allSent.add(content);
    });
  }

  await t.test('restart after the last crash', async (t) => {
    const server = await startServer({ t, dataDir, demoPassword: PW });
    t.notMatch(server.stdout(), /created the demo organization/, 'the demo is not recreated on restart');
    const login = await fetchApiKey(server.url, EMAIL, PW);
    t.equal(login.api_key, key, 'the API key survived');
    await assertAllPresent(t, server, login.api_key, allAcked);
    const maxAcked = Math.max(...allAcked.keys());
    const nextId = await sendOne(server, login.api_key, 'after-crash');
    t.ok(nextId > maxAcked, `the next id ${nextId} is above the highest acknowledged id ${maxAcked}`);
    const got = await api<{ raw_content: string }>(server.url, EMAIL, login.api_key, 'GET', `messages/${nextId}`);
    t.equal(got.body.raw_content, 'after-crash');
    await assertNoGarbage(t, server, login.api_key, firstId, nextId, allSent);
    const stopped = await server.stop('SIGTERM');
    t.same(stopped, { code: 0, signal: null }, 'clean exit');
  });
});

t.test('SIGTERM during a burst: in-flight sends finish, exit 0, data kept', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({ t, dataDir, demoPassword: PW, env: { PARLEY_LOG_LEVEL: 'info' } });
  const { api_key: key } = await fetchApiKey(server.url, EMAIL, PW);
  // 503 SERVER_NOT_READY is the documented answer to requests arriving during shutdown.
  const burst = startBurst(server.url, key, 'term', [503]);
  await waitForAcks(burst, 200, 500);
  const status = await server.stop('SIGTERM');
  await burst.done;
  t.same(status, { code: 0, signal: null }, 'SIGTERM → exit code 0');
  t.match(server.stderr(), /SIGTERM received/);
  t.notMatch(server.stderr(), /unhandled error|shutdown failed/);
  t.same(burst.failures, [], 'no error replies other than 503 during shutdown');
  t.ok(burst.acked.size > 0, `${burst.acked.size} sends acknowledged`);
  t.comment(`acked ${burst.acked.size}, sent ${burst.sent.size}, network errors ${burst.networkErrors}`);

  const again = await startServer({ t, dataDir, demoPassword: PW });
  const login = await fetchApiKey(again.url, EMAIL, PW);
  t.equal(login.api_key, key);
  await assertAllPresent(t, again, key, burst.acked);
  const maxAcked = Math.max(...burst.acked.keys());
  const nextId = await sendOne(again, key, 'after-term');
  t.ok(nextId > maxAcked, `next id ${nextId} > ${maxAcked}`);
  t.same(await again.stop('SIGTERM'), { code: 0, signal: null });
});

t.test('kill -9 during first-start demo creation never leaves a partial demo', async (t) => {
  // Calibrate: how long a first start takes until the listening line on this machine.
  const t0 = Date.now();
  const probe = await startServer({ t, demoPassword: PW });
  const listenMs = Date.now() - t0;
  await probe.stop('SIGKILL');
  // Bisect the kill time: a kill before the first demo record leaves an empty store (the restart
  // creates the demo), a kill after the listening line leaves the complete demo; in between the
  // demo is being written and a restart must still end up with the complete demo.
  let lo = 0;
  let hi = Math.round(listenMs * 1.5);
  const partial: string[] = [];
  for (let i = 0; i < 10 && partial.length === 0 && hi - lo > 2; i++) {
    const delay = Math.round((lo + hi) / 2);
    const dataDir = makeTempDir(t);
    const child = spawn(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dataDir, '--demo-password', PW], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '' },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exited = new Promise((r) => child.once('exit', r));
    t.teardown(() => void child.kill('SIGKILL'));
    await new Promise((r) => setTimeout(r, delay));
    child.kill('SIGKILL');
    await exited;
    if (/parley listening/.test(out)) {
      t.comment(`killed after ${delay} ms: already listening (too late)`);
      hi = delay;
      continue;
    }
    const again = await startServer({ t, dataDir, demoPassword: PW });
    const recreated = /created the demo/.test(again.stdout());
    const login = await api<{ api_key: string }>(again.url, null, null, 'POST', 'fetch_api_key', { username: EMAIL, password: PW });
    let state = `login HTTP ${login.status}`;
    let complete = false;
    if (login.status === 200) {
      const key = login.body.api_key;
      const subs = await api<{ subscriptions: unknown[] }>(again.url, EMAIL, key, 'GET', 'users/me/subscriptions');
      const me = await api<{ max_message_id: number }>(again.url, EMAIL, key, 'GET', 'users/me');
      const users = await api<{ members: unknown[] }>(again.url, EMAIL, key, 'GET', 'users');
      state += `, ${subs.body.subscriptions.length} subscriptions, ${users.body.members.length} users, max_message_id ${me.body.max_message_id}`;
      complete = subs.body.subscriptions.length === 4 && users.body.members.length === 10 && me.body.max_message_id === 6;
    }
    t.comment(`killed after ${delay} ms: ${state}${recreated ? ' (demo created on restart: too early)' : ''}`);
    await again.stop('SIGKILL');
    if (!complete) partial.push(`killed ${delay} ms after spawn (a first start listens after ~${listenMs} ms); after restart: ${state}`);
    else if (recreated) lo = delay;
    else hi = delay;
  }
  t.same(partial, [], 'after a crash during demo creation the restart has the full demo (hamlet logs in, 4 subscriptions, 10 users, 6 messages)');
});
