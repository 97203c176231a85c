/**
 * Adversarial rendering benchmark: how long one render of a hostile message takes, per pattern
 * and input size, through the full message renderer (`zulipRenderer` with the test realm's
 * users, channels, group and linkifier — what `POST /messages/render` runs, minus the length
 * bound, so the renderer itself is measured past max_message_length).
 *
 *     node --import=tsx bench/render-adversarial.ts [--sizes 10,100] [--only name,...] [--no-actor]  (standalone)
 *     npm run bench -- --only render-adversarial                                           (inside the load bench)
 *
 * Each pattern is repeated up to the size (KB = 1,000 UTF-16 code units) and rendered a few
 * times (at most `repeats`, at most ~1 s per cell); the table prints, per size, the best CPU
 * time of one render (process.cpuUsage: steadier than wall time on a shared machine), ms per KB,
 * and the renderer's work counter per input character (render-budget.ts; deterministic).
 * Linear rendering shows flat ms/KB and work/char columns. Standalone runs add `actor-ms`: the
 * longest slice left on the actor's thread when the render runs on the worker pool, as large sends do. A size is skipped ("skip") when the
 * previous size already took more than `skipAboveMs`: a quadratic pattern would otherwise run
 * for minutes, and the skip itself is the finding. Nothing is asserted.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readdirSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

type Renderer = typeof import('../src/markdown/zulip-renderer.js');
type Conformance = typeof import('../src/markdown/conformance.js');
type Offload = typeof import('../src/realm/render-offload.js');
type Pool = typeof import('../src/realm/render-pool.js');

/**
 * The renderer measured: the built JavaScript the server runs (`dist/`, made by `npm run build`,
 * which `npm run bench` runs first) when it is newer than every file of src/markdown, else the
 * source through tsx, whose keepNames wrappers (`__name` on every nested function) made these
 * inputs up to 2× slower than what the server really spends.
 */
async function loadRenderer(): Promise<{ renderer: Renderer; conformance: Conformance; offload: Offload; pool: Pool; measured: string }> {
  const dist = new URL('../dist/markdown/', import.meta.url);
  const newestSource = (dir: string): number =>
    Math.max(...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newestSource(`${dir}/${e.name}`) : statSync(`${dir}/${e.name}`).mtimeMs)));
  let builtAt = 0;
  try {
    builtAt = statSync(fileURLToPath(new URL('zulip-renderer.js', dist))).mtimeMs;
  } catch {
    // not built
  }
  if (builtAt > newestSource(fileURLToPath(new URL('../src/markdown', import.meta.url)))) {
    return {
      renderer: (await import(new URL('zulip-renderer.js', dist).href)) as Renderer,
      conformance: (await import(new URL('conformance.js', dist).href)) as Conformance,
      offload: (await import(new URL('../realm/render-offload.js', dist).href)) as Offload,
      pool: (await import(new URL('../realm/render-pool.js', dist).href)) as Pool,
      measured: 'dist/ (built)',
    };
  }
  return {
    renderer: await import('../src/markdown/zulip-renderer.js'),
    conformance: await import('../src/markdown/conformance.js'),
    offload: await import('../src/realm/render-offload.js'),
    pool: await import('../src/realm/render-pool.js'),
    measured: 'src/ through tsx (run `npm run build` to measure the built code)',
  };
}

const loaded = await loadRenderer();
const { zulipRenderer } = loaded.renderer;
const { fixtureContext, TEST_REALM_URL } = loaded.conformance;
/** Which code the figures are of. */
export const MEASURED_RENDERER = loaded.measured;

/** One hostile input family: `unit` repeated (or `build(size)` for structured inputs). */
export interface AdversarialPattern {
  name: string;
  /** Builds an input of about `chars` UTF-16 code units. */
  build(chars: number): string;
}

const repeat = (unit: string) => (chars: number) => unit.repeat(Math.max(1, Math.floor(chars / unit.length)));

