/**
 * Cost of the API rate limit per request (api/api-rate-limits.ts): what the dispatcher adds to
 * an authenticated call — one `takeUser` (bucket lookup and update, the three `X-RateLimit-*`
 * header values) and the merge of those headers into the answer — measured in-process over 1,000
 * users round-robin, with a bounded loop (≤ `seconds`, ≤ `max` calls). Nothing is asserted.
 *
 *     node --import=tsx bench/rate-limit.ts [--seconds S]          (standalone)
 *     npm run bench -- --only rate-limit                           (inside the load bench)
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { ApiRateLimits } from '../src/api/api-rate-limits.js';

/** Figures of one run. */
export interface RateLimitBenchReport {
  calls: number;
  seconds: number;
  nsPerCall: number;
  /** Calls refused on the way (the bench keeps every user under the limit: expected 0). */
  refused: number;
}

/**
 * Runs the loop. The clock is the real one (`Date.now()` is part of the cost) plus 0.3 s more per
 * round over the users, so each user stays just under 200 calls per minute of that clock.
 */
export function runRateLimitBench(options: { seconds?: number; max?: number } = {}): RateLimitBenchReport {
  const seconds = options.seconds ?? 1;
  const max = options.max ?? 200_000_000;
  const users = 1000;
  let skew = 0;
  const limits = new ApiRateLimits({}, () => Date.now() + skew);
  const answer = { status: 200, body: { result: 'success', msg: '' } } as { status: number; body: unknown; headers?: Record<string, string> };
  let refused = 0;
  let sink = 0;
  const step = (i: number) => {
    if (i % users === 0) skew += 300;
    const verdict = limits.takeUser(1, i % users);
    if (verdict.limited) refused++;
    // What registry.ts does with the verdict: merge the headers into the answer.
    const merged = { status: answer.status, headers: answer.headers === undefined ? verdict.headers : { ...answer.headers, ...verdict.headers }, body: answer.body };
    sink += merged.headers['X-RateLimit-Remaining']!.length;
  };
  for (let i = 0; i < 100_000; i++) step(i); // warm-up (JIT)
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let calls = 0;
  while (calls < max) {
    step(calls++);
    if ((calls & 1023) === 0 && performance.now() >= deadline) break;
  }
  const elapsed = (performance.now() - started) / 1000;
  if (sink < 0) console.log(sink); // keeps the loop from being optimized away
  return { calls, seconds: elapsed, nsPerCall: (elapsed * 1e9) / calls, refused };
}

/** One line for the bench output. */
export function formatRateLimitBench(r: RateLimitBenchReport): string {
  return `rate limit per request (in-process, takeUser + header merge, 1,000 users): ${r.nsPerCall.toFixed(0)} ns (${r.calls} calls in ${r.seconds.toFixed(2)} s, ${r.refused} refused)`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { seconds: { type: 'string' } } });
  const seconds = values.seconds !== undefined ? Number(values.seconds) : 1;
  if (!(seconds > 0 && seconds <= 60)) {
    console.error('usage: node --import=tsx bench/rate-limit.ts [--seconds S (0-60]]');
    process.exit(2);
  }
  console.log(formatRateLimitBench(runRateLimitBench({ seconds })));
}
