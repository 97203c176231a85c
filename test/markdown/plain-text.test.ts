/**
 * The plain-text fast path (src/markdown/plain-text.ts) against the full message renderer: whenever
 * it answers, the HTML is byte for byte the renderer's; Zulip syntax and every near miss falls back;
 * a realm's linkifiers are honoured; and it answers for ordinary sentences (it is not a stub).
 */
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expectedLinkify, fixtureContext, type CaseFile } from '../../src/markdown/conformance.js';
import { renderPlainText } from '../../src/markdown/plain-text.js';
import { render } from './zulip-support.js';
import { prng } from '../../bench/prng.js';
import type { Linkifier } from '../../src/domain/linkifiers.js';
import { renderMessageContent } from '../../src/realm/message-render.js';
import { smallRealm } from '../support/realm-fixture.js';
import { OFFLOAD_MIN_CHARS, prerenderContent } from '../../src/realm/render-offload.js';

const trac: Linkifier = { id: 1, pattern: '#(?P<id>[0-9]{2,8})', urlTemplate: 'https://trac.example.com/ticket/{id}' };
const jira: Linkifier = { id: 2, pattern: '(?P<key>[A-Z]{2,5}-[0-9]+)', urlTemplate: 'https://jira.example.com/browse/{key}' };
const word: Linkifier = { id: 3, pattern: 'ticket(?P<id>[0-9]+)', urlTemplate: 'https://example.com/t/{id}' };

/** A test name safe for TAP output (no raw line separators). */
const show = (s: string): string => JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Compares the fast path with the full renderer (emoticon translation on and off); returns mismatches. */
function mismatches(content: string, linkifiers: Linkifier[] = []): string[] {
  const fast = renderPlainText(content, linkifiers);
  if (fast === undefined) return [];
  const out: string[] = [];
  for (const translateEmoticons of [false, true]) {
    const full = render(content, { linkifiers, translateEmoticons });
    if (fast !== full) out.push(`${JSON.stringify(content)} (emoticons ${translateEmoticons}): fast ${JSON.stringify(fast)} full ${JSON.stringify(full)}`);
  }
  return out;
}

/** Single characters: the whitelist and every near miss (ASCII punctuation, whitespace, non-ASCII). */
const CHARS = [
  ...'abcxyzABCZ0123456789',
  ...' .:;,!?\'"()/%&>-',
  ...'@#*_~+|$`<=[]{}\\^',
  '\n', '\n', '\t', '\r', '  ', '\u00a0', '\u200d', '\u2028', '\u0000', '\x02', '\x03',
  'é', 'Ж', '日', 'ß', 'ﬁ', 'ℹ', 'Ⓜ', '²', '٣', '\u0301', '\ufe0f', '\u20e3', '🎉', '😀', '🇩🇪', '\ud83d', '𝔸',
];
/** Pieces of Zulip syntax and near misses, to land them in realistic positions. */
const PIECES = [
  '1. ', '1) ', '12. ', '- ', '* ', '+ ', '# ', '## ', '> ', '>', '---', '***', '___', '===', '    ', '\n\n',
  ':smile:', ':)', '(:', ':(', ';)', '<3', ':|', ':/', ':D', ':o', ':p', '8)', ':-)',
  '@**Iago**', '@*group*', '@_**x**', '#**Verona**', '#1234', 'ABC-123', 'ticket42',
  'example.com', 'a.b', 'x@y.co', 'http://x.org', 'https://', 'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
  '/me ', '$$x$$', '`code`', '```', '~~~', '~~del~~', '*em*', '**b**', '_u_', '||', '<time:2024-01-01>',
  '&amp;', '&#39;', '&x;', '& ', '&', 'a;', 'a:', 'a: ', '... ', '...', 'R&D;', '[x](y)', '![x](y)', '\\*',
  'word', 'hello', 'the', 'Zulip', 'ok', '42', 'and/or', 'well-known', '50%', '"quoted"', "it's", '(aside)',
];

const WORDS = ['word', 'Hello', 'x', 'ok', '42', 'é', 'Жук', '日本'];
/** Allowed characters, placed anywhere (the fast path must judge their positions). */
const ALLOWED = [...'.:;,!?\'"()/%&>-', '\n', '...', '. ', ': ', '& '];

