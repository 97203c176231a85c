/**
 * Per-request cost of the ops hooks (issue 13 §2): `recordAnsweredRequest` (Prometheus counter +
 * histogram, and at level info one pino JSON line) measured in a loop, in nanoseconds per request.
 * Requests run at ~60k/s on this machine, i.e. ~16 µs each; the hook should be a small fraction.
 * The first row (JSON.stringify of the same line) calibrates for machine load.
 *
 *   node --import=tsx bench/request-log.ts 2>/dev/null     # stderr takes the log lines
 *
 * Bounded: 5 rounds × 200,000 calls per variant, yielding to the event loop every 500 calls.
 */
import { configureLogger, flushLogger } from '../src/log.js';
import { observeRequest } from '../src/metrics.js';
import { recordAnsweredRequest } from '../src/ops/request-log.js';

const CALLS = 200_000;
const ROUNDS = 5;
const routes = ['/api/v1/messages', '/api/v1/messages/{message_id}', '/api/v1/events', '/api/v1/users/me'];

/** Yields to the event loop every BATCH calls, as a server does between requests (lets the log drain). */
const BATCH = 500;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function measure(name: string, fn: (i: number) => void): Promise<void> {
  const perCall: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      fn(i);
      if (i % BATCH === BATCH - 1) await turn();
    }
    perCall.push(Number(process.hrtime.bigint() - start) / CALLS);
    flushLogger();
  }
  perCall.sort((a, b) => a - b);
  console.log(`${name.padEnd(44)} median ${perCall[ROUNDS >> 1]!.toFixed(0).padStart(5)} ns/request  (best ${perCall[0]!.toFixed(0)})`);
}

const answer = (i: number) => ({ method: 'GET', route: routes[i & 3]!, status: 200, ms: 0.42, realm: '', userId: 11, ip: '127.0.0.1' });

// Yardstick: what serializing the same line by hand costs on this machine right now.
await measure('yardstick: JSON.stringify of one line', (i) => {
  if (JSON.stringify({ level: 30, time: Date.now(), pid: 1, ...answer(i), msg: 'request' }).length === 0) throw new Error();
});
await measure('metrics only (observeRequest)', (i) => observeRequest(routes[i & 3]!, 'GET', 200, 0.00042));
configureLogger({ level: 'warn', format: 'json' });
await measure('metrics + log line filtered (--log-level warn)', (i) => recordAnsweredRequest(answer(i)));
configureLogger({ level: 'info', format: 'json' });
await measure('metrics + JSON log line (--log-level info)', (i) => recordAnsweredRequest(answer(i)));
flushLogger();
