/** Command-line options of `npm run bench` (bench/README.md has the table). */
import { parseArgs } from 'node:util';

export const USAGE = `usage: npm run bench -- [options]
       npm run bench -- --compare A.json B.json
  --target URL             load-test this Zulip-compatible server instead of starting a parley
  --email E --api-key K    the account used against --target (HTTP Basic auth)
  --channel NAME           channel to send to and read (default: the account's first subscribed channel; Verona for the started parley)
  --topic NAME             topic (default bench)
  --scenarios DIR          scenario files (default bench/scenarios)
  --out DIR                where results are written (default bench/results)
  --duration S             seconds per measured scenario unless the file sets it (default 10)
  --connections N          concurrent connections unless the file sets it (default 50)
  --warmup S               unmeasured warm-up seconds before each scenario (default 2; 0 = none)
  --preload N              load N messages, then re-measure (default 0 = skip)
  --preload-time-limit S   stop preloading after S seconds whatever was loaded (default 300)
  --preload-connections N  connections used for preloading (default 200)
  --fanout N               fan-out scenario: N long-polling queues (default 1000; 0 = skip)
  --fanout-messages K      messages sent in the fan-out scenario (default 50)
  --search-messages N      messages of the in-process search-index bench (default 1000000)
  --driver NAME            closed-loop load generator: autocannon (default) or wrk (apt-get install wrk)
  --only a,b               scenario names or groups (from the files), plus fanout, render, render-adversarial,
                           rate-limit, upload, webapp, search-index (the ceiling always runs)
  --compare A.json B.json  before/after table of two results files (also written as HTML)`;

/** Closed-loop load generators (`--driver`): autocannon in the bench process, or wrk (bench/wrk.ts). */
export const DRIVERS = ['autocannon', 'wrk'] as const;
export type Driver = (typeof DRIVERS)[number];

/** Scenarios that are code, not files. */
export const IN_PROCESS = ['fanout', 'render', 'render-adversarial', 'rate-limit', 'upload', 'webapp', 'search-index'] as const;

function intOption(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new Error(`--${name} must be an integer ≥ ${min}, got '${value}'`);
  return Number(value);
}

/** Parses argv; `help` set means print USAGE and exit. Throws on a bad value. */
export function parseOptions(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      target: { type: 'string' },
      email: { type: 'string' },
      'api-key': { type: 'string' },
      channel: { type: 'string' },
      topic: { type: 'string' },
      scenarios: { type: 'string' },
      out: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      preload: { type: 'string' },
      'preload-time-limit': { type: 'string' },
      'preload-connections': { type: 'string' },
      only: { type: 'string' },
      driver: { type: 'string' },
      fanout: { type: 'string' },
      'fanout-messages': { type: 'string' },
      'search-messages': { type: 'string' },
      compare: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.compare !== undefined && positionals.length !== 1) throw new Error('--compare needs two files: --compare A.json B.json');
  if (values.compare === undefined && positionals.length > 0) throw new Error(`unexpected argument '${positionals[0]}'`);
  if (values.target !== undefined && (values.email === undefined || values['api-key'] === undefined)) throw new Error('--target needs --email and --api-key');
  if (values.target !== undefined && !/^https?:\/\//.test(values.target)) throw new Error(`--target must be an http(s) URL, got '${values.target}'`);
  const driver = values.driver ?? 'autocannon';
  if (!(DRIVERS as readonly string[]).includes(driver)) throw new Error(`--driver must be one of ${DRIVERS.join(', ')}, got '${driver}'`);
  return {
    help: values.help ?? false,
    compare: values.compare === undefined ? null : ([values.compare, positionals[0]!] as const),
    target: values.target ?? null,
    email: values.email ?? null,
    apiKey: values['api-key'] ?? null,
    channel: values.channel ?? null,
    topic: values.topic ?? null,
    scenarios: values.scenarios ?? null,
    out: values.out ?? null,
    duration: intOption(values.duration, 'duration', 10, 1),
    connections: intOption(values.connections, 'connections', 50, 1),
    warmup: intOption(values.warmup, 'warmup', 2),
    preload: intOption(values.preload, 'preload', 0),
    preloadTimeLimit: intOption(values['preload-time-limit'], 'preload-time-limit', 300, 1),
    preloadConnections: intOption(values['preload-connections'], 'preload-connections', 200, 1),
    fanout: intOption(values.fanout, 'fanout', 1000),
    fanoutMessages: intOption(values['fanout-messages'], 'fanout-messages', 50, 1),
    searchMessages: intOption(values['search-messages'], 'search-messages', 1_000_000, 1),
    driver: driver as Driver,
    only: values.only === undefined ? null : new Set(values.only.split(',').map((s) => s.trim()).filter((s) => s !== '')),
  };
}
export type Options = ReturnType<typeof parseOptions>;
