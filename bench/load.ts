/**
 * A typed wrapper around autocannon's library API (autocannon ships no types). One call runs one
 * bounded load scenario and returns autocannon's figures plus exact latency percentiles:
 * autocannon's own histogram has a 1 ms resolution (p50 of a fast endpoint reads "0" or "1"), so
 * every response time (fractional ms, from its `response` event) is also kept in a typed array and
 * sorted at the end.
 */
import { createRequire } from 'node:module';
import { Timeline, type TimelinePoint } from './timeline.js';

/** One request template (autocannon's `requests[]` entry). */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before each request; may replace the body (e.g. a counter for unique contents). */
  setupRequest?: (req: LoadRequest) => LoadRequest;
}

/** How a run drove the server. */
export interface LoadMode {
  /** closed: N connections, each waits for its answer; open: constant arrival rate. */
  kind: 'closed' | 'open';
  /** Open loop: the requested rate (req/s), requests sent, and requests never sent before the end. */
  rate?: number;
  sent?: number;
  unsent?: number;
  maxInFlight?: number;
}

/** Options of `runLoad`. */
export interface LoadOptions {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  request: LoadRequest;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration: number;
  /** Stop after this many requests (then `duration` is ignored; use `timeLimitMs`). */
  amount?: number;
  /** Hard stop after this many ms whatever happens (calls `instance.stop()`). */
  timeLimitMs?: number;
  /** Per-request timeout in seconds (default 10). */
  timeout?: number;
  /** Called about once a second with the number of responses so far. */
  onProgress?: (responses: number, elapsedMs: number) => void;
}

/** The result of one scenario. */
export interface LoadResult {
  /** Mean requests per second over the run (autocannon's per-second samples). */
  reqPerSec: number;
  /** Responses received. */
  responses: number;
  /** 2xx responses. */
  ok2xx: number;
  /** Responses with a status outside 200–299. */
  non2xx: number;
  /** Status code → count. */
  statusCodes: Record<string, number>;
  /** Connection errors (resets, refused, ...). */
  errors: number;
  timeouts: number;
  /** Exact latency percentiles over all responses, ms. */
  latencyMs: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  /** autocannon's own (1 ms resolution) p50/p99, for comparison with its CLI output (closed loop only). */
  autocannonLatencyMs?: { p50: number; p99: number };
  /** Latency per second of the run. */
  timeline?: TimelinePoint[];
  mode?: LoadMode;
  /** Wall-clock seconds the run took. */
  elapsedSec: number;
  /** True when `timeLimitMs` stopped the run before it finished by itself. */
  stoppedByTimeLimit: boolean;
}

interface AutocannonRaw {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  duration: number;
}
interface AutocannonInstance extends PromiseLike<AutocannonRaw> {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  stop(): void;
}
type Autocannon = (opts: Record<string, unknown>, cb: (err: Error | null, result: AutocannonRaw) => void) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

/** The autocannon instance currently running, so a SIGINT handler can stop it. */
let current: AutocannonInstance | null = null;

/** Stops the running scenario, if any (its promise then resolves with what was measured). */
export function stopCurrentLoad(): void {
  current?.stop();
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs one scenario with autocannon and resolves with its figures (never runs unbounded). */
export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  let times = new Float64Array(1 << 16);
  let n = 0;
  let stoppedByTimeLimit = false;
  const started = Date.now();
  const startedMs = performance.now();
  const timeline = new Timeline();
  return new Promise<LoadResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let progress: NodeJS.Timeout | undefined;
    const { setupRequest, ...template } = opts.request;
    const instance = autocannon(
      {
        url: opts.url,
        connections: opts.connections,
        duration: opts.duration,
        ...(opts.amount !== undefined && { amount: opts.amount }),
        timeout: opts.timeout ?? 10,
        requests: [
          {
            ...template,
            ...(setupRequest && { setupRequest: (req: LoadRequest) => setupRequest(req) }),
          },
        ],
      },
      (err, raw) => {
        clearTimeout(timer);
        clearInterval(progress);
        current = null;
        if (err) return reject(err);
        const sorted = times.subarray(0, n).sort();
        let sum = 0;
        for (let i = 0; i < n; i++) sum += sorted[i]!;
        const statusCodes: Record<string, number> = {};
        for (const [code, { count }] of Object.entries(raw.statusCodeStats ?? {})) statusCodes[code] = count;
        resolve({
          reqPerSec: raw.requests.average,
          responses: n,
          ok2xx: raw['2xx'],
          non2xx: raw.non2xx,
          statusCodes,
          errors: raw.errors,
          timeouts: raw.timeouts,
          latencyMs: {
            p50: percentile(sorted, 50),
            p90: percentile(sorted, 90),
            p99: percentile(sorted, 99),
            p999: percentile(sorted, 99.9),
            max: n > 0 ? sorted[n - 1]! : NaN,
            mean: n > 0 ? sum / n : NaN,
          },
          autocannonLatencyMs: { p50: raw.latency.p50, p99: raw.latency.p99 },
          elapsedSec: (Date.now() - started) / 1000,
          stoppedByTimeLimit,
          timeline: timeline.points(),
          mode: { kind: 'closed' },
        });
      },
    );
    current = instance;
    instance.on('response', (_client, _status, _bytes, ms) => {
      if (n === times.length) {
        const bigger = new Float64Array(times.length * 2);
        bigger.set(times);
        times = bigger;
      }
      times[n++] = ms;
      timeline.record(performance.now() - startedMs - ms, ms);
    });
    if (opts.timeLimitMs !== undefined) {
      timer = setTimeout(() => {
        stoppedByTimeLimit = true;
        instance.stop();
      }, opts.timeLimitMs);
    }
    if (opts.onProgress) progress = setInterval(() => opts.onProgress!(n, Date.now() - started), 1000);
  });
}
