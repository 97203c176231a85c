/**
 * Markdown rendering benchmark: renders/s of typical chat messages through the full message
 * renderer (`zulipRenderer`, every Zulip plugin, a realm context with users, channels and a
 * linkifier — what `renderMessageContent` does per send, minus the flag computation).
 *
 *     node --import=tsx bench/render.ts [--seconds S] [--max N]     (standalone)
 *     npm run bench -- --only render                                (inside the load bench)
 *
 * For each message kind, and for a realistic mix, the loop renders for at most `seconds`
 * (default 1) and at most `max` renders (default 200,000) after a bounded warm-up, so the run
 * always ends. Reports renders/s and mean µs per render; nothing is asserted.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { zulipRenderer } from '../src/markdown/zulip-renderer.js';
import { fixtureContext, TEST_REALM_URL } from '../src/markdown/conformance.js';

/** Message kinds (the mix weights roughly follow a busy Zulip organization's traffic). */
export const MESSAGE_KINDS: ReadonlyArray<{ name: string; weight: number; content: string }> = [
  { name: 'short text', weight: 40, content: 'sounds good, thanks!' },
  { name: 'sentence', weight: 20, content: 'I pushed the fix for the login redirect, can someone review it before the release tomorrow?' },
  { name: 'inline markup', weight: 10, content: 'The **new** `render()` path is *much* faster, see https://example.com/docs/render?x=1 for details.' },
  { name: 'mention + emoji', weight: 10, content: '@**King Hamlet** can you check #**Denmark>castle** :thumbs_up: 🎉' },
  { name: 'linkifier', weight: 5, content: 'This is tracked in #4321 and #4322; closing #1234 as a duplicate.' },
  { name: 'multi-line', weight: 5, content: 'Plan:\n* write the parser\n* add tests\n  * edge cases\n* ship it\n\n> quoted context from earlier\n\nDone.' },
  { name: 'code block', weight: 5, content: 'Try this:\n```python\ndef f(x):\n    return x * 2\n```\nand tell me.' },
  { name: 'long paragraph', weight: 4, content: 'Lorem ipsum dolor sit amet, consectetur **adipiscing** elit. '.repeat(30).trim() },
  { name: 'math', weight: 1, content: 'The area is $$\\pi r^2$$ as usual.' },
];

/** One kind's figures. */
export interface RenderBenchRow {
  name: string;
  renders: number;
  seconds: number;
  rendersPerSec: number;
  microsPerRender: number;
}

/** The whole run. */
export interface RenderBenchReport {
  rows: RenderBenchRow[];
  mix: RenderBenchRow;
}

function measure(name: string, contents: readonly string[], seconds: number, max: number): RenderBenchRow {
  const render = (i: number) =>
    zulipRenderer.render(contents[i % contents.length]!, { realmUrl: TEST_REALM_URL, zulip: fixtureContext(false) });
  for (let i = 0; i < Math.min(2000, max); i++) render(i); // bounded warm-up (JIT, lazy tables)
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let renders = 0;
  // Check the clock every 64 renders; stop at the time or count limit, whichever comes first.
  while (renders < max) {
    render(renders++);
    if ((renders & 63) === 0 && performance.now() >= deadline) break;
  }
  const elapsed = (performance.now() - started) / 1000;
  return { name, renders, seconds: elapsed, rendersPerSec: renders / elapsed, microsPerRender: (elapsed * 1e6) / renders };
}

/** Runs every kind, then the weighted mix. */
export function runRenderBench(options: { seconds?: number; max?: number } = {}): RenderBenchReport {
  const seconds = options.seconds ?? 1;
  const max = options.max ?? 200_000;
  const rows = MESSAGE_KINDS.map((k) => measure(k.name, [k.content], seconds, max));
  const mixContents = MESSAGE_KINDS.flatMap((k) => Array.from({ length: k.weight }, () => k.content));
  // Interleave so consecutive renders differ (a deterministic shuffle).
  const shuffled = mixContents.map((c, i) => [((i * 7919) % 101) + i / 1000, c] as const).sort((a, b) => a[0] - b[0]).map(([, c]) => c);
  return { rows, mix: measure('mix (weighted)', shuffled, seconds * 2, max * 2) };
}

/** A plain-text table of a report. */
export function formatRenderBench(report: RenderBenchReport): string {
  const lines = ['message kind        renders/s   µs/render'];
  for (const r of [...report.rows, report.mix]) {
    lines.push(`${r.name.padEnd(18)} ${Math.round(r.rendersPerSec).toString().padStart(10)} ${r.microsPerRender.toFixed(1).padStart(11)}`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { seconds: { type: 'string' }, max: { type: 'string' } } });
  const seconds = values.seconds !== undefined ? Number(values.seconds) : undefined;
  const max = values.max !== undefined ? Number(values.max) : undefined;
  if ((seconds !== undefined && !(seconds > 0 && seconds <= 60)) || (max !== undefined && !(Number.isInteger(max) && max > 0))) {
    console.error('usage: node --import=tsx bench/render.ts [--seconds S (0-60]] [--max N]');
    process.exit(2);
  }
  console.log(formatRenderBench(runRenderBench({ ...(seconds !== undefined && { seconds }), ...(max !== undefined && { max }) })));
}
