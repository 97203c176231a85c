/**
 * Worker thread of the fan-out scenario (`fanout.ts`): keeps one `GET /api/v1/events` long-poll
 * open per queue it was given (undici Pool, one keep-alive connection each) and reports every
 * message event's arrival to the main thread as `{ mid, at }`, `at` in ms on the shared clock
 * `performance.timeOrigin + performance.now()`. Arrivals are batched per event-loop turn.
 * Stops when the main thread posts 'stop'. Plain JavaScript: tsx's loader does not reach worker
 * threads on Node 20.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/** @type {{ url: string, queues: Array<{ auth: string, id: string }> }} */
const { url, queues } = workerData;
const pool = new Pool(url, { connections: queues.length + 4, pipelining: 1, keepAliveTimeout: 120_000 });
let stopping = false;
/** @type {Array<{ mid: number, at: number }>} */
let batch = [];
let flushScheduled = false;

function report(mid, at) {
  batch.push({ mid, at });
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(() => {
      parentPort.postMessage({ type: 'arrivals', arrivals: batch });
      batch = [];
      flushScheduled = false;
    });
  }
}

async function pollLoop(q) {
  let last = -1;
  while (!stopping) {
    let text;
    let at;
    try {
      const res = await pool.request({ method: 'GET', path: `/api/v1/events?queue_id=${encodeURIComponent(q.id)}&last_event_id=${last}`, headers: { authorization: q.auth } });
      at = performance.timeOrigin + performance.now();
      text = await res.body.text();
    } catch (error) {
      if (stopping) return;
      throw error;
    }
    const body = JSON.parse(text);
    if (body.result !== 'success') {
      if (stopping) return;
      throw new Error(`poll failed: ${text}`);
    }
    for (const e of body.events ?? []) {
      last = Math.max(last, e.id);
      if (e.type === 'message') report(e.message.id, at);
    }
  }
}

parentPort.on('message', (msg) => {
  if (msg !== 'stop') return;
  stopping = true;
  pool.destroy().catch(() => undefined).finally(() => process.exit(0));
});
for (const q of queues) {
  pollLoop(q).catch((error) => {
    if (!stopping) parentPort.postMessage({ type: 'error', error: String(error) });
  });
}
parentPort.postMessage({ type: 'ready' });
