/**
 * Prometheus metrics (issue 13 §2) through prom-client, in one process-wide registry served by
 * `GET /metrics` (on `--metrics-port`, or on the main port behind `--metrics-token`; never open
 * by default). Names follow Prometheus conventions: `parley_` prefix, base units (seconds),
 * `_total` for counters.
 *
 * | metric | type | labels | fed by |
 * |---|---|---|---|
 * | `parley_http_requests_total` | counter | route, method, status | `http/server.ts` (every answer) |
 * | `parley_http_request_duration_seconds` | histogram | route, method | `http/server.ts` |
 * | `parley_commit_batch_appends` | histogram | — | `storage/append-log.ts` (appends per group commit) |
 * | `parley_commit_durable_seconds` | histogram | — | `storage/append-log.ts` (queue → flushed) |
 * | `parley_snapshot_duration_seconds` | histogram | — | `realm/realm-actor.ts` |
 * | `parley_rate_limit_hits_total` | counter | domain | the rate limiter (`rateLimitHits.inc(...)`) |
 * | `parley_event_queues`, `parley_event_queue_consumers` | gauge | — | sampled at scrape time |
 * | `parley_realm_messages`, `parley_realm_users` | gauge | realm | sampled at scrape time |
 * | `process_*`, `nodejs_*` | prom-client defaults | | |
 *
 * `route` is the endpoint's path template (`/api/v1/messages/{message_id}`), never the raw path,
 * so label cardinality is bounded by the endpoint table; unrouted paths are `unmatched`.
 * Per request the cost is two Map lookups and a few number updates: the request counter and
 * latency histogram are aggregated in plain numbers and turned into samples at scrape time
 * (`bench/request-log.ts` measures it).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

/** The process-wide registry that `GET /metrics` serializes. */
export const metricsRegistry = new Registry();

/** Upper bounds (seconds) of the request latency histogram's buckets. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];

/** Plain-number aggregates of one route template + method (no prom-client work per request). */
interface RouteStats {
  /** Non-cumulative bucket counts; the last slot is +Inf. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
  /** HTTP status → requests. */
  readonly statuses: Map<number, number>;
}

/** route → method → aggregates, turned into Prometheus samples only at scrape time. */
const requestStats = new Map<string, Map<string, RouteStats>>();

/**
 * Builds the samples of the request counter and latency histogram from `requestStats`. Registered
 * as duck-typed prom-client metrics (`get()` returning name/help/type/values, what
 * `Registry.metrics()` reads), so a request costs a few number increments instead of prom-client's
 * per-call label hashing.
 */
function requestMetric(name: string, help: string, type: 'counter' | 'histogram') {
  return {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get() {
      const values: Array<{ metricName?: string; labels: Record<string, string | number>; value: number }> = [];
      for (const [route, byMethod] of requestStats) {
        for (const [method, stats] of byMethod) {
          if (type === 'counter') {
            for (const [status, n] of stats.statuses) values.push({ labels: { route, method, status }, value: n });
            continue;
          }
          let cumulative = 0;
          LATENCY_BUCKETS.forEach((le, i) => {
            cumulative += stats.buckets[i]!;
            values.push({ metricName: `${name}_bucket`, labels: { le, route, method }, value: cumulative });
          });
          values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', route, method }, value: stats.count });
          values.push({ metricName: `${name}_sum`, labels: { route, method }, value: stats.sum });
          values.push({ metricName: `${name}_count`, labels: { route, method }, value: stats.count });
        }
      }
      return { name, help, type, aggregator: 'sum' as const, values };
    },
    reset() {
      requestStats.clear();
    },
  };
}

metricsRegistry.registerMetric(
  requestMetric('parley_http_requests_total', 'HTTP requests answered, by route template, method and status', 'counter') as unknown as Metric,
);
metricsRegistry.registerMetric(
  requestMetric(
    'parley_http_request_duration_seconds',
    'Time from request head to the answer being written, by route template and method',
    'histogram',
  ) as unknown as Metric,
);

/** Appends (commands) written in one LMDB transaction by the group commit. */
export const commitBatchAppends = new Histogram({
  name: 'parley_commit_batch_appends',
  help: 'Appends (one per command) sharing one group commit (one LMDB transaction and fsync)',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
  registers: [metricsRegistry],
});

