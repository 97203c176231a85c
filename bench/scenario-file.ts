/**
 * Load scenarios as data (bench/README.md, "Scenario files"): one small JSON file per scenario in
 * bench/scenarios/, validated with a typebox schema. Files run in file-name order. A scenario is
 * a weighted mix of request templates, run closed-loop (N connections, each sends its next
 * request when the previous answered: autocannon) or open-loop (a constant arrival rate, latency
 * from the intended send time: bench/open-loop.ts).
 *
 * Templates may use `{name}` placeholders, filled per run from `ScenarioVars` (and `{seq}`, a
 * counter unique per request): in `path`, in `query` values (objects are JSON-encoded first,
 * e.g. a narrow) and in `form` values (the form-urlencoded body).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { LoadRequest } from './load.js';

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/** One request template of a scenario's mix. */
const RequestTemplate = Type.Object(
  {
    /** Relative share of this request in the mix (default 1). */
    weight: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
    /** Path starting with `/`, placeholders allowed. */
    path: Type.String({ pattern: '^/' }),
    /** Query parameters; object/array values are JSON-encoded (Zulip's `narrow`). */
    query: Type.Optional(Type.Record(Type.String(), Type.Union([Scalar, Type.Array(Type.Unknown()), Type.Object({})]))),
    /** Form fields of a POST body (application/x-www-form-urlencoded). */
    form: Type.Optional(Type.Record(Type.String(), Scalar)),
  },
  { additionalProperties: false },
);

/** Goals of a scenario: req/s as a share of the ceiling's, and the p99 latency in ms. */
const TargetValues = Type.Object(
  { ratioToCeiling: Type.Optional(Type.Number({ minimum: 0 })), p99Ms: Type.Optional(Type.Number({ exclusiveMinimum: 0 })) },
  { additionalProperties: false },
);
export type TargetValuesT = Static<typeof TargetValues>;

/** A scenario file. */
export const ScenarioSchema = Type.Object(
  {
    /** Name in tables, results and `--only` (letters, digits, `-`). */
    name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 40 }),
    /** `--only` also selects scenarios by group (e.g. `list` = every list-* scenario). */
    group: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' })),
    description: Type.String({ minLength: 1 }),
    mode: Type.Union([Type.Literal('closed'), Type.Literal('open')]),
    /** Connections (closed loop: concurrent requests). Default: `--connections`. */
    connections: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    /** Measured seconds. Default: `--duration`. */
    duration: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
    /** Unmeasured seconds first. Default: `--warmup`. */
    warmup: Type.Optional(Type.Number({ minimum: 0, maximum: 600 })),
    /** Open loop: requests per second (required in open mode). */
    rate: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })),
    /** Open loop: most requests in flight; later ones wait (their wait counts in their latency). Default 1000. */
    maxInFlight: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    /** Phases the scenario runs in: on the fresh store, and again after `--preload`. Default both. */
    phases: Type.Optional(Type.Array(Type.Union([Type.Literal('empty'), Type.Literal('preloaded')]), { minItems: 1 })),
    /** Only a parley started with `--bench` serves it; against `--target` the `fallback` mix runs instead (or the scenario is skipped). */
    benchOnly: Type.Optional(Type.Boolean()),
    fallback: Type.Optional(Type.Array(RequestTemplate, { minItems: 1 })),
    /** This scenario is the yardstick every req/s is divided by. */
    ceiling: Type.Optional(Type.Boolean()),
    /** Goals shown next to the figures (never change the exit code). */
    targets: Type.Optional(
      Type.Object(
        {
          ...TargetValues.properties,
          /** Overrides per closed-loop load generator (`--driver`): a cheaper client measures a higher ceiling, so ratios differ. */
          byDriver: Type.Optional(Type.Object({ autocannon: Type.Optional(TargetValues), wrk: Type.Optional(TargetValues) }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Each request must answer 200 with this substring before the scenario is measured. */
    expect: Type.Optional(Type.String()),
    /**
     * `{channel}` is a channel with this many created subscribers besides the bench account
     * (bench/wide-channel.ts). A parley the bench starts only: skipped against `--target`.
     */
    channelSubscribers: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    requests: Type.Array(RequestTemplate, { minItems: 1, maxItems: 64 }),
  },
  { additionalProperties: false },
);
export type Scenario = Static<typeof ScenarioSchema>;
export type RequestTemplateT = Static<typeof RequestTemplate>;

const validator = Compile(ScenarioSchema);

/** A scenario file that failed to parse or validate; `message` names the file and every problem. */
export class ScenarioFileError extends Error {}

/** Parses and validates one scenario's JSON text (`source`: file name for messages). */
export function parseScenario(text: string, source: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScenarioFileError(`${source}: not JSON: ${(error as Error).message}`);
  }
  if (!validator.Check(value)) {
    const problems = validator.Errors(value).map((e) => `${e.instancePath || '/'}: ${e.message}`);
    throw new ScenarioFileError(`${source}: invalid scenario: ${[...new Set(problems)].join('; ')}`);
  }
  const s = value as Scenario;
  if (s.mode === 'open' && s.rate === undefined) throw new ScenarioFileError(`${source}: invalid scenario: /rate: required in open mode`);
  if (s.mode === 'closed' && (s.rate !== undefined || s.maxInFlight !== undefined)) {
    throw new ScenarioFileError(`${source}: invalid scenario: /rate and /maxInFlight: only in open mode`);
  }
  return s;
}

/** Every `*.json` scenario of `dir`, in file-name order; names must be unique. */
export function loadScenarios(dir: string): Scenario[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const out: Scenario[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const s = parseScenario(readFileSync(join(dir, file), 'utf8'), file);
    const other = seen.get(s.name);
    if (other !== undefined) throw new ScenarioFileError(`${file}: invalid scenario: /name: '${s.name}' already used by ${other}`);
    seen.set(s.name, file);
    out.push(s);
  }
  if (out.length === 0) throw new ScenarioFileError(`${dir}: no scenario files (*.json)`);
  return out;
}

/** Values for `{placeholders}`: channel, topic, message ids... (`{seq}` is added per request). */
export type ScenarioVars = Record<string, string | number>;

const PLACEHOLDER = /\{([a-zA-Z]+)\}/g;

function fill(text: string, vars: ScenarioVars, seq: number | string, source: string): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    if (name === 'seq') return String(seq);
    const v = vars[name];
    if (v === undefined) throw new ScenarioFileError(`${source}: unknown placeholder {${name}}`);
    return String(v);
  });
}