/** Backtick runs of growing length separated by text: `` ` a `` a ``` a ... ``. */
function growingBackticks(chars: number): string {
  const parts: string[] = [];
  let total = 0;
  for (let n = 1; total < chars; n++) {
    const part = '`'.repeat(n) + 'a';
    parts.push(part);
    total += part.length;
  }
  return parts.join('');
}

/** A list nested one level deeper per line (2 spaces per level, Zulip's nesting). */
function nestedList(chars: number): string {
  const lines: string[] = [];
  let total = 0;
  for (let depth = 0; total < chars; depth++) {
    const line = ' '.repeat(2 * depth) + '* a';
    lines.push(line);
    total += line.length + 1;
  }
  return lines.join('\n');
}

/** One line of `> ` markers: a quote nested as deep as the input is long. */
const nestedQuotes = (chars: number) => '> '.repeat(Math.floor(chars / 2)) + 'a';

/** The hostile inputs (issue 12), one row each. */
export const ADVERSARIAL_PATTERNS: readonly AdversarialPattern[] = [
  { name: "'*a' × N", build: repeat('*a') },
  { name: "'**a' × N", build: repeat('**a') },
  { name: "'***a' × N", build: repeat('***a') },
  { name: "'_a' × N", build: repeat('_a') },
  { name: "'~~a' × N", build: repeat('~~a') },
  { name: "'[a' × N", build: repeat('[a') },
  { name: "'[a](' × N", build: repeat('[a](') },
  { name: "'[a](b) ' × N", build: repeat('[a](b) ') },
  { name: "'[a](b \"' × N", build: repeat('[a](b "') },
  { name: "'](' × N", build: repeat('](') },
  { name: "'`a' × N", build: repeat('`a') },
  { name: 'growing ` runs', build: growingBackticks },
  { name: "'\\\\`' × N", build: repeat('\\\\`') },
  { name: "'> ' × N (1 line)", build: nestedQuotes },
  { name: "'>\\n' × N", build: repeat('> a\n') },
  { name: 'nested list', build: nestedList },
  { name: "'* a\\n' × N", build: repeat('* a\n') },
  { name: "'a\\n* a\\n' × N", build: repeat('a\n* a\n') },
  { name: "'@**a** ' × N", build: repeat('@**a** ') },
  { name: "'@**King Hamlet** ' × N", build: repeat('@**King Hamlet** ') },
  { name: "'@*a* ' × N", build: repeat('@*a* ') },
  { name: "'#**Verona>t** ' × N", build: repeat('#**Verona>t** ') },
  { name: "'**a** @**King Hamlet** '", build: repeat('**a** @**King Hamlet** ') },
  { name: "':smile: ' × N", build: repeat(':smile: ') },
  { name: "':a' × N", build: repeat(':a') },
  { name: "'#1234 ' × N (linkifier)", build: repeat('#1234 ') },
  { name: "'#1234' × N (no space)", build: repeat('#1234') },
  { name: "'http://a.co ' × N", build: repeat('http://a.co ') },
  { name: "'a.co/(' × N", build: repeat('a.co/(') },
  { name: "'~~~\\n' × N (fences)", build: repeat('~~~\n') },
  { name: "'```quote\\n' × N", build: repeat('```quote\n') },
  { name: "'```spoiler a\\n' × N", build: repeat('```spoiler a\n') },
  { name: "'$$a$$ ' × N", build: repeat('$$a$$ ') },
  { name: "'$$' × N", build: repeat('$$') },
  { name: "':) ' × N (emoticons)", build: repeat(':) ') },
  { name: "'<time:' × N", build: repeat('<time:') },
  { name: "'<time:1> ' × N", build: repeat('<time:1> ') },
  { name: "'&amp;' × N", build: repeat('&amp;') },
  { name: "'| a ' × N (table row)", build: (n) => '| a |\n|---|\n' + repeat('| a ')(n) },
  { name: "'# a\\n' × N", build: repeat('# a\n') },
  { name: 'plain prose', build: repeat('Lorem ipsum dolor sit amet, consectetur adipiscing elit. ') },
];

