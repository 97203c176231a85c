/**
 * Runs one scenario file (bench/scenario-file.ts) against the server under test: a warm-up, then
 * the measured run, closed loop through the `--driver` (autocannon, bench/load.ts, or wrk,
 * bench/wrk.ts) or open loop (bench/open-loop.ts, whatever the driver), and the judgement
 * against the scenario's targets (the driver's own where the file sets them).
 */
import { processMemory } from '../test/support/server-process.js';
import { runLoad, type LoadRequest, type LoadResult } from './load.js';
import { runOpenLoop } from './open-loop.js';
import { requestPicker, type RequestTemplateT, type Scenario, type ScenarioVars } from './scenario-file.js';
import type { LoadDriverName, ScenarioReport } from './results.js';
import type { Driver } from './options.js';
import { runWrk } from './wrk.js';
import { cpuBetween, sampleCpu } from './server-cpu.js';
import type { Target } from './target.js';

/** Run-wide defaults a scenario file may override. */
export interface RunDefaults {
  duration: number;
  connections: number;
  warmup: number;
  /** Closed-loop load generator (`--driver`); open-loop scenarios keep their own runner. */
  driver: Driver;
  /** The server's pid when the harness started it (memory and CPU figures), else undefined. */
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

/** The load generator that runs `s`: open-loop scenarios have their own, closed-loop ones the `--driver`. */
export function driverOf(s: Scenario, driver: Driver): LoadDriverName {
  return s.mode === 'open' ? 'open-loop' : driver;
}

/** What one drive needs besides the scenario: the mix with its placeholder values. */
interface Mix {
  templates: RequestTemplateT[];
  vars: ScenarioVars;
  /** Next concrete request (autocannon and open loop; wrk's Lua script does its own). */
  next: () => LoadRequest;
}

async function drive(target: Target, s: Scenario, mix: Mix, seconds: number, connections: number, driver: Driver): Promise<LoadResult> {
  const { next } = mix;
  if (s.mode === 'open') {
    return runOpenLoop({ url: target.url, next, rate: s.rate!, durationSec: seconds, maxInFlight: s.maxInFlight ?? 1000, connections: Math.min(connections, s.maxInFlight ?? 1000) });
  }
  if (driver === 'wrk') {
    return runWrk({ url: target.url, templates: mix.templates, vars: mix.vars, source: s.name, auth: target.auth, connections, duration: seconds });
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
  const mix: Mix = { templates, vars, next };
  const driver = driverOf(s, defaults.driver);
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
  const own = s.mode === 'open' && defaults.driver !== 'autocannon' ? ', its own driver, not ' + defaults.driver : '';
  const label = `  ${s.name} (${phase}, ${s.mode} loop${s.mode === 'open' ? ` ${s.rate} req/s${own}` : `, ${driver}`})`;
  if (warmup > 0) {
    process.stderr.write(`${label}: warm-up ${warmup} s… `);
    await drive(target, s, mix, warmup, connections, defaults.driver);
  } else process.stderr.write(`${label}: `);
  process.stderr.write(`measuring ${duration} s… `);
  const cpuBefore = defaults.pid === undefined ? undefined : sampleCpu(defaults.pid);
  const result = await drive(target, s, mix, duration, connections, defaults.driver);
  const serverCpu = defaults.pid === undefined ? undefined : cpuBetween(cpuBefore, sampleCpu(defaults.pid), result.responses);
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
    driver,
    result,
    ratioToCeiling: NaN,
    memory: defaults.pid === undefined ? undefined : processMemory(defaults.pid),
    serverCpu,
    targets: [],
    flagged: problems.length > 0 ? problems.join(', ') : null,
  };
  if (report.flagged) report.sampleErrorReply = await sampleReply(target.url, first);
  return report;
}

/**
 * Fills `r`'s ratio to the ceiling and its targets: the scenario file's `targets`, overridden by
 * `targets.byDriver[driver]` for the driver that ran it (marked `(wrk)` etc. in the description).
 */
export function judge(r: ScenarioReport, s: Scenario | undefined, ceilingReqPerSec: number): void {
  r.ratioToCeiling = r.name === 'fanout' ? NaN : r.result.reqPerSec / ceilingReqPerSec;
  const t = s?.targets;
  const own = r.driver === 'autocannon' || r.driver === 'wrk' ? t?.byDriver?.[r.driver] : undefined;
  const ratio = own?.ratioToCeiling ?? t?.ratioToCeiling;
  const p99 = own?.p99Ms ?? t?.p99Ms;
  const mark = (fromDriver: boolean) => (fromDriver ? ` (${r.driver})` : '');
  if (ratio !== undefined) r.targets.push({ description: `≥ ${ratio} × ceiling${mark(own?.ratioToCeiling !== undefined)}`, met: r.ratioToCeiling >= ratio });
  if (p99 !== undefined) r.targets.push({ description: `p99 < ${p99} ms${mark(own?.p99Ms !== undefined)}`, met: r.result.latencyMs.p99 < p99 });
}
