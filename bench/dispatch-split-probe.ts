/**
 * Probe for issue 17's "work that does not need the realm's state may leave the actor's thread"
 * (bench/PROFILE.md §9): what parley's HTTP layer costs its thread per request, and what handing
 * `dispatch` to another thread would cost.
 *
 * Starts parley's real `startHttpServer` (uWS, http/server.ts, request parsing, response writing)
 * in this process, drives it with wrk (`-t1`, 50 connections, a send's form POST with Basic auth)
 * and prints req/s and the CPU per request of every busy thread of this process:
 * - `--mode inline`: `dispatch` answers a send-like reply at once on the main thread: the HTTP
 *   layer alone, i.e. the floor of a server that does everything on one thread;
 * - `--mode split` (default): `dispatch` posts each request (method, path, query, body, headers,
 *   addresses) in one message per event-loop turn to a worker thread, which answers the batch in
 *   one message: the HTTP thread's cost plus the hand-off, and the hand-off's cost on the side that
 *   would run the realms.
 * - `--mode realm`: the same hand-off, to a worker running a whole parley (realm-thread.ts: demo
 *   organization, real sends and reads, durable commits); bodies come back encoded, nested under
 *   `"result"` (a few bytes more than parley's).
 * - `--mode server`: parley as it runs today (`startServer`, everything on this thread), for the
 *   same load in the same minutes.
 *
 * `--scenario send` (default) posts channel messages; `fetch` reads one message
 * (`GET /messages/{id}`). `realm` and `server` log in as hamlet with the demo password.
 *
 *   node --import=tsx bench/dispatch-split-probe.ts [--mode split|inline|realm|server] [--scenario send|fetch]
 *     [--connections 50] [--seconds 8]
 *
 * Needs `wrk` on PATH and Linux `/proc`. Load bounded by `--seconds` (wrk's own time limit).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { startHttpServer } from '../src/http/server.js';
import type { ApiRequest, ApiResponse } from '../src/api/registry.js';
import { DEFAULT_CONFIG } from '../src/config.js';
import { startServer } from '../src/main.js';
import { runWrk } from './wrk.js';
import { batchedDispatch, startRealmThread, type RealmThread } from './realm-thread.js';

/** The reply's body, as a send's (`{"result":"success","msg":"","id":N}`). */
const reply = (id: number): ApiResponse => ({ status: 200, body: { result: 'success', msg: '', id } });

/** The worker: answers every request of a batch with the next message id, in one message. */
const WORKER = `
const { parentPort } = require('node:worker_threads');
let next = 0;
parentPort.on('message', ({ batch }) => parentPort.postMessage(batch.map((r) => [r[0], ++next])));
`;

/** hamlet's API key from the server at `url` (demo password `bench`); the message id to fetch. */
async function login(url: string): Promise<{ auth: string; messageId: number }> {
  // `--mode realm` nests the body under "result" (see the module comment).
  const json = async (r: Response): Promise<Record<string, unknown>> => {
    const body = (await r.json()) as Record<string, unknown>;
    return typeof body.result === 'object' && body.result !== null ? (body.result as Record<string, unknown>) : body;
  };
  const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const key = (await json(await fetch(`${url}/api/v1/fetch_api_key`, form({ username: 'hamlet@zulip.com', password: 'bench' })))).api_key as string;
  const auth = `Basic ${Buffer.from(`hamlet@zulip.com:${key}`).toString('base64')}`;
  const sent = form({ type: 'stream', to: 'Verona', topic: 'probe', content: 'a message to fetch' });
  const reply = await json(await fetch(`${url}/api/v1/messages`, { ...sent, headers: { ...sent.headers, authorization: auth } }));
  if (typeof reply.id !== 'number') throw new Error(`send failed: ${JSON.stringify(reply)}`);
  return { auth, messageId: reply.id };
}

/** utime + stime (clock ticks) of every thread of this process, by thread id. */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    out.set(tid, Number(fields[11]) + Number(fields[12]));
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mode: { type: 'string', default: 'split' },
      scenario: { type: 'string', default: 'send' },
      connections: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '8' },
    },
  });
  const mode = values.mode;
  if (mode !== 'split' && mode !== 'inline' && mode !== 'realm' && mode !== 'server') throw new Error(`--mode must be split, inline, realm or server, got ${mode}`);
  if (values.scenario !== 'send' && values.scenario !== 'fetch') throw new Error(`--scenario must be send or fetch, got ${values.scenario}`);
  let worker: Worker | null = null;
  let realmThread: RealmThread | null = null;
  let server: { port: number; close(): Promise<void> };
  let dataDir: string | null = null;
  if (mode === 'server') {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-probe-'));
    server = await startServer({ ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: 'bench', rateLimits: false });
  } else {
    let dispatch: (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;
    if (mode === 'realm') {
      realmThread = await startRealmThread();
      dispatch = realmThread.dispatch;
    } else if (mode === 'split') {
      worker = new Worker(WORKER, { eval: true });
      dispatch = batchedDispatch<[number, number]>(worker, ([key, id]) => [key, reply(id)]);
    } else {
      let next = 0;
      dispatch = () => reply(++next);
    }
    server = await startHttpServer({ host: '127.0.0.1', port: 0, dispatch });
  }
  const url = `http://127.0.0.1:${server.port}`;
  const real = mode === 'realm' || mode === 'server';
  const { auth, messageId } = real ? await login(url) : { auth: `Basic ${Buffer.from('hamlet@zulip.com:0123456789abcdef0123456789abcdef').toString('base64')}`, messageId: 1 };
  const template =
    values.scenario === 'send'
      ? { method: 'POST' as const, path: '/api/v1/messages', form: { type: 'stream', to: 'Verona', topic: 'bench', content: 'bench message {seq}' } }
      : { method: 'GET' as const, path: `/api/v1/messages/${messageId}` };
  const load = { url, templates: [template], vars: {}, source: 'dispatch-split-probe', auth, connections: Number(values.connections) };
  await runWrk({ ...load, duration: 2 }); // warm-up
  const before = threadTicks();
  const result = await runWrk({ ...load, duration: Number(values.seconds) });
  const after = threadTicks();
  console.log(
    `mode ${mode}, ${values.scenario}: ${result.reqPerSec.toFixed(0)} req/s, p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms, non-2xx ${result.non2xx}`,
  );
  const main = String(process.pid);
  for (const [tid, ticks] of after) {
    const used = ticks - (before.get(tid) ?? 0);
    if (used < 10) continue; // under 0.1 s: V8's helpers, idle pool threads
    const label = tid === main ? 'main thread (HTTP)' : `thread ${tid}`;
    console.log(`  ${label}: ${((used * 10_000) / result.responses).toFixed(1)} µs/request, busy ${(used / Number(values.seconds)).toFixed(0)} %`);
  }
  await server.close();
  await realmThread?.stop();
  await worker?.terminate();
  if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
}

await main();
