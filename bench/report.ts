/** Plain-text table of benchmark results (no colours, fits a terminal and a log file). */

/** One table row. */
export interface Row {
  scenario: string;
  /** Load generator: autocannon, wrk, open-loop, fanout (`-` in older results). */
  driver: string;
  request: string;
  reqPerSec: number;
  /** req/s divided by the ceiling's req/s. */
  ratio: number;
  p50: number;
  p99: number;
  max: number;
  ok2xx: number;
  /** non-2xx + connection errors + timeouts. */
  bad: number;
  /** Server VmRSS, MiB. */
  rss: number | undefined;
  /** Server RssAnon (heap and native allocations, without mapped files), MiB. */
  anon: number | undefined;
  /** Server main thread's CPU over wall time during the run, 0–1 (undefined against `--target`). */
  mainBusy: number | undefined;
  /** Server main-thread CPU per request, µs. */
  mainUs: number | undefined;
  targets: string;
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** Table width of the request column; the JSON results keep the full request. */
const REQUEST_WIDTH = 48;
const shortRequest = (request: string) => (request.length <= REQUEST_WIDTH ? request : `${request.slice(0, REQUEST_WIDTH - 1)}…`);

/** Formats `rows` as an aligned table with a header line. */
export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'driver', 'request', 'req/s', '×ceiling', 'p50 ms', 'p99 ms', 'max ms', '2xx', 'bad', 'RSS MiB', 'anon MiB', 'main %', 'main µs', 'targets'];
  const cells = rows.map((r) => [
    r.scenario,
    r.driver,
    shortRequest(r.request),
    fixed(r.reqPerSec, 0),
    fixed(r.ratio, 3),
    fixed(r.p50, 2),
    fixed(r.p99, 2),
    fixed(r.max, 1),
    String(r.ok2xx),
    r.bad > 0 ? `${r.bad} !!` : '0',
    r.rss === undefined ? '-' : fixed(r.rss, 1),
    r.anon === undefined ? '-' : fixed(r.anon, 1),
    r.mainBusy === undefined ? '-' : fixed(100 * r.mainBusy, 0),
    r.mainUs === undefined ? '-' : fixed(r.mainUs, 1),
    r.targets,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const numeric = new Set([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  const line = (c: string[]) =>
    c.map((v, i) => (i === c.length - 1 ? v : numeric.has(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}
