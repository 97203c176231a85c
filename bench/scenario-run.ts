/**
 * Runs one scenario file (bench/scenario-file.ts) against the server under test: a warm-up, then
 * the measured run, closed loop through autocannon (bench/load.ts) or open loop
 * (bench/open-loop.ts), and the judgement against the scenario's targets.
 */
import { processMemory } from '../test/support/server-process.js';
import { runLoad, type LoadRequest, type LoadResult } from './load.js';
import { runOpenLoop } from './open-loop.js';
import { requestPicker, type RequestTemplateT, type Scenario, type ScenarioVars } from './scenario-file.js';
import type { ScenarioReport } from './results.js';
import type { Target } from './target.js';

/** Run-wide defaults a scenario file may override. */
export interface RunDefaults {
  duration: number;
  connections: number;
  warmup: number;
  /** The server's pid when the harness started it (memory figures), else undefined. */
  pid: number | undefined;
}

/** The templates to run against `target`: the scenario's, or its fallback when the route is parley `--bench` only; null = skip. */
export function templatesFor(s: Scenario, target: Target): RequestTemplateT[] | null {
  if (!s.benchOnly || target.hasCeilingRoute) return s.requests;
  return s.fallback ?? null;
}

const describe = (t: RequestTemplateT) => `${t.method} ${t.path}${t.query ? `?${Object.keys(t.query).join('&')}` : ''}${t.weight !== undefined ? ` ×${t.weight}` : ''}`;

async function sampleReply(url: string, request: LoadRequest): Promise<string> {
  try {
    const res = await fetch(url + request.path, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.method === 'POST' && { body: request.body ?? '' }),
    });
    return `HTTP ${res.status} ${(await res.text()).slice(0, 300)}`;
  } catch (error) {
    return `request failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function drive(target: Target, s: Scenario, next: () => LoadRequest, seconds: number, connections: number): Promise<LoadResult> {
  if (s.mode === 'open') {
    return runOpenLoop({ url: target.url, next, rate: s.rate!, durationSec: seconds, maxInFlight: s.maxInFlight ?? 1000, connections: Math.min(connections, s.maxInFlight ?? 1000) });
  }
  const first = next();
  return runLoad({
    url: target.url,
    request: { ...first, setupRequest: () => next() },
    connections,
    duration: seconds,
    timeLimitMs: (seconds + 30) * 1000,
  });
}

/**
 * Measures `s` in `phase`; returns null when the scenario cannot run against this target (a
 * parley-only route without fallback). Throws when a request of the mix fails its `expect`
 * check before the run (a misconfigured scenario would otherwise measure error replies).
 */
export async function measureScenario(
  target: Target,
  s: Scenario,
  phase: ScenarioReport['phase'],
  defaults: RunDefaults,
  vars: ScenarioVars = target.vars,
): Promise<ScenarioReport | null> {
  const templates = templatesFor(s, target);
  if (templates === null) return null;
  const next = requestPicker(templates, vars, s.name, target.auth);
  const connections = s.connections ?? defaults.connections;
  const duration = s.duration ?? defaults.duration;
  const warmup = s.warmup ?? defaults.warmup;
  if (s.expect !== undefined) {
    const check = requestPicker(templates, vars, s.name, target.auth);
    for (let i = 0; i < templates.length; i++) {
      const reply = await sampleReply(target.url, check());
      if (!reply.startsWith('HTTP 200') || !reply.includes(s.expect)) throw new Error(`${s.name}: unexpected reply ${reply}`);
    }
  }
  const label = `  ${s.name} (${phase}, ${s.mode} loop${s.mode === 'open' ? ` ${s.rate} req/s` : ''})`;
  if (warmup > 0) {
    process.stderr.write(`${label}: warm-up ${warmup} s… `);
    await drive(target, s, next, warmup, connections);
  } else process.stderr.write(`${label}: `);
  process.stderr.write(`measuring ${duration} s… `);
  const result = await drive(target, s, next, duration, connections);
  process.stderr.write(`${Math.round(result.reqPerSec)} req/s\n`);
  const problems: string[] = [];
  if (result.errors > 0) problems.push(`${result.errors} connection errors`);
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`);
  if (result.non2xx > 0) problems.push(`${result.non2xx} non-2xx (${JSON.stringify(result.statusCodes)})`);
  if (result.stoppedByTimeLimit) problems.push('stopped by the time limit');
  if ((result.mode?.unsent ?? 0) > 0) problems.push(`${result.mode!.unsent} due requests never sent`);
  const first = next();
  const report: ScenarioReport = {
    name: s.name,
    phase,
    method: first.method,
    path: first.path,
    mix: templates.map(describe),
    connections,
    durationSec: duration,
    result,
    ratioToCeiling: NaN,
    memory: defaults.pid === undefined ? undefined : processMemory(defaults.pid),
    targets: [],
    flagged: problems.length > 0 ? problems.join(', ') : null,
  };
  if (report.flagged) report.sampleErrorReply = await sampleReply(target.url, first);
  return report;
}

/** Fills `r`'s ratio to the ceiling and its targets (from the scenario file, if any). */
export function judge(r: ScenarioReport, s: Scenario | undefined, ceilingReqPerSec: number): void {
  r.ratioToCeiling = r.name === 'fanout' ? NaN : r.result.reqPerSec / ceilingReqPerSec;
  const t = s?.targets;
  if (t?.ratioToCeiling !== undefined) r.targets.push({ description: `≥ ${t.ratioToCeiling} × ceiling`, met: r.ratioToCeiling >= t.ratioToCeiling });
  if (t?.p99Ms !== undefined) r.targets.push({ description: `p99 < ${t.p99Ms} ms`, met: r.result.latencyMs.p99 < t.p99Ms });
}