/** One measured cell. */
export interface AdversarialCell {
  kb: number;
  /** Best of the repeats, ms; null when skipped. */
  ms: number | null;
  msPerKb: number | null;
  /** Rendered HTML length, characters. */
  outputChars: number | null;
  /** The render's work counter divided by the input length (null: skipped, or no counter). */
  workPerChar: number | null;
  /**
   * With the render on a worker thread (realm/render-offload.ts, as sends of at least
   * `OFFLOAD_MIN_CHARS` do): the longest synchronous slice on the calling (actor's) thread, ms, best
   * of the repeats; absent when not measured (see {@link measureActorBlocking}).
   */
  actorMs?: number | null;
}

/** One pattern's row. */
export interface AdversarialRow {
  name: string;
  cells: AdversarialCell[];
}

function renderOnce(input: string): { ms: number; out: number; work: number } {
  const work = { used: 0, limit: Infinity };
  const started = process.cpuUsage();
  const html = zulipRenderer.render(input, { realmUrl: TEST_REALM_URL, zulip: fixtureContext(true), work });
  const cpu = process.cpuUsage(started);
  return { ms: (cpu.user + cpu.system) / 1000, out: html.length, work: work.used };
}

/** Runs every pattern (or those named in `only`) at each size in KB. */
export function runAdversarialBench(
  options: { sizesKb?: readonly number[]; only?: ReadonlySet<string>; repeats?: number; skipAboveMs?: number } = {},
): AdversarialRow[] {
  const sizes = options.sizesKb ?? [10, 100];
  const repeats = options.repeats ?? 5;
  const skipAboveMs = options.skipAboveMs ?? 2000;
  for (let i = 0; i < 200; i++) renderOnce('warm *up* **x** `y` [a](b) @**King Hamlet** :smile:');
  const rows: AdversarialRow[] = [];
  for (const pattern of ADVERSARIAL_PATTERNS) {
    if (options.only && !options.only.has(pattern.name)) continue;
    const cells: AdversarialCell[] = [];
    let previousMs = 0;
    for (const kb of sizes) {
      if (previousMs > skipAboveMs) {
        cells.push({ kb, ms: null, msPerKb: null, outputChars: null, workPerChar: null });
        continue;
      }
      const input = pattern.build(kb * 1000);
      let best = Infinity;
      let out = 0;
      let work = 0;
      const deadline = performance.now() + 1000;
      for (let r = 0; r < repeats; r++) {
        const once = renderOnce(input);
        best = Math.min(best, once.ms);
        out = once.out;
        work = once.work;
        if (performance.now() > deadline) break;
      }
      previousMs = best;
      const workPerChar = work > 0 ? work / input.length : null;
      cells.push({ kb, ms: best, msPerKb: best / (input.length / 1000), outputChars: out, workPerChar });
    }
    rows.push({ name: pattern.name, cells });
  }
  return rows;
}

/**
 * Fills `actorMs` of every measured cell: each input rendered through the worker pool as a large
 * send is (`renderOffThread`, then `verifyOffThreadRender` as `decide` does), measuring the time
 * this thread's event loop was busy meanwhile (`performance.eventLoopUtilization().active`: the
 * pre-scan, the snapshot, posting the task, receiving the result, the verification). That total
 * bounds the longest synchronous slice from above, and, unlike a timer-lateness probe, does not
 * count the time the OS gave the core to another process. In-thread, the whole render (the
 * `cpu-ms` column) is one slice.
 */