/** Placeholder names a template uses (to check them once before a run). */
function placeholdersOf(t: RequestTemplateT): string[] {
  const text = JSON.stringify(t);
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/**
 * Builds one concrete request from a template (`seq`: the request's counter, or a marker string
 * that a load generator replaces per request, e.g. bench/wrk.ts's Lua script).
 */
export function instantiate(t: RequestTemplateT, vars: ScenarioVars, seq: number | string, source = 'scenario', auth?: string): LoadRequest {
  let path = fill(t.path, vars, seq, source);
  if (t.query !== undefined) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(t.query)) q.set(k, fill(typeof v === 'object' ? JSON.stringify(v) : String(v), vars, seq, source));
    path += (path.includes('?') ? '&' : '?') + q.toString();
  }
  const headers: Record<string, string> = {};
  if (auth !== undefined) headers.authorization = auth;
  if (t.form === undefined) return { method: t.method, path, headers };
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(t.form)) body.set(k, fill(String(v), vars, seq, source));
  headers['content-type'] = 'application/x-www-form-urlencoded';
  return { method: t.method, path, headers, body: body.toString() };
}

/**
 * A request picker for a mix: each call returns the next request, the template drawn by weight
 * (a deterministic weighted round-robin, so short runs follow the weights closely). Throws
 * `ScenarioFileError` up front if a placeholder has no value.
 */
export function requestPicker(templates: readonly RequestTemplateT[], vars: ScenarioVars, source: string, auth?: string): () => LoadRequest {
  for (const t of templates) for (const name of placeholdersOf(t)) if (name !== 'seq' && vars[name] === undefined) throw new ScenarioFileError(`${source}: unknown placeholder {${name}}`);
  const weights = templates.map((t) => t.weight ?? 1);
  const credit = weights.map(() => 0);
  const total = weights.reduce((a, b) => a + b, 0);
  let seq = 0;
  return () => {
    // Smooth weighted round-robin (as nginx's upstream balancer).
    let best = 0;
    for (let i = 0; i < weights.length; i++) {
      credit[i]! += weights[i]!;
      if (credit[i]! > credit[best]!) best = i;
    }
    credit[best]! -= total;
    return instantiate(templates[best]!, vars, ++seq, source, auth);
  };
}
