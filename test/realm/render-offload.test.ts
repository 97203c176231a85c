/**
 * Rendering on a worker thread (realm/render-offload.ts, issue 12): through the real piscina pool,
 * the worker's HTML and findings equal an in-thread render of the same content and context, for
 * Zulip's Markdown cases and every adversarial pattern at max_message_length; a changed lookup
 * answer, a render that reads the clock and a failing pool each lead back to the in-thread render.
 */
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zulipRenderer } from '../../src/markdown/zulip-renderer.js';
import { fixtureContext, TEST_REALM_URL, type CaseFile } from '../../src/markdown/conformance.js';
import { MarkdownRenderingError, messageRenderWork } from '../../src/markdown/render-budget.js';
import type { ZulipRenderContext } from '../../src/markdown/context.js';
import { renderOffThread, verifyOffThreadRender, type OffThreadRender } from '../../src/realm/render-offload.js';
import { WorkerRenderPool } from '../../src/realm/render-pool.js';
import { ADVERSARIAL_PATTERNS } from '../../bench/render-adversarial.js';

/** A fixed clock: both renders must see the same "now". */
const NOW = 1_700_000_000;
const context = (emoticons: boolean) => fixtureContext(emoticons, NOW);

type Outcome = { kind: 'rendered'; html: string; users: number[]; groups: number[]; wildcards: [boolean, boolean] } | { kind: 'over_budget' };

function inThread(content: string, emoticons: boolean): Outcome {
  const zulip = context(emoticons);
  try {
    const html = zulipRenderer.render(content, { zulip, realmUrl: TEST_REALM_URL, work: messageRenderWork(content.length) });
    const f = zulip.out;
    return { kind: 'rendered', html, users: [...f.mentionedUserIds], groups: [...f.mentionedGroupIds], wildcards: [f.streamWildcard, f.topicWildcard] };
  } catch (err) {
    if (err instanceof MarkdownRenderingError) return { kind: 'over_budget' };
    throw err;
  }
}

function outcomeOf(render: OffThreadRender, verifyWith: ZulipRenderContext): Outcome | null {
  const v = verifyOffThreadRender(render, verifyWith, TEST_REALM_URL);
  if (v === null || v.kind === 'over_budget') return v;
  const f = v.findings;
  return { kind: 'rendered', html: v.html, users: [...f.mentionedUserIds], groups: [...f.mentionedGroupIds], wildcards: [f.streamWildcard, f.topicWildcard] };
}

const pool = new WorkerRenderPool({ maxThreads: 1, timeoutMs: 60_000 });
t.teardown(() => pool.close());

const CASES_PATH = process.env['ZULIP_MARKDOWN_CASES'] ??
  fileURLToPath(new URL('../../../shared/reference/markdown_test_cases.json', import.meta.url));

/** Contents with every kind of lookup, and their expected flags. */
const HANDMADE: string[] = [
  '@**King Hamlet** and @_**Iago** and @**all**, @**topic**, @*hamletcharacters* #**Verona** #**Verona>old topic** :smile: :) #1234 <time:2024-01-01T10:00:00Z>',
  '@**King Hamlet|999** @**Nobody here** @*nogroup* #**Nowhere** :no_such_emoji:',
  '> @**King Hamlet** quoted\n\n```quote\n@**Iago**\n```\n' + '* item with @**Othello, the Moor of Venice**\n'.repeat(200),
];

t.test('the worker renders exactly as in-thread: Zulip\'s cases, handmade, adversarial 10 KB', async (t) => {
  const inputs: Array<{ name: string; content: string; emoticons: boolean }> = [];
  if (existsSync(CASES_PATH)) {
    const cases = JSON.parse(readFileSync(CASES_PATH, 'utf8')) as CaseFile;
    for (const c of cases.regular_tests) inputs.push({ name: c.name, content: c.input, emoticons: c.translate_emoticons === true });
    for (const [input] of cases.linkify_tests) inputs.push({ name: `linkify ${input}`, content: input, emoticons: false });
  } else {
    t.comment(`no ${CASES_PATH}: Zulip's cases skipped`);
  }
  HANDMADE.forEach((content, i) => inputs.push({ name: `handmade ${i}`, content, emoticons: true }));
  for (const p of ADVERSARIAL_PATTERNS) inputs.push({ name: p.name, content: p.build(10_000), emoticons: true });
  inputs.push({ name: 'over budget', content: ('[ ' + '[a](b) '.repeat(2000)).slice(0, 10_000), emoticons: false });

  let compared = 0;
  const mismatches: string[] = [];
  for (const input of inputs) {
    const expected = inThread(input.content, input.emoticons);
    const render = await renderOffThread(() => ({ context: context(input.emoticons), realmUrl: TEST_REALM_URL }), input.content, pool);
    if (render === undefined) {
      mismatches.push(`${input.name}: no off-thread render`);
      continue;
    }
    const actual = outcomeOf(render, context(input.emoticons));
    compared++;
    if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push(`${input.name}: ${JSON.stringify(actual)?.slice(0, 200)} ≠ ${JSON.stringify(expected).slice(0, 200)}`);
  }
  t.same(mismatches, [], `${compared} contents compared`);
  t.ok(compared >= ADVERSARIAL_PATTERNS.length + HANDMADE.length, 'the off-thread path was taken');
  const budget = await renderOffThread(() => ({ context: context(false), realmUrl: TEST_REALM_URL }), inputs.at(-1)!.content, pool);
  t.equal(budget?.result.kind, 'over_budget', 'the work budget stops a worker render as it stops an in-thread one');
});

