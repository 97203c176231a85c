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

t.test('a 200 ms stall shows in the open-loop p99 and max; the closed loop hides it', async (t) => {
  const openServer = await stallingServer();
  t.teardown(openServer.stop);
  const open = await runOpenLoop({
    url: openServer.url,
    next: () => ({ method: 'GET', path: '/ceiling' }),
    rate: 200,
    durationSec: 2,
    maxInFlight: 64,
    drainTimeoutMs: 5000,
  });
  t.equal(open.mode?.kind, 'open');
  t.equal(open.mode?.sent, 400, 'every due request was sent');
  t.equal(open.ok2xx, 400, 'and answered');
  t.equal(open.timeouts + open.errors, 0, 'nothing lost');
  t.ok(open.latencyMs.max >= STALL_MS, `max ${open.latencyMs.max.toFixed(1)} ms ≥ ${STALL_MS} ms`);
  // ~40 of 400 requests fall due during the stall, late by up to 200 ms: the p99 is among them.
  t.ok(open.latencyMs.p99 >= STALL_MS / 2, `p99 ${open.latencyMs.p99.toFixed(1)} ms shows the stall`);
  t.ok(open.timeline!.some((p) => p.max >= STALL_MS / 2), 'the latency-over-time series shows it');
  t.equal(open.timeline!.reduce((n, p) => n + p.n, 0), 400, 'the timeline holds every response');

  const closedServer = await stallingServer();
  t.teardown(closedServer.stop);
  const closed = await runLoad({ url: closedServer.url, request: { method: 'GET', path: '/ceiling' }, connections: 1, duration: 2, timeLimitMs: 20_000 });
  t.ok(closed.latencyMs.max >= STALL_MS - 5, `closed-loop max ${closed.latencyMs.max.toFixed(1)} ms: only the one request in flight waited`);
  t.ok(closed.timeline!.some((p) => p.max >= STALL_MS - 5), 'its timeline shows that one request');
  t.ok(
    closed.latencyMs.p99 < open.latencyMs.p99 / 2,
    `closed-loop p99 ${closed.latencyMs.p99.toFixed(2)} ms (${closed.responses} responses) hides the stall the open loop's ${open.latencyMs.p99.toFixed(1)} ms shows`,
  );
});
