/**
 * Open-loop load (bench/README.md, "Open loop"): requests are due at a constant arrival rate
 * (request i at start + i / rate), whatever the server does; each latency is measured from the
 * request's **intended** send time, not from when the client managed to send it. So a server
 * that stalls for 200 ms shows ≥ 200 ms for every request due during the stall, instead of the
 * one slow request a closed loop (autocannon, wrk) records while it stops sending: coordinated
 * omission. autocannon's `overallRate` only throttles its closed loop, so this is a small
 * scheduler on undici (`Pool`, keep-alive connections) with HDR histograms (hdr-histogram-js,
 * microsecond values, 3 significant digits).
 *
 * Bounded: at most `maxInFlight` requests outstanding (later due requests wait in a queue and
 * their wait counts in their latency), at most rate × duration requests, and the run ends at
 * duration + `drainTimeoutMs` whatever happens (requests still unsent then are reported as
 * `unsent`, unanswered ones as timeouts).
 */
import { Pool } from 'undici';
import * as hdr from 'hdr-histogram-js';
import { Timeline } from './timeline.js';
import type { LoadRequest, LoadResult } from './load.js';

/** Options of `runOpenLoop`. */
export interface OpenLoopOptions {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The next request to send (a weighted mix, a counter...). */
  next: () => LoadRequest;
  /** Arrival rate, requests per second. */
  rate: number;
  /** Seconds during which requests are due. */
  durationSec: number;
  /** Most requests outstanding at once (default 1000). */
  maxInFlight?: number;
  /** Keep-alive connections of the pool (default: min(maxInFlight, 256)). */
  connections?: number;
  /** Per-request timeout, ms (default 10,000). */
  timeoutMs?: number;
  /** After the last due time, how long to wait for answers, ms (default 10,000). */
  drainTimeoutMs?: number;
}

let current: { stop(): void } | null = null;

/** Stops the running open-loop scenario, if any (for Ctrl-C). */
export function stopOpenLoop(): void {
  current?.stop();
}

/** Runs one open-loop scenario; resolves with the same figures as the closed loop (`LoadResult`). */
export async function runOpenLoop(opts: OpenLoopOptions): Promise<LoadResult> {
  const maxInFlight = opts.maxInFlight ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const total = Math.max(1, Math.floor(opts.rate * opts.durationSec));
  const intervalMs = 1000 / opts.rate;
  const pool = new Pool(opts.url, { connections: opts.connections ?? Math.min(maxInFlight, 256), pipelining: 1 });
  const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });
  const timeline = new Timeline();
  const statusCodes: Record<string, number> = {};
  let ok2xx = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let responses = 0;
  let sent = 0;
  let inFlight = 0;
  let stopped = false;
  /** Set at the end: requests still in flight then are counted once, as timeouts. */
  let closed = false;
  const started = performance.now();
  let lastDone = started;

  const send = (i: number): void => {
    const intended = started + i * intervalMs;
    const req = opts.next();
    inFlight++;
    sent++;
    const signal = AbortSignal.timeout(timeoutMs);
    pool
      .request({ origin: opts.url, method: req.method, path: req.path, headers: req.headers ?? {}, body: req.method === 'POST' ? (req.body ?? '') : null, signal })
      .then(async (res) => {
        await res.body.dump();
        if (closed) return; // answered after the end: already counted as a timeout
        const done = performance.now();
        lastDone = done;
        const latencyMs = done - intended;
        histogram.recordValue(Math.max(1, Math.round(latencyMs * 1000)));
        timeline.record(intended - started, latencyMs);
        responses++;
        statusCodes[res.statusCode] = (statusCodes[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 200 && res.statusCode < 300) ok2xx++;
        else non2xx++;
      })
      .catch((error: unknown) => {
        if (closed) return;
        if ((error as { name?: string }).name === 'TimeoutError' || signal.aborted) timeouts++;
        else errors++;
      })
      .finally(() => {
        inFlight--;
        pump();
      });
  };

  // Next request index to send; every index below `due` is due (by the clock).
  let next = 0;
  let wake: (() => void) | null = null;
  const pump = (): void => {
    if (stopped) return;
    const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
    while (next < due && inFlight < maxInFlight) send(next++);
    if (next >= total && inFlight === 0) wake?.();
  };

  const endAt = started + opts.durationSec * 1000 + (opts.drainTimeoutMs ?? 10_000);
  await new Promise<void>((resolve) => {
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(tick);
      resolve();
    };
    wake = finish;
    current = { stop: () => ((stopped = true), finish()) };
    // A 1 ms tick releases due requests (timers are coarse: a late tick sends a burst, and the
    // burst's latencies still count from their due times).
    const tick = setInterval(() => {
      pump();
      if (performance.now() >= endAt) {
        stopped = true;
        finish();
      }
    }, 1);
    pump();
  });
  current = null;
  closed = true;
  const unanswered = inFlight;
  const elapsedSec = (performance.now() - started) / 1000;
  await pool.destroy().catch(() => undefined);
  const ms = (us: number) => us / 1000;
  const count = histogram.totalCount;
  const result: LoadResult = {
    // Answers per second over the arrival window, or until the last answer if that came later.
    reqPerSec: responses / Math.max(opts.durationSec, (lastDone - started) / 1000),
    responses,
    ok2xx,
    non2xx,
    statusCodes,
    errors,
    timeouts: timeouts + unanswered,
    latencyMs: {
      p50: count > 0 ? ms(histogram.getValueAtPercentile(50)) : NaN,
      p90: count > 0 ? ms(histogram.getValueAtPercentile(90)) : NaN,
      p99: count > 0 ? ms(histogram.getValueAtPercentile(99)) : NaN,
      p999: count > 0 ? ms(histogram.getValueAtPercentile(99.9)) : NaN,
      max: count > 0 ? ms(histogram.maxValue) : NaN,
      mean: count > 0 ? ms(histogram.mean) : NaN,
    },
    elapsedSec,
    stoppedByTimeLimit: stopped && (next < total || unanswered > 0),
    timeline: timeline.points(),
    mode: { kind: 'open', rate: opts.rate, sent, unsent: total - sent, maxInFlight },
  };
  histogram.destroy();
  return result;
}