t.test('property: whenever the fast path answers, the full renderer gives the same HTML', async (t) => {
  const random = prng(17);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const bad: string[] = [];
  let answered = 0;
  const runs = 10_000;
  for (let i = 0; i < runs; i++) {
    const length = 1 + Math.floor(random() * 14);
    // Odd runs: syntax soup; even runs: mostly words and allowed punctuation with a rare near miss.
    const soup = i % 2 === 1;
    let content = '';
    for (let j = 0; j < length; j++) {
      const r = random();
      if (soup) {
        content += r < 0.45 ? pick(CHARS) : r < 0.75 ? pick(PIECES) : r < 0.9 ? ' ' : pick(WORDS);
      } else {
        // A token: an allowed character, a near miss, or a word with allowed punctuation around it.
        if (j > 0) content += r < 0.85 ? ' ' : r < 0.95 ? '\n' : '';
        const k = random();
        content += k < 0.15 ? pick(ALLOWED) : k < 0.2 ? pick(CHARS) : k < 0.25 ? pick(PIECES)
          : (random() < 0.2 ? pick(ALLOWED) : '') + pick(WORDS) + (random() < 0.4 ? pick(ALLOWED) : '');
      }
    }
    const linkifiers = i % 3 === 0 ? [trac, jira, word] : [];
    if (renderPlainText(content, linkifiers) !== undefined) answered++;
    bad.push(...mismatches(content, linkifiers));
    if (bad.length > 10) break;
  }
  t.same(bad, [], 'no mismatch');
  // Random syntax soup qualifies rarely, but often enough that the comparison means something.
  t.ok(answered > 1000, `the fast path answered ${answered} of ${runs} random strings`);
});

t.test('plain sentences qualify (the fast path is not a stub) and match', async (t) => {
  const random = prng(4242);
  const words = ['the', 'build', 'is', 'green', 'again', 'Can', 'you', 'review', 'PR', '1234', 'today', 'héllo', 'Привет', '日本語',
    'we', "don't", '"maybe"', '(later)', 'well-known', '50%', 'and/or', 'Tom', '&', 'Jerry', '>', 'x'];
  const punct = ['', '', '', ',', '.', '!', '?', ':', ';', '...'];
  let answered = 0;
  const bad: string[] = [];
  const runs = 2000;
  for (let i = 0; i < runs; i++) {
    const lines: string[] = [];
    const lineCount = 1 + Math.floor(random() * 3);
    for (let l = 0; l < lineCount; l++) {
      const n = 1 + Math.floor(random() * 12);
      const ws: string[] = [];
      for (let k = 0; k < n; k++) ws.push(words[Math.floor(random() * words.length)]! + punct[Math.floor(random() * punct.length)]!);
      lines.push(ws.join(' '));
    }
    const content = lines.join('\n');
    if (renderPlainText(content, []) !== undefined) answered++;
    bad.push(...mismatches(content));
  }
  t.same(bad, []);
  t.ok(answered > runs * 0.5, `answered ${answered} of ${runs} sentences`);
  for (const s of ['bench message 123', 'sounds good, thanks!', 'I pushed the fix, can someone review it before the release tomorrow?']) {
    t.equal(renderPlainText(s, []), `<p>${s}</p>`, s);
    t.equal(render(s), `<p>${s}</p>`, `${s}: as the renderer`);
  }
});

t.test('escaping and line breaks are the renderer\'s', async (t) => {
  const cases: [string, string][] = [
    ['Tom & Jerry', '<p>Tom &amp; Jerry</p>'],
    ['a > b', '<p>a &gt; b</p>'],
    ['line one\nline two', '<p>line one<br>\nline two</p>'],
    ['say "hi" it\'s fine', '<p>say "hi" it\'s fine</p>'],
    ['Note: x; y.', '<p>Note: x; y.</p>'],
    ['wait... what', '<p>wait... what</p>'],
  ];
  for (const [content, html] of cases) {
    t.equal(renderPlainText(content, []), html, content);
    t.equal(render(content), html, `${content}: the renderer agrees`);
  }
});

t.test('Zulip syntax and near misses fall back', async (t) => {
  const fallBack = [
    '', ' ', 'x ', ' x', 'a  b', 'a\tb', 'a\r\nb', 'a\n\nb', 'a\n', '\na', 'a \nb', 'a\n b',
    '1. x', '1) x', '12. x', '- x', '* x', '+ x', 'a\n- b', 'a\n1. b', '# x', '## x', '> x', 'a\n> b', '---', 'a\n---',
    ':smile:', 'hi :smile:', ':)', 'hi :)', '(: hi', ';)', 'a ;) b', '<3', 'a <3 b', ':/', ':D', ':p', ':-)',
    '@**Iago**', 'hi @*group*', '#**Verona**', 'see #1234', 'example.com', 'see example.com now', 'a.b', 'x@y.co',
    'http://x.org', 'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '$$x$$', '`code`', '```\nx\n```', '~~~', '~~del~~',
    '*em*', '**b**', '_u_', '||spoiler||', '<time:2024-01-01T00:00:00Z>', '&amp;', '&#39;', 'R&D;', 'a&b', '[x](y)',
    '\\*', 'a = b', 'x^2', '{x}', 'a|b', 'a:b', 'a;b', ':a', 'a :b', '( : x', 'a ; b', 'a (; b', 'a\n: b', 'x 10:30', '🎉', 'ok 👍', 'ℹ', 'e\u0301', 'a\u00a0b',
    'a\u200db', '\x02', 'a\u2028b', '²', '\ud83d',
  ];
  for (const content of fallBack) t.equal(renderPlainText(content, []), undefined, show(content));
});

