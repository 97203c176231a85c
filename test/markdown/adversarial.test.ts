/**
 * Hostile Markdown (issue 12, "Markdown in linear time"): the one-pass syntaxes give exactly
 * Python-Markdown's results (cases checked against the rescan-from-the-start implementation they
 * replace, which passes Zulip's conformance cases), rendering work grows linearly with the input
 * (the renderer's deterministic work counter, never a clock), and the new bounds answer clear
 * errors and change nothing.
 */
import t from 'tap';
import { zulipRenderer } from '../../src/markdown/zulip-renderer.js';
import { fixtureContext, TEST_REALM_URL } from '../../src/markdown/conformance.js';
import { MarkdownRenderingError, messageRenderWork, type RenderWork } from '../../src/markdown/render-budget.js';
import { MAX_FENCE_DEPTH } from '../../src/markdown/plugins/preprocess.js';
import { decide, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { startTestServer } from '../support/test-server.js';

function render(content: string, work?: RenderWork): string {
  return zulipRenderer.render(content, { realmUrl: TEST_REALM_URL, zulip: fixtureContext(true), ...(work && { work }) });
}

/** Work counted for one render of `content` (no limit). */
function workOf(content: string): number {
  const work = { used: 0, limit: Infinity };
  render(content, work);
  return work.used;
}

const fill = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

t.test('one-pass syntaxes render as Python-Markdown does', async (t) => {
  const cases: [string, string][] = [
    ['*a*a*a*a', '<p><em>a</em>a<em>a</em>a</p>'],
    // A placeholder completes an enclosing match: the reason Python-Markdown rescans.
    ['*a *b* c*', '<p><em>a <em>b</em> c</em></p>'],
    ['**a*', '<p>*<em>a</em></p>'],
    ['***a***b***', '<p><strong><em>a</em></strong>b***</p>'],
    ['~~a~~~~b~~', '<p>~~a~~~~b~~</p>'],
    ['~~a ~~b~~ c~~', '<p><del>a </del>b<del> c</del></p>'],
    ['`a``a```a', '<p>`a``a```a</p>'],
    ['``a`b`` `c`', '<p><code>a`b</code> <code>c</code></p>'],
    ['\\\\`x`', '<p>\\`x`</p>'],
    ['<time:<time:a', '<p>&lt;time:&lt;time:a</p>'],
    ['[a[a[a', '<p>[a[a[a</p>'],
    ['[a]([a]([a](', '<p>[a]([a]([a](</p>'],
    ['[a](b) [c](d)', '<p><a href="http://b">a</a> <a href="http://d">c</a></p>'],
    [
      '@**King Hamlet** @**nobody** @**Othello, the Moor of Venice**',
      '<p><span class="user-mention" data-user-id="4">@King Hamlet</span> @<strong>nobody</strong> <span class="user-mention" data-user-id="5">@Othello, the Moor of Venice</span></p>',
    ],
    [
      '#**Verona>t** #**Denmark**',
      '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Verona/topic/t">#Verona &gt; t</a> <a class="stream" data-stream-id="2" href="/#narrow/channel/2-Denmark">#Denmark</a></p>',
    ],
    [
      '#1234 #1234,#99',
      '<p><a href="https://trac.example.com/ticket/1234">#1234</a> <a href="https://trac.example.com/ticket/1234">#1234</a>,<a href="https://trac.example.com/ticket/99">#99</a></p>',
    ],
  ];
  for (const [input, expected] of cases) t.equal(render(input), expected, JSON.stringify(input));
  // TeX: the inner formula renders, the outer `$$…$$` spanning it is an error, as in Python.
  t.match(render('$$a $$b$$ c$$'), /^<p><span class="tex-error">\$\$a <span class="katex">.*<\/span> c\$\$<\/span><\/p>$/);
});

t.test('large hostile inputs render with the expected structure', async (t) => {
  const em = render(fill('*a', 80_000));
  t.equal(em.match(/<em>/g)?.length, 20_000, "'*a' × 40000: every other pair is an <em>");
  t.equal(render(fill('`a', 20_000)).match(/<code>/g)?.length, 5000, "'`a' × 10000: a code span per backtick pair");
  let growing = '';
  for (let n = 1; growing.length < 20_000; n++) growing += '`'.repeat(n) + 'a';
  t.notMatch(render(growing), /<code>/, 'backtick runs of growing length never close');
  t.equal(render(fill('[a](', 50_000)), `<p>${fill('[a](', 50_000)}</p>`, "'[a](' × N stays text");
  const quotes = render('> '.repeat(5000) + 'a');
  t.equal(quotes.match(/<blockquote>/g)?.length, 32, 'block quotes nest at most 32 deep');
  const fences = render('```quote\n'.repeat(200) + 'a');
  t.equal(fences.match(/<blockquote>/g)?.length, MAX_FENCE_DEPTH, `quote fences nest at most ${MAX_FENCE_DEPTH} deep`);
  t.ok(fences.length < 20_000, 'and the output stays small');
  const mentions = render(fill('@**King Hamlet** ', 50_000));
  t.equal(mentions.match(/data-user-id="4"/g)?.length, Math.floor(50_000 / 17), 'thousands of mentions all render');
});

t.test('rendering work grows linearly with the input', async (t) => {
  const linear = [
    '*a', '**a', '***a', '_a', '~~a', '[a', '[a](', '](', '`a', '\\\\`', '> a\n', '* a\n', 'a\n* a\n', '@**a** ',
    '@*a* ', ':smile: ', ':a', '#1234 ', 'http://a.co ', '~~~\n', '```quote\n', '```spoiler a\n', '$$', ':) ', '<time:',
    '<time:1> ', '&amp;', '# a\n', '**a** ', '~~a~~ ', '`a` ',
  ];
  for (const unit of linear) {
    const small = workOf(fill(unit, 5_000));
    const large = workOf(fill(unit, 50_000));
    t.ok(large <= small * 12, `${JSON.stringify(unit)}: work ${small} for 5 KB, ${large} for 50 KB`);
  }
});

t.test('rescanning syntaxes stay far inside the budget at max_message_length', async (t) => {
  // Each match still rebuilds the string (a copy, charged 1/16 per character): not strictly
  // linear, but bounded at the 10,000 characters a message may have.
  for (const unit of ['@**King Hamlet** ', '#**Verona>t** ', '#**Verona** ', '@*hamletcharacters* ', '[a](b) ', '$$a$$ ', '**a** @**King Hamlet** ']) {
    const content = fill(unit, 10_000);
    const work = messageRenderWork(content.length);
    t.doesNotThrow(() => render(content, work), JSON.stringify(unit));
    t.ok(work.used < work.limit / 2, `${JSON.stringify(unit)}: ${work.used} of ${work.limit}`);
  }
});

t.test('the work budget stops a render and says so', async (t) => {
  t.throws(() => render(fill('*a', 10_000), { used: 0, limit: 1000 }), MarkdownRenderingError);
  // A stray `[` makes every link rescan from the start (Python-Markdown's loop, kept exact).
  const content = fill('[ ' + '[a](b) '.repeat(2000), 10_000);
  t.throws(() => render(content, messageRenderWork(content.length)), MarkdownRenderingError);
});

t.test('send and edit: over-budget content answers "Unable to render message", nothing changes', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const hostile = fill('[ ' + '[a](b) '.repeat(2000), 10_000);
  const send = { type: 'send_message', senderId: ids.member, messageType: 'stream', to: 'general', topic: 't', client: 'test' } as const;
  rejects(t, state, { ...send, content: hostile }, ctx, 'Unable to render message');
  const sent = run(state, { ...send, content: 'old' }, ctx);
  const edit = {
    type: 'edit_message', actorId: ids.member, messageId: sent.id, propagateMode: 'change_one',
    sendNotificationToOldThread: false, sendNotificationToNewThread: true, body: { content: 'old', rendered: '<p>old</p>' }, bodyVersion: 0,
  } as const;
  rejects(t, state, { ...edit, content: hostile }, ctx, 'Unable to render message');
  t.ok(decide(state, { ...edit, content: 'new' }, ctx).ok, 'an ordinary edit still works');
});

