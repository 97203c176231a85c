/**
 * Fan-out scenario: N event queues long-polling (`GET /api/v1/events`), registered round-robin by
 * the demo users subscribed to Verona, and one sender posting K messages to Verona one after the
 * other. For each message: the time from just before `POST /messages` until the LAST queue has
 * received it (response headers of its long-poll). Reports p50/p99/max of that, and events
 * delivered per second over the whole run. Bounded: every message waits at most `timeoutMs`, the
 * whole scenario at most `timeLimitSec`; queues are deleted at the end.
 */
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { basicAuth } from '../test/support/server-process.js';
import { Timeline, type TimelinePoint } from './timeline.js';

export interface FanoutOptions {
  queues: number;
  messages: number;
  /** Messages sent first and not measured (JIT warm-up of both processes). */
  warmupMessages: number;
  /** Worker threads sharing the long-polls. */
  workers: number;
  /** Per-message wait for all deliveries (ms). */
  timeoutMs: number;
  timeLimitSec: number;
  /** Channel the sender posts to (default Verona, the demo organization's). */
  channel?: string;
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
  /** Delivery latency per second of the measured run (by send time). */
  timeline: TimelinePoint[];
}

export interface Account {
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

  // The long-polls run in worker threads (`fanout-poller.mjs`): one client thread re-issuing 1,000
  // HTTP requests per message would measure itself rather than the server.
  const arrivals = new Map<number, { count: number; last: number }>();
  let waiting: { mid: number; done: () => void } | null = null;
  let failure: string | null = null;
  let delivered = 0;
  const workers: Worker[] = [];
  const ready: Array<Promise<void>> = [];
  for (let w = 0; w < opts.workers; w++) {
    const slice = queues.filter((_, i) => i % opts.workers === w).map((q) => ({ auth: basicAuth(q.account.email, q.account.key), id: q.id }));
    const worker = new Worker(new URL('./fanout-poller.mjs', import.meta.url), { workerData: { url, queues: slice } });
    workers.push(worker);
    ready.push(
      new Promise<void>((resolve) => {
        worker.on('message', (msg: { type: string; arrivals?: Array<{ mid: number; at: number }>; error?: string }) => {
          if (msg.type === 'ready') resolve();
          else if (msg.type === 'error') failure ??= msg.error!;
          else if (msg.type === 'arrivals') {
            for (const { mid, at } of msg.arrivals!) {
              delivered++;
              const a = arrivals.get(mid) ?? { count: 0, last: 0 };
              a.count++;
              a.last = Math.max(a.last, at);
              arrivals.set(mid, a);
              if (waiting !== null && waiting.mid === mid && a.count === queues.length) waiting.done();
            }
          }
        });
      }),
    );
  }
  await Promise.all(ready);
  await new Promise((r) => setTimeout(r, 500)); // let every long-poll reach the server
  const clock = () => performance.timeOrigin + performance.now();

  const latencies: number[] = [];
  let timeline = new Timeline();
  let incomplete = 0;
  let started = performance.now();
  for (let i = 0; i < opts.warmupMessages + opts.messages && Date.now() < deadline && failure === null; i++) {
    if (i === opts.warmupMessages) {
      latencies.length = 0;
      incomplete = 0;
      delivered = 0;
      timeline = new Timeline();
      started = performance.now();
    }
    const t0 = clock();
    const sentAtMs = performance.now() - started;
    const sent = await form(url, sender, 'POST', 'messages', { type: 'stream', to: opts.channel ?? 'Verona', topic: 'fanout', content: `fan-out ${i}` });
    if (sent.result !== 'success') throw new Error(`send failed: ${JSON.stringify(sent)}`);
    const mid = sent.id as number;
    const complete = () => (arrivals.get(mid)?.count ?? 0) >= queues.length;
    const timedOut = complete()
      ? false
      : await Promise.race([
          new Promise<boolean>((resolve) => (waiting = { mid, done: () => resolve(false) })),
          new Promise<boolean>((r) => setTimeout(() => r(true), opts.timeoutMs)),
        ]);
    waiting = null;
    if (timedOut) incomplete++;
    else {
      latencies.push(arrivals.get(mid)!.last - t0);
      timeline.record(sentAtMs, latencies[latencies.length - 1]!);
    }
    arrivals.delete(mid);
  }
  if (failure !== null) throw new Error(`a long-poll failed: ${failure}`);
  const elapsedSec = (performance.now() - started) / 1000;
  for (const worker of workers) worker.postMessage('stop');
  await Promise.race([Promise.all(workers.map((w) => new Promise((r) => w.once('exit', r)))), new Promise((r) => setTimeout(r, 5000))]);
  for (const worker of workers) await worker.terminate();
  for (const q of queues) await form(url, q.account, 'DELETE', 'events', { queue_id: q.id }).catch(() => undefined);

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
    timeline: timeline.points(),
  };
}
