/**
 * The scenarios of `npm run bench` that are code rather than files: the preload (many sends as
 * fast as possible, then the `preloaded` phase), and the fan-out scenario turned into the common
 * result shape (delivery latency percentiles and timeline).
 */
import { processMemory } from '../test/support/server-process.js';
import { runLoad } from './load.js';
import { requestPicker, type Scenario } from './scenario-file.js';
import type { FanoutReport } from './fanout.js';
import type { ScenarioReport } from './results.js';
import type { Target } from './target.js';

/** Figures of a preload. */
export interface PreloadReport {
  requested: number;
  loaded: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  elapsedSec: number;
  sendsPerSec: number;
  stoppedByTimeLimit: boolean;
  memoryBefore: ReturnType<typeof processMemory>;
  memoryAfter: ReturnType<typeof processMemory>;
}

/** Sends up to `count` messages with the `send` scenario's requests, bounded by `timeLimitSec`. */
export async function preload(target: Target, send: Scenario, count: number, connections: number, timeLimitSec: number, pid: number | undefined): Promise<PreloadReport> {
  const before = pid === undefined ? undefined : processMemory(pid);
  process.stderr.write(`preloading ${count} messages (${connections} connections, limit ${timeLimitSec} s)\n`);
  const next = requestPicker(send.requests, target.vars, send.name, target.auth);
  let lastReport = 0;
  const result = await runLoad({
    url: target.url,
    request: { ...next(), setupRequest: () => next() },
    connections: Math.min(connections, count),
    duration: timeLimitSec,
    amount: count,
    timeLimitMs: timeLimitSec * 1000,
    timeout: 30,
    onProgress: (n, ms) => {
      if (ms - lastReport < 5000) return;
      lastReport = ms;
      const rss = pid === undefined ? undefined : processMemory(pid)?.rssMiB;
      process.stderr.write(`  ${n} sends answered in ${(ms / 1000).toFixed(0)} s${rss === undefined ? '' : ` (RSS ${rss.toFixed(0)} MiB)`}\n`);
    },
  });
  const after = pid === undefined ? undefined : processMemory(pid);
  process.stderr.write(`  loaded ${result.ok2xx} of ${count} in ${result.elapsedSec.toFixed(1)} s${result.stoppedByTimeLimit ? ' (time limit reached)' : ''}\n`);
  return {
    requested: count,
    loaded: result.ok2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    elapsedSec: result.elapsedSec,
    sendsPerSec: result.ok2xx / result.elapsedSec,
    stoppedByTimeLimit: result.stoppedByTimeLimit,
    memoryBefore: before,
    memoryAfter: after,
  };
}

/** The fan-out run as a scenario row: one "request" per message, latency = send → last delivery. */
export function fanoutScenario(f: FanoutReport, pid: number | undefined, p99TargetMs: number): ScenarioReport {
  return {
    name: 'fanout',
    phase: 'empty',
    method: 'POST',
    path: `/api/v1/messages → ${f.queues} × GET /api/v1/events`,
    connections: f.queues,
    durationSec: f.elapsedSec,
    driver: 'fanout',
    result: {
      reqPerSec: f.eventsPerSec,
      responses: f.messagesSent,
      ok2xx: f.messagesSent - f.incomplete,
      non2xx: 0,
      statusCodes: {},
      errors: 0,
      timeouts: f.incomplete,
      latencyMs: { p50: f.latencyMs.p50, p90: NaN, p99: f.latencyMs.p99, p999: NaN, max: f.latencyMs.max, mean: f.latencyMs.mean },
      elapsedSec: f.elapsedSec,
      stoppedByTimeLimit: false,
      timeline: f.timeline,
      mode: { kind: 'closed' },
    },
    ratioToCeiling: NaN,
    memory: pid === undefined ? undefined : processMemory(pid),
    targets: [{ description: `p99 < ${p99TargetMs} ms (send → last of ${f.queues} queues; req/s = events delivered/s)`, met: f.incomplete === 0 && f.latencyMs.p99 < p99TargetMs }],
    flagged: f.incomplete > 0 ? `${f.incomplete} messages did not reach every queue in time` : null,
  };
}