t.test('POST /messages/render: content bounded by max_message_length', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const ok = await hamlet.call('POST', '/messages/render', { content: 'a'.repeat(10_000) });
  t.equal(ok.status, 200);
  t.equal(ok.body.rendered, `<p>${'a'.repeat(10_000)}</p>`);
  // Counted in code points, as Python's len: 10,000 emoji are 20,000 UTF-16 units.
  const astral = await hamlet.call('POST', '/messages/render', { content: '😀'.repeat(10_000) });
  t.equal(astral.status, 200);
  const long = await hamlet.call('POST', '/messages/render', { content: 'a'.repeat(10_001) });
  t.equal(long.status, 400);
  t.same(long.body, { result: 'error', msg: 'content is too long (limit: 10000 characters)', code: 'BAD_REQUEST' });
  const huge = await hamlet.call('POST', '/messages/render', { content: '*a'.repeat(200_000) });
  t.equal(huge.body.msg, 'content is too long (limit: 10000 characters)', '400 KB is refused before rendering');
  const hostile = await hamlet.call('POST', '/messages/render', { content: fill('[ ' + '[a](b) '.repeat(2000), 10_000) });
  t.same(hostile.body, { result: 'error', msg: 'Unable to render message', code: 'BAD_REQUEST' });
  const after = await hamlet.call('POST', '/messages/render', { content: '*still* fine' });
  t.equal(after.body.rendered, '<p><em>still</em> fine</p>', 'the server renders normally afterwards');
});