t.test('near misses that mean nothing in Zulip qualify and match', async (t) => {
  const qualify = ['/me waves', 'a - b', 'x 8) y', 'a: b', 'a:', 'a;', '(x): y', 'héllo; x', '"a": b', '50%: x', '10 apples', '2024 was a year', 'C3PO', '(aside) done',
    'and/or', '50% off', 'a.', 'end.\nnext', 'really?!', 'é Ж 日 ß', 'a & b', 'ok, sure'];
  const bad: string[] = [];
  for (const content of qualify) {
    t.not(renderPlainText(content, []), undefined, show(content));
    bad.push(...mismatches(content));
  }
  t.same(bad, []);
});

t.test('a realm with linkifiers: matching content gets the link (no fast path), other content is plain', async (t) => {
  const linkifiers = [trac, jira];
  t.equal(renderPlainText('fixed in ABC-123 today', linkifiers), undefined);
  t.equal(render('fixed in ABC-123 today', { linkifiers }),
    '<p>fixed in <a href="https://jira.example.com/browse/ABC-123">ABC-123</a> today</p>');
  t.equal(renderPlainText('fixed in ticket42', [word]), undefined);
  t.match(render('fixed in ticket42', { linkifiers: [word] }), /<a href="https:\/\/example.com\/t\/42">ticket42<\/a>/);
  t.equal(renderPlainText('fixed in ABC-123 today', []), '<p>fixed in ABC-123 today</p>', 'without linkifiers it is plain');
  t.equal(renderPlainText('nothing to link here', linkifiers), '<p>nothing to link here</p>');
  t.equal(render('nothing to link here', { linkifiers }), '<p>nothing to link here</p>');
});

t.test('renderMessageContent: the realm\'s linkifiers apply, findings are empty', async (t) => {
  const r = smallRealm();
  const target = { senderId: r.ids.member, nowSeconds: r.ctx.now(), directUserIds: [r.ids.member] };
  const plain = renderMessageContent(r.state, 'fixed in ABC-123 today', target);
  if ('code' in plain) throw plain;
  t.same(plain, { rendered: '<p>fixed in ABC-123 today</p>', userFlags: {}, streamWildcard: false, topicWildcard: false, mentionedGroupIds: [] });
  r.state.linkifiers = { items: [jira], nextId: 3 };
  const linked = renderMessageContent(r.state, 'fixed in ABC-123 today', target);
  if ('code' in linked) throw linked;
  t.equal(linked.rendered, '<p>fixed in <a href="https://jira.example.com/browse/ABC-123">ABC-123</a> today</p>');
});

t.test('large plain contents are not sent to the render worker', async (t) => {
  const r = smallRealm();
  const content = 'plain words only '.repeat(Math.ceil(OFFLOAD_MIN_CHARS / 17) + 10).trim();
  t.ok(content.length >= OFFLOAD_MIN_CHARS);
  t.equal(await prerenderContent(r, r.ids.member, content, r.ctx.now()), undefined);
  const rendering = renderMessageContent(r.state, content, { senderId: r.ids.member, nowSeconds: r.ctx.now(), directUserIds: [r.ids.member] });
  if ('code' in rendering) throw rendering;
  t.equal(rendering.rendered, render(content), 'the same HTML as the full renderer');
});

/** Zulip's own cases (zerver/tests/fixtures/markdown_test_cases.json), as conformance.test.ts finds them. */
const CASES_PATH = process.env['ZULIP_MARKDOWN_CASES'] ??
  fileURLToPath(new URL('../../../shared/reference/markdown_test_cases.json', import.meta.url));

t.test('Zulip\'s cases the fast path answers give Zulip\'s HTML', { skip: existsSync(CASES_PATH) ? false : `no fixture at ${CASES_PATH}` }, async (t) => {
  const cases = JSON.parse(readFileSync(CASES_PATH, 'utf8')) as CaseFile;
  const linkifiers = [...fixtureContext(false).linkifiers];
  const bad: string[] = [];
  let answered = 0;
  const check = (name: string, input: string, expected: string) => {
    const fast = renderPlainText(input, linkifiers);
    if (fast === undefined) return;
    answered++;
    if (fast !== expected) bad.push(`${name}: ${show(fast)} != ${show(expected)}`);
  };
  for (const c of cases.regular_tests) if (!c.ignore) check(c.name, c.input, c.expected_output);
  for (const [input, template, url] of cases.linkify_tests) check(input, input, expectedLinkify(template, url));
  t.same(bad, []);
  t.ok(answered > 0, `answered ${answered} cases`);
});