t.test('a lookup answering differently at verification rejects the worker\'s render', async (t) => {
  const content = '@**King Hamlet** ' + 'filler '.repeat(400);
  const render = await renderOffThread(() => ({ context: context(false), realmUrl: TEST_REALM_URL }), content, pool);
  t.ok(render, 'rendered off the thread');
  t.ok(outcomeOf(render!, context(false)), 'same context: accepted');
  const renamed = { ...context(false), usersByFullName: () => [] };
  t.equal(outcomeOf(render!, renamed), null, 'the mentioned user renamed: rejected');
  t.equal(outcomeOf(render!, context(true)), null, 'a data field changed (translate_emoticons): rejected');
  t.equal(verifyOffThreadRender(render!, context(false), 'http://other.example'), null, 'another realm URL: rejected');
  const lookups = render!.checks.map((c) => c.call.method);
  t.ok(lookups.includes('usersByFullName'), `the render's lookups were recorded (${lookups.join(', ')})`);
});

t.test('a render that read the clock is used on the same UTC day only', async (t) => {
  const at = (nowSeconds: number) => fixtureContext(false, nowSeconds);
  const content = 'meet <time:10:00> ' + 'filler '.repeat(400);
  const render = await renderOffThread(() => ({ context: at(NOW), realmUrl: TEST_REALM_URL }), content, pool);
  t.not(render?.clockDay ?? null, null, 'the render read the clock');
  t.ok(verifyOffThreadRender(render!, at(NOW + 60), TEST_REALM_URL), 'a minute later, same day: accepted');
  t.equal(verifyOffThreadRender(render!, at(NOW + 86_400), TEST_REALM_URL), null, 'the next day: rejected');
  const plain = await renderOffThread(() => ({ context: at(NOW), realmUrl: TEST_REALM_URL }), 'no clock ' + 'filler '.repeat(400), pool);
  t.equal(plain?.clockDay, null);
  t.ok(verifyOffThreadRender(plain!, at(NOW + 86_400 * 3), TEST_REALM_URL), 'a render without <time:> does not depend on the day');
});

t.test('lookups the pre-scan misses are answered by another round', async (t) => {
  // `@**King Hamlet|10**`-style and topic links: the pre-scan guesses, the worker asks for the rest.
  const calls: string[] = [];
  const counting = (): ZulipRenderContext => {
    const c = context(false);
    return { ...c, topicLatestMessageId: (streamId, topic) => (calls.push(`${streamId}>${topic}`), streamId === 1 ? 42 : undefined) };
  };
  const content = '#**Verona>lunch** and #**Denmark>x** ' + 'filler '.repeat(400);
  const render = await renderOffThread(() => ({ context: counting(), realmUrl: TEST_REALM_URL }), content, pool);
  t.ok(render, 'rendered off the thread');
  const html = render!.result.kind === 'rendered' ? render!.result.html : '';
  t.match(html, '/with/42', "the missed lookup's answer is in the HTML");
  const zulip = counting();
  t.equal(html, zulipRenderer.render(content, { zulip, realmUrl: TEST_REALM_URL, work: messageRenderWork(content.length) }));
});

t.test('a failing pool gives no render (the caller renders in-thread)', async (t) => {
  const broken = new WorkerRenderPool({ filename: new URL('./no-such-worker.js', import.meta.url).href });
  t.teardown(() => broken.close());
  const render = await renderOffThread(() => ({ context: context(false), realmUrl: TEST_REALM_URL }), 'a'.repeat(5000), broken);
  t.equal(render, undefined, 'a worker that cannot load');
  const slow = new WorkerRenderPool({ timeoutMs: 1 });
  t.teardown(() => slow.close());
  t.equal(await renderOffThread(() => ({ context: context(false), realmUrl: TEST_REALM_URL }), '* a\n'.repeat(2500), slow), undefined, 'a render past its timeout');
  const closed = new WorkerRenderPool();
  await closed.close();
  t.equal(await closed.render({ content: 'a', context: { methods: [], answers: new Map(), scalars: { linkifiers: [], translateEmoticons: false }, nowSeconds: NOW } }), undefined, 'a closed pool');
});
