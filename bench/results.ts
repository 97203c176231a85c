/**
 * The shape of a results file (bench/results/<timestamp>.json) as the HTML report and the
 * comparison read it. Every HTTP scenario, closed or open loop, and the fan-out scenario
 * (delivery latency) are `ScenarioReport`s; in-process benches keep their own sections.
 */
import type { LoadResult } from './load.js';
import type { ProcessMemory } from '../test/support/server-process.js';
import type { ServerCpu } from './server-cpu.js';

/**
 * What generated a scenario's load: a closed-loop generator (`--driver`), the open-loop runner
 * (bench/open-loop.ts, undici) or the fan-out long-pollers (bench/fanout.ts).
 */
export type LoadDriverName = 'autocannon' | 'wrk' | 'open-loop' | 'fanout';

/** One measured scenario (table row + JSON entry). */
export interface ScenarioReport {
  name: string;
  phase: 'empty' | 'preloaded';
  /** First request of the mix (older result files have only these). */
  method: string;
  path: string;
  /** Every request of the mix as `METHOD path ×weight` (absent in older files). */
  mix?: string[];
  connections: number;
  durationSec: number;
  /** The load generator (absent in older files: autocannon or open-loop, see `result.mode`). */
  driver?: LoadDriverName;
  result: LoadResult;
  /** reqPerSec / ceiling reqPerSec (NaN when not comparable, e.g. fan-out). */
  ratioToCeiling: number;
  /** Server memory right after the scenario (VmRSS, RssAnon, RssFile), MiB; absent against `--target`. */
  memory: ProcessMemory | undefined;
  /** Server CPU over the measured run (bench/server-cpu.ts); absent against `--target` and in older files. */
  serverCpu?: ServerCpu;
  /** The targets this scenario is held to, and whether they were met. */
  targets: { description: string; met: boolean }[];
  /** Set when the run had errors, timeouts or non-2xx replies. */
  flagged: string | null;
  /** One reply of the same request, fetched after a flagged run to show what went wrong. */
  sampleErrorReply?: string;
}

/** What the HTML report and `--compare` need from a results file. */
export interface BenchResults {
  timestamp: string;
  machine?: { cpus: number; cpuModel?: string; totalMemMiB?: number; node?: string; loadAverage?: number[] };
  target?: { url: string; external: boolean };
  /** The closed-loop load generator of the run (`--driver`; absent in older files: autocannon). */
  driver?: { closedLoop: string; version?: string };
  scenarios: ScenarioReport[];
  [section: string]: unknown;
}

/** `name (phase)`: how scenarios are matched between two result files. */
export const scenarioKey = (r: Pick<ScenarioReport, 'name' | 'phase'>): string => `${r.name} (${r.phase})`;
