/**
 * The HTML report of a results file (bench/results/<timestamp>.html) and of a comparison: one
 * self-contained page, SVG plots generated here (no scripts, no CDN): throughput per scenario,
 * latency percentiles per scenario (log scale), and latency over time (p50 and p99 per second)
 * for every scenario that has a timeline.
 */
import type { TimelinePoint } from './timeline.js';
import { scenarioKey, type BenchResults, type ScenarioReport } from './results.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948'];

/** Horizontal bars: one group per label, one bar per series; `log` for a log10 axis. */
export function barChart(title: string, labels: string[], series: Array<{ name: string; values: number[] }>, unit: string, log = false): string {
  const rowH = 14 * series.length + 10;
  const left = 190;
  const width = 760;
  const plotW = width - left - 80;
  const height = 40 + labels.length * rowH + 20;
  const all = series.flatMap((s) => s.values).filter((v) => Number.isFinite(v) && v > 0);
  const max = all.length === 0 ? 1 : Math.max(...all);
  const min = log ? Math.min(...all, max / 10) : 0;
  const scale = (v: number) => {
    if (!Number.isFinite(v) || v <= 0) return 0;
    if (!log) return (v / max) * plotW;
    const lo = Math.log10(min) - 0.1;
    return ((Math.log10(v) - lo) / (Math.log10(max) - lo)) * plotW;
  };
  let out = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${esc(title)}">`;
  out += `<text x="4" y="16" font-weight="bold">${esc(title)}${log ? ' (log scale)' : ''}</text>`;
  series.forEach((s, k) => {
    out += `<rect x="${left + k * 110}" y="24" width="10" height="10" fill="${COLORS[k % COLORS.length]}"/><text x="${left + k * 110 + 14}" y="33" font-size="11">${esc(s.name)}</text>`;
  });
  labels.forEach((label, i) => {
    const y0 = 44 + i * rowH;
    out += `<text x="${left - 6}" y="${y0 + rowH / 2}" font-size="11" text-anchor="end">${esc(label)}</text>`;
    series.forEach((s, k) => {
      const v = s.values[i] ?? NaN;
      const w = scale(v);
      const y = y0 + k * 14;
      out += `<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="12" fill="${COLORS[k % COLORS.length]}"/>`;
      out += `<text x="${left + w + 4}" y="${y + 10}" font-size="10">${Number.isFinite(v) ? `${num(v, v < 10 ? 2 : 0)} ${unit}` : '-'}</text>`;
    });
  });
  return out + '</svg>';
}

