/**
 * Conformance runner: renders Zulip's Markdown test cases (`markdown_test_cases.json`, from
 * zerver/tests/fixtures) with the full message renderer and compares byte for byte.
 *
 *     npm run conformance -- <path to markdown_test_cases.json> [--verbose]
 *
 * Prints `passed/total` for `regular_tests` and `linkify_tests`; `--verbose` adds the failing
 * case names (with the first differing position). Exit code 0 when the file was read, 2 on bad
 * usage or an unreadable file (failures are a measurement here, not an error).
 *
 * Flags are treated as Zulip's `test_markdown_fixtures` does: `ignore` cases are skipped (not
 * counted), `translate_emoticons` cases render as a sender with that setting on (Othello), every
 * other case renders with the setting off; `backend_only_rendering` cases are ordinary backend
 * cases; `text_content` / `marked_expected_output` concern the web app's renderer and are unused.
 * Linkify cases expand their template with Zulip's `replaced()` helper.
 *
 * Realm data: Zulip renders the cases in its test realm `zulip` (the development cast, the same as
 * parley's demo realm), so {@link fixtureContext} provides those users, channels, the
 * `hamletcharacters` group and the test realm's one linkifier (`#1234` → trac), through the
 * `ZulipRenderContext` contract only. The realm URL is Zulip's test server's.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { emptyFindings, type LinkableStream, type MentionableGroup, type MentionableUser, type ZulipRenderContext } from './context.js';
import type { Renderer } from './render.js';
import { zulipRenderer } from './zulip-renderer.js';
import { DEMO_PUBLIC_STREAMS, DEMO_USERS } from '../domain/demo-cast.js';

/** One `regular_tests` entry. */
export interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  ignore?: boolean;
  translate_emoticons?: boolean;
  backend_only_rendering?: boolean;
  text_content?: string;
  marked_expected_output?: string;
}

/** The fixture file: regular cases and `[input, template, url]` linkify cases. */
export interface CaseFile {
  regular_tests: RegularCase[];
  linkify_tests: [input: string, template: string, url: string][];
}

/** A failed case: name (or linkify input), expected and actual HTML. */
export interface Failure {
  name: string;
  expected: string;
  actual: string;
}

/** Results of one run. */
export interface ConformanceReport {
  regular: { passed: number; total: number; skipped: number; failures: Failure[] };
  linkify: { passed: number; total: number; failures: Failure[] };
  unknownKeys: string[];
}

/** Zulip's test server realm URL (local links are made relative against it). */
export const TEST_REALM_URL = 'http://zulip.testserver';

const KNOWN_KEYS = new Set([
  'name', 'input', 'expected_output', 'backend_only_rendering', 'marked_expected_output', 'text_content',
  'translate_emoticons', 'ignore',
]);

/**
 * The `zulip` test realm as rendering sees it: the demo cast (ids in demo order, from 1), the
 * demo channels (Verona 1 … Rome 5, "core team" 6), group `hamletcharacters` (id 1), and the
 * linkifier `#(?P<id>[0-9]{2,8})` → `https://trac.example.com/ticket/{id}`; no realm emoji.
 * A fresh context (with empty findings) per call. `nowSeconds` (UNIX seconds) fills the fields a
 * `<time:…>` leaves out; the runner is a tool, so it defaults to the wall clock.
 */
export function fixtureContext(translateEmoticons: boolean, nowSeconds = Date.now() / 1000): ZulipRenderContext {
  return {
    userById: (id) => USERS.find((u) => u.id === id),
    usersByFullName: (name) => USERS.filter((u) => u.fullName.toLowerCase() === name.toLowerCase()),
    groupByName: (name) => GROUPS.find((g) => g.name === name),
    streamByName: (name) => STREAMS.find((s) => s.name.toLowerCase() === name.toLowerCase()),
    streamById: (id) => STREAMS.find((s) => s.id === id),
    linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]{2,8})', urlTemplate: 'https://trac.example.com/ticket/{id}' }],
    realmEmoji: () => undefined,
    // Zulip's test settings: CAMO_URI and CAMO_KEY (zproject/test_extra_settings.py).
    camo: { uri: 'https://external-content.zulipcdn.net/external_content/', key: 'dummy' },
    translateEmoticons,
    nowSeconds,
    out: emptyFindings(),
  };
}

