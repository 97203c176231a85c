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
 *
 *   node --import=tsx bench/dispatch-split-probe.ts [--mode split|inline] [--seconds 8]
 *
 * Needs `wrk` on PATH and Linux `/proc`. Load bounded by `--seconds` (wrk's own time limit).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { startHttpServer } from '../src/http/server.js';
import type { ApiRequest, ApiResponse } from '../src/api/registry.js';
import { runWrk } from './wrk.js';

/** The reply's body, as a send's (`{"result":"success","msg":"","id":N}`). */
const reply = (id: number): ApiResponse => ({ status: 200, body: { result: 'success', msg: '', id } });

/** The worker: answers every request of a batch with the next message id, in one message. */
const WORKER = `
const { parentPort } = require('node:worker_threads');
let next = 0;
parentPort.on('message', (batch) => parentPort.postMessage(batch.map((r) => [r[0], ++next])));
`;

/** Hands requests to the worker in one message per event-loop turn; resolves each with its reply. */
function splitDispatch(worker: Worker): (req: ApiRequest) => Promise<ApiResponse> {
  const waiting = new Map<number, (response: ApiResponse) => void>();
  let batch: unknown[] = [];
  let seq = 0;
  worker.on('message', (answers: Array<[number, number]>) => {
    for (const [key, id] of answers) {
      waiting.get(key)!(reply(id));
      waiting.delete(key);
    }
  });
  const flush = () => {
    worker.postMessage(batch);
    batch = [];
  };
  return (req) => {
    const key = ++seq;
    if (batch.length === 0) setImmediate(flush);
    batch.push([key, req.method, req.path, req.query, req.body, req.headers, req.remoteAddress, req.scheme]);
    return new Promise((resolve) => waiting.set(key, resolve));
  };
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
  const { values } = parseArgs({ options: { mode: { type: 'string', default: 'split' }, seconds: { type: 'string', default: '8' } } });
  if (values.mode !== 'split' && values.mode !== 'inline') throw new Error(`--mode must be split or inline, got ${values.mode}`);
  const worker = values.mode === 'split' ? new Worker(WORKER, { eval: true }) : null;
  let next = 0;
  const dispatch = worker === null ? () => reply(++next) : splitDispatch(worker);
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, dispatch });
  const load = {
    url: `http://127.0.0.1:${server.port}`,
    templates: [{ method: 'POST' as const, path: '/api/v1/messages', form: { type: 'stream', to: 'Verona', topic: 'bench', content: 'bench message {seq}' } }],
    vars: {},
    source: 'dispatch-split-probe',
    auth: `Basic ${Buffer.from('hamlet@zulip.com:0123456789abcdef0123456789abcdef').toString('base64')}`,
    connections: 50,
  };
  await runWrk({ ...load, duration: 2 }); // warm-up
  const before = threadTicks();
  const result = await runWrk({ ...load, duration: Number(values.seconds) });
  const after = threadTicks();
  console.log(`mode ${values.mode}: ${result.reqPerSec.toFixed(0)} req/s, p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms`);
  const main = String(process.pid);
  for (const [tid, ticks] of after) {
    const used = ticks - (before.get(tid) ?? 0);
    if (used < 10) continue; // under 0.1 s: V8's helpers, idle pool threads
    const label = tid === main ? 'main thread (HTTP)' : `thread ${tid}`;
    console.log(`  ${label}: ${((used * 10_000) / result.responses).toFixed(1)} µs/request, busy ${(used / Number(values.seconds)).toFixed(0)} %`);
  }
  await server.close();
  await worker?.terminate();
}

await main();
