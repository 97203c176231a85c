/**
 * Fan-out scenario: N event queues long-polling (`GET /api/v1/events`), registered round-robin by
 * the demo users subscribed to Verona, and one sender posting K messages to Verona one after the
 * other. For each message: the time from just before `POST /messages` until the LAST queue has
 * received it (response headers of its long-poll). Reports p50/p99/max of that, and events
 * delivered per second over the whole run. Bounded: every message waits at most `timeoutMs`, the
 * whole scenario at most `timeLimitSec`; queues are deleted at the end.
 */
import { Pool } from 'undici';
import { performance } from 'node:perf_hooks';
import { basicAuth } from '../test/support/server-process.js';

export interface FanoutOptions {
  queues: number;
  messages: number;
  /** Messages sent first and not measured (JIT warm-up of both processes). */
  warmupMessages: number;
  /** Per-message wait for all deliveries (ms). */
  timeoutMs: number;
  timeLimitSec: number;
}

export interface FanoutReport {
  queues: number;
  messagesSent: number;
  /** Messages that did not reach every queue within `timeoutMs`. */
  incomplete: number;
  latencyMs: { p50: number; p99: number; max: number; mean: number };
  /** Every measured latency in send order (ms). */
  samplesMs: number[];
  eventsPerSec: number;
  elapsedSec: number;
}

interface Account {
  email: string;
  key: string;
}

async function form(url: string, account: Account, method: string, path: string, params: Record<string, string>): Promise<Record<string, any>> {
  const body = new URLSearchParams(params).toString();
  const res = await fetch(`${url}/api/v1/${path}`, {
    method,
    headers: { Authorization: basicAuth(account.email, account.key), 'Content-Type': 'application/x-www-form-urlencoded' },
    body,
  });
  return (await res.json()) as Record<string, any>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs the scenario against a running server. `receivers` hold the queues; `sender` posts. */
export async function runFanout(url: string, receivers: Account[], sender: Account, opts: FanoutOptions): Promise<FanoutReport> {
  const deadline = Date.now() + opts.timeLimitSec * 1000;
  const queues: Array<{ account: Account; id: string; last: number }> = [];
  for (let i = 0; i < opts.queues; i++) {
    const account = receivers[i % receivers.length]!;
    const reg = await form(url, account, 'POST', 'register', { event_types: '["message"]', fetch_event_types: '[]' });
    if (reg.result !== 'success') throw new Error(`register failed: ${JSON.stringify(reg)}`);
    queues.push({ account, id: reg.queue_id as string, last: -1 });
  }

  // Arrival bookkeeping for the message in flight.
  let current: { id: number | null; remaining: number; lastArrival: number; done: () => void } | null = null;
  const early = new Map<number, number>(); // message id → deliveries seen before the send reply
  let stopping = false;
  let delivered = 0;

  // undici's Pool.request with one keep-alive connection per queue: WHATWG fetch and node:http
  // cost several times more client CPU per request, and with 1,000 polls per message the client,
  // not the server, would be measured.
  const pool = new Pool(url, { connections: opts.queues + 8, pipelining: 1, keepAliveTimeout: 120_000 });
  const get = async (path: string, auth: string) => {
    const res = await pool.request({ method: 'GET', path, headers: { authorization: auth } });
    const arrived = performance.now();
    return { arrived, text: await res.body.text() };
  };
  const pollLoop = async (q: (typeof queues)[number]) => {
    const auth = basicAuth(q.account.email, q.account.key);
    while (!stopping) {
      let reply: { arrived: number; text: string };
      try {
        reply = await get(`/api/v1/events?queue_id=${encodeURIComponent(q.id)}&last_event_id=${q.last}`, auth);
      } catch {
        if (stopping) return;
        throw new Error('long-poll failed');
      }
      const arrived = reply.arrived;
      const body = JSON.parse(reply.text) as { result: string; events?: Array<{ id: number; type: string; message?: { id: number } }> };
      if (body.result !== 'success') {
        if (stopping) return;
        throw new Error(`poll failed: ${JSON.stringify(body)}`);
      }
      for (const e of body.events ?? []) {
        q.last = Math.max(q.last, e.id);
        if (e.type !== 'message') continue;
        delivered++;
        const mid = e.message!.id;
        if (current !== null && current.id === mid) {
          current.lastArrival = arrived;
          if (--current.remaining === 0) current.done();
        } else if (current !== null && current.id === null) {
          early.set(mid, (early.get(mid) ?? 0) + 1);
          current.lastArrival = Math.max(current.lastArrival, arrived);
        }
      }
    }
  };
  const loops = queues.map((q) => pollLoop(q).catch((error: unknown) => error));
  await new Promise((r) => setTimeout(r, 500)); // let every long-poll reach the server

  const latencies: number[] = [];
  let incomplete = 0;
  let started = performance.now();
  for (let i = 0; i < opts.warmupMessages + opts.messages && Date.now() < deadline; i++) {
    if (i === opts.warmupMessages) {
      latencies.length = 0;
      incomplete = 0;
      delivered = 0;
      started = performance.now();
    }
    const t0 = performance.now();
    let finish!: () => void;
    const allDelivered = new Promise<void>((resolve) => (finish = resolve));
    current = { id: null, remaining: queues.length, lastArrival: 0, done: finish };
    const sent = await form(url, sender, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'fanout', content: `fan-out ${i}` });
    if (sent.result !== 'success') throw new Error(`send failed: ${JSON.stringify(sent)}`);
    current.id = sent.id as number;
    current.remaining -= early.get(current.id) ?? 0;
    early.clear();
    if (current.remaining <= 0) finish();
    const timedOut = await Promise.race([
      allDelivered.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), opts.timeoutMs)),
    ]);
    if (timedOut) incomplete++;
    else latencies.push(current.lastArrival - t0);
    current = null;
  }
  const elapsedSec = (performance.now() - started) / 1000;
  stopping = true;
  for (const q of queues) await form(url, q.account, 'DELETE', 'events', { queue_id: q.id }).catch(() => undefined);
  await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 5000))]);
  await pool.destroy();

  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    queues: queues.length,
    messagesSent: latencies.length + incomplete,
    incomplete,
    latencyMs: {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? NaN,
      mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    },
    eventsPerSec: delivered / elapsedSec,
    elapsedSec,
    samplesMs: latencies,
  };
}