const USERS: readonly MentionableUser[] = DEMO_USERS.map(([, fullName], i) => ({ id: i + 1, fullName }));
const STREAMS: readonly LinkableStream[] = [...DEMO_PUBLIC_STREAMS, 'core team'].map((name, i) => ({ id: i + 1, name }));
const GROUPS: readonly MentionableGroup[] = [{ id: 1, name: 'hamletcharacters' }];

/** Zulip's `replaced()` from test_markdown.py: the expected HTML of a linkify case. */
export function expectedLinkify(template: string, url: string): string {
  if (!template.includes('%s')) return template;
  const href = url.startsWith('http') ? url : url.includes('@') ? `mailto:${url}` : `http://${url}`;
  return template.replace('%s', `<a href="${href}">${url}</a>`);
}

/** Render every case with `renderer` and compare. */
export function runConformance(cases: CaseFile, renderer: Renderer = zulipRenderer): ConformanceReport {
  const report: ConformanceReport = {
    regular: { passed: 0, total: 0, skipped: 0, failures: [] },
    linkify: { passed: 0, total: 0, failures: [] },
    unknownKeys: [],
  };
  for (const c of cases.regular_tests) {
    for (const key of Object.keys(c)) if (!KNOWN_KEYS.has(key)) report.unknownKeys.push(`${c.name}.${key}`);
    if (c.ignore) {
      report.regular.skipped++;
      continue;
    }
    report.regular.total++;
    const actual = renderer.render(c.input, { realmUrl: TEST_REALM_URL, zulip: fixtureContext(c.translate_emoticons === true) });
    if (actual === c.expected_output) report.regular.passed++;
    else report.regular.failures.push({ name: c.name, expected: c.expected_output, actual });
  }
  for (const [input, template, url] of cases.linkify_tests) {
    report.linkify.total++;
    const expected = expectedLinkify(template, url);
    const actual = renderer.render(input, { realmUrl: TEST_REALM_URL, zulip: fixtureContext(false) });
    if (actual === expected) report.linkify.passed++;
    else report.linkify.failures.push({ name: input, expected, actual });
  }
  return report;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function describe(f: Failure): string {
  const at = firstDifference(f.expected, f.actual);
  const around = (s: string) => JSON.stringify(s.slice(Math.max(0, at - 20), at + 40));
  return `  ${f.name}\n      at ${at}: expected ${around(f.expected)}\n               actual   ${around(f.actual)}`;
}

const pct = (p: number, t: number) => (t === 0 ? '-' : `${((100 * p) / t).toFixed(1)}%`);

function main(argv: string[]): number {
  const { values, positionals } = parseArgs({ args: argv, options: { verbose: { type: 'boolean', short: 'v' } }, allowPositionals: true });
  const path = positionals[0];
  if (path === undefined || positionals.length > 1) {
    console.error('usage: npm run conformance -- <path to markdown_test_cases.json> [--verbose]');
    return 2;
  }
  let cases: CaseFile;
  try {
    cases = JSON.parse(readFileSync(path, 'utf8')) as CaseFile;
  } catch (e) {
    console.error(`cannot read ${path}: ${(e as Error).message}`);
    return 2;
  }
  const r = runConformance(cases);
  const skipped = r.regular.skipped ? ` (${r.regular.skipped} ignored)` : '';
  console.log(`regular_tests: ${r.regular.passed}/${r.regular.total} passed (${pct(r.regular.passed, r.regular.total)})${skipped}`);
  console.log(`linkify_tests: ${r.linkify.passed}/${r.linkify.total} passed (${pct(r.linkify.passed, r.linkify.total)})`);
  if (r.unknownKeys.length > 0) console.log(`unknown case keys (typos?): ${r.unknownKeys.join(', ')}`);
  if (values.verbose) {
    if (r.regular.failures.length > 0) console.log(`\nfailing regular_tests:\n${r.regular.failures.map(describe).join('\n')}`);
    if (r.linkify.failures.length > 0) console.log(`\nfailing linkify_tests:\n${r.linkify.failures.map(describe).join('\n')}`);
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main(process.argv.slice(2));
