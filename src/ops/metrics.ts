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
 * Per request the cost is one Map lookup and two prom-client child updates (no label hashing:
 * children are cached per route/method/status).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';

/** The process-wide registry that `GET /metrics` serializes. */
export const metricsRegistry = new Registry();

const httpRequests = new Counter({
  name: 'parley_http_requests_total',
  help: 'HTTP requests answered, by route template, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [metricsRegistry],
});

const httpDuration = new Histogram({
  name: 'parley_http_request_duration_seconds',
  help: 'Time from request head to the answer being written, by route template and method',
  labelNames: ['route', 'method'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
  registers: [metricsRegistry],
});

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

interface RequestChildren {
  count: { inc(): void };
  duration: { observe(value: number): void };
}

/** route → method → status → cached prom-client children. */
const children = new Map<string, Map<string, Map<number, RequestChildren>>>();

/**
 * Counts one answered request and its latency. `route` is a path template (bounded set),
 * `seconds` the time from request head to answer. Unknown methods are counted as `OTHER` so a
 * client cannot grow the label set.
 */
export function observeRequest(route: string, method: string, status: number, seconds: number): void {
  if (!KNOWN_METHODS.has(method)) method = 'OTHER';
  let byMethod = children.get(route);
  if (byMethod === undefined) children.set(route, (byMethod = new Map()));
  let byStatus = byMethod.get(method);
  if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
  let child = byStatus.get(status);
  if (child === undefined) {
    const labels: LabelValues<'route' | 'method' | 'status'> = { route, method, status: String(status) };
    child = { count: httpRequests.labels(labels), duration: httpDuration.labels({ route, method }) };
    byStatus.set(status, child);
  }
  child.count.inc();
  child.duration.observe(seconds);
}

/** The Prometheus text exposition of every metric, and its content type. */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