export async function measureActorBlocking(rows: AdversarialRow[], options: { repeats?: number } = {}): Promise<void> {
  const { renderOffThread, verifyOffThreadRender } = loaded.offload;
  const pool = new loaded.pool.WorkerRenderPool({ maxThreads: 1, timeoutMs: 60_000 });
  const source = () => ({ context: fixtureContext(true, 1_700_000_000), realmUrl: TEST_REALM_URL });
  const once = async (input: string): Promise<number> => {
    const busy = performance.eventLoopUtilization();
    const render = await renderOffThread(source, input, pool);
    const verified = render !== undefined && verifyOffThreadRender(render, source().context, TEST_REALM_URL);
    // Not usable: `decide` renders in-thread, on the actor's thread.
    if (!verified) zulipRenderer.render(input, { realmUrl: TEST_REALM_URL, zulip: source().context, work: { used: 0, limit: Infinity } });
    return performance.eventLoopUtilization(busy).active;
  };
  try {
    for (let i = 0; i < 20; i++) await once('warm *up* @**King Hamlet** :smile: '.repeat(100));
    for (const row of rows) {
      const pattern = ADVERSARIAL_PATTERNS.find((p) => p.name === row.name)!;
      for (const cell of row.cells) {
        if (cell.ms === null) continue;
        const input = pattern.build(cell.kb * 1000);
        let best = Infinity;
        for (let r = 0; r < (options.repeats ?? 5); r++) best = Math.min(best, await once(input));
        cell.actorMs = best;
      }
    }
  } finally {
    await pool.close();
  }
}

/** A plain-text table: one row per pattern, `ms  ms/KB` per size (and `actor-ms` when measured). */
export function formatAdversarialBench(rows: readonly AdversarialRow[]): string {
  const sizes = rows[0]?.cells.map((c) => c.kb) ?? [];
  const actor = rows.some((r) => r.cells.some((c) => c.actorMs !== undefined));
  const width = actor ? 43 : 34;
  const header = [
    `(renderer: ${MEASURED_RENDERER})\n` + 'pattern'.padEnd(28),
    ...sizes.map((kb) => `${kb} KB: cpu-ms  ms/KB work/char${actor ? ' actor-ms' : ''}`.padStart(width)),
  ].join('');
  const lines = [header];
  if (actor) lines.unshift('(cpu-ms: one render in-thread, all of it blocking the actor; actor-ms: time the actor\'s thread is busy, all slices together, when a worker renders it)');
  for (const row of rows) {
    const cells = row.cells.map((c) =>
      c.ms === null
        ? 'skip'.padStart(width)
        : `${c.ms.toFixed(1).padStart(16)} ${c.msPerKb!.toFixed(3).padStart(6)} ${(c.workPerChar === null ? '-' : c.workPerChar.toFixed(0)).padStart(9)}` +
          (actor ? (c.actorMs == null ? '-' : c.actorMs.toFixed(2)).padStart(9) : ''),
    );
    lines.push(row.name.padEnd(28) + cells.join(''));
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { sizes: { type: 'string' }, only: { type: 'string' }, 'skip-above-ms': { type: 'string' }, 'no-actor': { type: 'boolean' } } });
  const sizesKb = (values.sizes ?? '10,100').split(',').map(Number);
  if (!sizesKb.every((n) => Number.isFinite(n) && n > 0 && n <= 10_000)) {
    console.error('usage: node --import=tsx bench/render-adversarial.ts [--sizes 10,100] [--only "name|name"] [--skip-above-ms MS] [--no-actor]');
    process.exit(2);
  }
  const only = values.only !== undefined ? new Set(values.only.split('|')) : undefined;
  const skipAboveMs = values['skip-above-ms'] !== undefined ? Number(values['skip-above-ms']) : undefined;
  const rows = runAdversarialBench({ sizesKb, ...(only && { only }), ...(skipAboveMs !== undefined && { skipAboveMs }) });
  if (values['no-actor'] !== true) await measureActorBlocking(rows);
  console.log(formatAdversarialBench(rows));
}