/** Lines of p50 and p99 latency per second. */
export function timelineChart(title: string, points: readonly TimelinePoint[]): string {
  const width = 370;
  const height = 170;
  const left = 44;
  const bottom = height - 24;
  const plotW = width - left - 10;
  const plotH = bottom - 30;
  const valid = points.filter((p) => p.n > 0);
  const maxY = Math.max(1e-3, ...valid.map((p) => p.p99));
  const maxT = Math.max(1, points.length);
  const x = (t: number) => left + (t / maxT) * plotW;
  const y = (v: number) => bottom - (v / maxY) * plotH;
  const line = (key: 'p50' | 'p99', color: string) =>
    valid.length === 0 ? '' : `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${valid.map((p) => `${x(p.t + 0.5).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ')}"/>`;
  let out = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${esc(title)}">`;
  out += `<text x="4" y="14" font-size="12" font-weight="bold">${esc(title)}</text>`;
  out += `<line x1="${left}" y1="${bottom}" x2="${left + plotW}" y2="${bottom}" stroke="#999"/><line x1="${left}" y1="30" x2="${left}" y2="${bottom}" stroke="#999"/>`;
  out += `<text x="${left - 4}" y="34" font-size="10" text-anchor="end">${num(maxY, maxY < 10 ? 1 : 0)} ms</text><text x="${left - 4}" y="${bottom}" font-size="10" text-anchor="end">0</text>`;
  out += `<text x="${left + plotW}" y="${height - 8}" font-size="10" text-anchor="end">${maxT} s</text>`;
  out += line('p50', COLORS[0]!) + line('p99', COLORS[2]!);
  out += `<text x="${left + 8}" y="${height - 8}" font-size="10" fill="${COLORS[0]}">p50</text><text x="${left + 40}" y="${height - 8}" font-size="10" fill="${COLORS[2]}">p99</text>`;
  return out + '</svg>';
}

function table(header: string[], rows: string[][]): string {
  return `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;font-size:13px;margin:1em 0}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}th:first-child,td:first-child{text-align:left}
svg{font-family:system-ui,sans-serif;margin:0.5em 0.5em 0 0}.miss{color:#b00}.note{color:#555;font-size:13px}
</style></head><body><h1>${esc(title)}</h1>${body}</body></html>\n`;
}

const rowOf = (r: ScenarioReport) => [
  scenarioKey(r),
  (r.result.mode?.kind === 'open' ? `open ${r.result.mode.rate}/s` : `closed ${r.connections}`) + (r.driver !== undefined && r.driver !== 'open-loop' ? `, ${r.driver}` : ''),
  num(r.result.reqPerSec, 0),
  num(r.ratioToCeiling, 3),
  num(r.result.latencyMs.p50, 2),
  num(r.result.latencyMs.p99, 2),
  num(r.result.latencyMs.max, 1),
  String(r.result.ok2xx),
  String(r.result.non2xx + r.result.errors + r.result.timeouts),
  r.memory === undefined ? '-' : num(r.memory.rssMiB, 1),
  r.serverCpu === undefined ? '-' : num(100 * r.serverCpu.mainThreadBusy, 0),
  r.serverCpu === undefined ? '-' : num(r.serverCpu.mainUsPerRequest, 1),
  r.targets.map((x) => `${x.met ? 'OK' : 'MISS'} ${x.description}`).join('; '),
];

/** The report page of one results file. */
export function resultsHtml(results: BenchResults): string {
  const s = results.scenarios;
  const labels = s.map(scenarioKey);
  const m = results.machine;
  let body = `<p class="note">${esc(results.timestamp)} — ${esc(results.target?.url ?? '')}${results.target?.external ? ' (external target)' : ' (parley started by the harness)'} — ${m?.cpus ?? '?'} CPUs ${esc(m?.cpuModel ?? '')}, Node ${esc(m?.node ?? '')}${m?.loadAverage ? `, load average at start ${m.loadAverage.map((x) => x.toFixed(1)).join(' ')}` : ''}. Client and server share the machine: compare ratios to the ceiling of the same run.</p>`;
  body += table(['scenario', 'mode', 'req/s', '×ceiling', 'p50 ms', 'p99 ms', 'max ms', '2xx', 'bad', 'RSS MiB', 'main thread %', 'main µs/req', 'targets'], s.map(rowOf));
  body += barChart('Throughput', labels, [{ name: 'req/s', values: s.map((r) => r.result.reqPerSec) }], 'req/s');
  body += barChart(
    'Latency percentiles',
    labels,
    (['p50', 'p90', 'p99', 'max'] as const).map((p) => ({ name: p, values: s.map((r) => r.result.latencyMs[p]) })),
    'ms',
    true,
  );
  body += '<h2>Latency over time</h2><div>';
  for (const r of s) if (r.result.timeline && r.result.timeline.length > 0) body += timelineChart(scenarioKey(r), r.result.timeline);
  body += '</div>';
  return page('parley bench', body);
}

/** One compared scenario: figures of A and B (undefined when the scenario is missing in one). */
export interface ComparedRow {
  key: string;
  a: ScenarioReport | undefined;
  b: ScenarioReport | undefined;
}

/** The comparison page (`--compare A.json B.json`). */
export function compareHtml(aName: string, bName: string, rows: readonly ComparedRow[], text: string): string {
  const labels = rows.map((r) => r.key);
  let body = `<p class="note">A = ${esc(aName)}<br>B = ${esc(bName)}</p><pre>${esc(text)}</pre>`;
  body += barChart('Throughput, A vs B', labels, [
    { name: 'A req/s', values: rows.map((r) => r.a?.result.reqPerSec ?? NaN) },
    { name: 'B req/s', values: rows.map((r) => r.b?.result.reqPerSec ?? NaN) },
  ], 'req/s');
  body += barChart('p99 latency, A vs B', labels, [
    { name: 'A p99', values: rows.map((r) => r.a?.result.latencyMs.p99 ?? NaN) },
    { name: 'B p99', values: rows.map((r) => r.b?.result.latencyMs.p99 ?? NaN) },
  ], 'ms', true);
  return page('parley bench: comparison', body);
}
