/**
 * `npm run bench -- --compare A.json B.json`: a before/after table of two results files,
 * scenarios matched by name and phase: req/s, ×ceiling, p50, p99 of A and B and B's change in
 * percent. Printed, and written as HTML with plots next to B (`B.compare.html`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { compareHtml, type ComparedRow } from './html-report.js';
import { scenarioKey, type BenchResults } from './results.js';

/** Reads a results file; throws a readable error when it is not one. */
export function readResults(file: string): BenchResults {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not a readable JSON file (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || !Array.isArray((value as BenchResults).scenarios)) throw new Error(`${file}: not a bench results file (no "scenarios" list)`);
  return value as BenchResults;
}

/** Scenarios of A and B matched by `name (phase)`, in A's order then B's extra ones. */
export function matchScenarios(a: BenchResults, b: BenchResults): ComparedRow[] {
  const bByKey = new Map(b.scenarios.map((r) => [scenarioKey(r), r]));
  const rows: ComparedRow[] = a.scenarios.map((r) => ({ key: scenarioKey(r), a: r, b: bByKey.get(scenarioKey(r)) }));
  const aKeys = new Set(rows.map((r) => r.key));
  for (const r of b.scenarios) if (!aKeys.has(scenarioKey(r))) rows.push({ key: scenarioKey(r), a: undefined, b: r });
  return rows;
}

/** B relative to A in percent, signed (`+12.5%`), or `-` when either is missing. */
export function change(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || a === 0) return '-';
  const pct = ((b - a) / a) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

const f = (n: number | undefined, digits: number) => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));

/** The comparison as an aligned text table. */
export function compareText(rows: readonly ComparedRow[]): string {
  const header = ['scenario', 'req/s A', 'req/s B', 'Δ req/s', '×ceil A', '×ceil B', 'p50 A', 'p50 B', 'p99 A', 'p99 B', 'Δ p99'];
  const cells = rows.map(({ key, a, b }) => [
    key,
    f(a?.result.reqPerSec, 0),
    f(b?.result.reqPerSec, 0),
    change(a?.result.reqPerSec, b?.result.reqPerSec),
    f(a?.ratioToCeiling, 3),
    f(b?.ratioToCeiling, 3),
    f(a?.result.latencyMs.p50, 2),
    f(b?.result.latencyMs.p50, 2),
    f(a?.result.latencyMs.p99, 2),
    f(b?.result.latencyMs.p99, 2),
    change(a?.result.latencyMs.p99, b?.result.latencyMs.p99),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** Runs the comparison: prints the table, writes the HTML; returns the HTML file's path. */
export function runCompare(aFile: string, bFile: string, out: (line: string) => void = console.log): string {
  const a = readResults(aFile);
  const b = readResults(bFile);
  const rows = matchScenarios(a, b);
  const text = compareText(rows);
  const driverA = a.driver?.closedLoop ?? 'autocannon';
  const driverB = b.driver?.closedLoop ?? 'autocannon';
  const drivers = driverA === driverB ? '' : `\nNOTE: A was driven by ${driverA}, B by ${driverB}: the ceilings differ, compare the ×ceiling columns only`;
  out(`A: ${aFile} (${a.timestamp})\nB: ${bFile} (${b.timestamp})${drivers}\n${text}`);
  const html = bFile.replace(/\.json$/, '') + '.compare.html';
  writeFileSync(html, compareHtml(aFile, bFile, rows, text));
  out(`comparison: ${html}`);
  return html;
}