/** Seconds from a group commit being issued to it being committed and flushed to disk. */
export const commitDurableSeconds = new Histogram({
  name: 'parley_commit_durable_seconds',
  help: 'Seconds from issuing a group commit to it being durable (committed and flushed)',
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
  registers: [metricsRegistry],
});

/** Seconds to write one realm snapshot (state capture + LMDB write). */
export const snapshotSeconds = new Histogram({
  name: 'parley_snapshot_duration_seconds',
  help: 'Seconds to write one realm snapshot (capture and durable LMDB write)',
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
  registers: [metricsRegistry],
});

/**
 * Requests refused by a rate limit (429 RATE_LIMIT_HIT). The rate limiter calls
 * `rateLimitHits.inc({ domain })`, `domain` being the limit's name (Zulip's rate-limit domains,
 * e.g. `api_by_user`, `authenticate_by_username`).
 */
export const rateLimitHits = new Counter({
  name: 'parley_rate_limit_hits_total',
  help: 'Requests refused by a rate limit, by limit domain',
  labelNames: ['domain'] as const,
  registers: [metricsRegistry],
});

/**
 * Outgoing mails by outcome (`mail/mailer.ts`): `sent` (through SMTP or into the outbox),
 * `retried` (an attempt failed, another follows), `failed` (given up), `refused` (queue full or
 * shut down), and by `kind` (`invitation`, `password_reset`, `missed_message`).
 */
export const mailOutcomes = new Counter({
  name: 'parley_mail_total',
  help: 'Outgoing mails by outcome and kind',
  labelNames: ['outcome', 'kind'] as const,
  registers: [metricsRegistry],
});

/** What a running server reports at scrape time (see `addScrapeSource`). */
export interface ScrapeSource {
  /** Live event queues and how many have a consumer attached (a long-poll or a WebSocket). */
  eventQueues(): { queues: number; consumers: number };
  /** Per realm (by subdomain, '' = root): message and active user counts. */
  realms(): Array<{ subdomain: string; messages: number; users: number }>;
}

const sources = new Set<ScrapeSource>();

/**
 * Registers a running server's gauges; returns the function that unregisters them (on close).
 * Several in-process servers (tests) add up.
 */
export function addScrapeSource(source: ScrapeSource): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

new Gauge({
  name: 'parley_event_queues',
  help: 'Live event queues',
  registers: [metricsRegistry],
  collect() {
    let n = 0;
    for (const s of sources) n += s.eventQueues().queues;
    this.set(n);
  },
});

new Gauge({
  name: 'parley_event_queue_consumers',
  help: 'Event queues with a client attached: long-polls waiting in GET /events plus WebSocket subscriptions',
  registers: [metricsRegistry],
  collect() {
    let n = 0;
    for (const s of sources) n += s.eventQueues().consumers;
    this.set(n);
  },
});

function realmGauge(name: string, help: string, pick: (r: { messages: number; users: number }) => number): void {
  new Gauge({
    name,
    help,
    labelNames: ['realm'] as const,
    registers: [metricsRegistry],
    collect() {
      this.reset();
      for (const s of sources) for (const r of s.realms()) this.set({ realm: r.subdomain }, pick(r));
    },
  });
}
realmGauge('parley_realm_messages', 'Messages stored per realm (label realm = subdomain, empty for the root realm)', (r) => r.messages);
realmGauge('parley_realm_users', 'Active users (humans and bots) per realm', (r) => r.users);

let defaultsOn = false;

/** Adds prom-client's default process metrics (CPU, memory, event-loop lag, GC). Idempotent. */
export function enableDefaultMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: metricsRegistry });
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts one answered request and its latency. `route` is a path template (bounded set),
 * `seconds` the time from request head to answer. Unknown methods are counted as `OTHER` so a
 * client cannot grow the label set. Cost: two Map lookups and a few number updates.
 */
export function observeRequest(route: string, method: string, status: number, seconds: number): void {
  if (!KNOWN_METHODS.has(method)) method = 'OTHER';
  let byMethod = requestStats.get(route);
  if (byMethod === undefined) requestStats.set(route, (byMethod = new Map()));
  let stats = byMethod.get(method);
  if (stats === undefined) {
    stats = { buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0, statuses: new Map() };
    byMethod.set(method, stats);
  }
  let i = 0;
  while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
  stats.buckets[i]!++;
  stats.sum += seconds;
  stats.count++;
  stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
}

/** The Prometheus text exposition of every metric, and its content type. */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
