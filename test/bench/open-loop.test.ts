/**
 * The open-loop runner (bench/open-loop.ts) does not hide a server stall (coordinated omission):
 * a loopback HTTP server in a worker thread blocks its event loop for 200 ms once; every request
 * due during the stall is late, and the open loop counts each from its intended send time, so the
 * stall shows in its max and p99. The closed loop (autocannon) over the same server records it
 * only in the few requests that were in flight.
 */
import t from 'tap';
import { Worker } from 'node:worker_threads';
import { runOpenLoop } from '../../bench/open-loop.js';
import { runLoad } from '../../bench/load.js';

const STALL_MS = 200;

/** Starts the stalling server in a worker; resolves with its URL and a stop function. */
async function stallingServer(): Promise<{ url: string; stop: () => Promise<number> }> {
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    let first = 0;
    let stalled = false;
    const server = http.createServer((req, res) => {
      const now = Date.now();
      if (first === 0) first = now;
      // Once, 500 ms after the first request: block the whole event loop for ${STALL_MS} ms.
      if (!stalled && now - first >= 500) {
        stalled = true;
        const until = now + ${STALL_MS};
        while (Date.now() < until) {}
      }
      res.end('{"result":"success","msg":""}');
    });
    server.keepAliveTimeout = 5000;
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
    parentPort.on('message', () => server.close(() => parentPort.postMessage('closed')));
    `,
    { eval: true },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      worker.postMessage('close');
      await new Promise((resolve) => setTimeout(resolve, 50));
      return worker.terminate();
    },
  };
}

t.test('a 200 ms stall shows in the open-loop p99 and max', async (t) => {
  const server = await stallingServer();
  t.teardown(server.stop);
  const result = await runOpenLoop({
    url: server.url,
    next: () => ({ method: 'GET', path: '/ceiling' }),
    rate: 200,
    durationSec: 2,
    maxInFlight: 64,
    drainTimeoutMs: 5000,
  });
  t.equal(result.mode?.kind, 'open');
  t.equal(result.mode?.sent, 400, 'every due request was sent');
  t.equal(result.ok2xx, 400, 'and answered');
  t.ok(result.latencyMs.max >= STALL_MS, `max ${result.latencyMs.max.toFixed(1)} ms ≥ ${STALL_MS} ms`);
  // ~40 of 400 requests fall due during the stall, late by up to 200 ms: the p99 is among them.
  t.ok(result.latencyMs.p99 >= STALL_MS / 2, `p99 ${result.latencyMs.p99.toFixed(1)} ms shows the stall`);
  const slowSecond = result.timeline?.find((p) => p.max >= STALL_MS / 2);
  t.ok(slowSecond !== undefined, 'the latency-over-time series shows it');
});

t.test('the closed loop over the same kind of stall hides most of it', async (t) => {
  const server = await stallingServer();
  t.teardown(server.stop);
  const closed = await runLoad({ url: server.url, request: { method: 'GET', path: '/ceiling' }, connections: 1, duration: 2, timeLimitMs: 20_000 });
  t.ok(closed.latencyMs.max >= STALL_MS - 5, `closed-loop max ${closed.latencyMs.max.toFixed(1)} ms: the one request in flight`);
  const slow = closed.responses > 0 ? closed.timeline!.reduce((n, p) => n + (p.max >= STALL_MS / 2 ? 1 : 0), 0) : 0;
  t.equal(slow, 1, 'one second of the timeline holds the slow request');
  t.ok(closed.latencyMs.p99 < STALL_MS / 2, `closed-loop p99 ${closed.latencyMs.p99.toFixed(2)} ms does not show the stall (${closed.responses} responses)`);
});
