/**
 * Markdown rendering against Zulip's own conformance cases
 * (Zulip's zerver/tests/fixtures/markdown_test_cases.json), plus safety.
 *
 * Which conformance cases run — the rule: every `regular_tests` case whose input uses only plain
 * Markdown, i.e. every case EXCEPT those exercising a Zulip-specific feature that is a later
 * plugin: emoji and emoticons (names containing "emoji"/"emoticon", the `translate_emoticons`
 * flag, and the Unicode-emoji cases named after Unicode blocks), TeX (`tex_*`, ```math),
 * `<time:>` timestamps, spoilers, inline image/video previews (`backend_only_rendering`), and
 * Pygments syntax highlighting (fences in a language Pygments knows, or with a shebang line).
 * The result is the explicit allow-list {@link BASIC_CASES}, grouped by construct; each name was
 * checked by reading its input. All `linkify_tests` (bare URL detection) run as well.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { createRenderer, basicMarkdownPlugin, renderMarkdown } from '../../src/markdown/render.js';

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
}
interface CaseFile {
  regular_tests: RegularCase[];
  linkify_tests: [input: string, template: string, url: string][];
}

/**
 * The fixture is Zulip's zerver/tests/fixtures/markdown_test_cases.json, read from
 * `ZULIP_MARKDOWN_CASES` or, when present, a reference folder next to the repository. Without it
 * the conformance subtests are
 * reported as skipped (visibly), the other tests still run.
 */
const CASES_PATH =
  process.env['ZULIP_MARKDOWN_CASES'] ??
  fileURLToPath(new URL('../../../shared/reference/markdown_test_cases.json', import.meta.url));
const cases: CaseFile | undefined = existsSync(CASES_PATH)
  ? (JSON.parse(readFileSync(CASES_PATH, 'utf8')) as CaseFile)
  : undefined;
const skipConformance = cases === undefined ? `conformance fixture not found at ${CASES_PATH}` : false;

/** The realm URL Zulip's test suite renders with (for relative `#narrow` links). */
const REALM_URL = 'http://zulip.testserver';

const BASIC_CASES: readonly string[] = [
  // paragraphs, text, escaping
  'empty', 'basic_paragraph', 'normal_text_test', 'ampampamp', 'nl2br', 'nl2br_trailing_space',
  // code blocks and inline code
  'codeblock_hilite_invented_language', 'codeblock_multiline', 'codeblock_trailing_whitespace',
  'inline_code_spaces', 'inline_code_html_entities', 'codeblock_backticks', 'hanging_multi_codeblock',
  'dangerous_block_having_x', 'dangerous_block_having_backticks', 'four_space_code_block',
  'two_space_not_code_block', 'ulist_codeblock', 'malformed_fence', 'list_codeblock_interference',
  // block quotes (">" and ```quote fences)
  'fenced_normal_quote', 'fenced_nested_quote', 'fenced_complexly_nested_quote',
  'empty_single_blockquote', 'empty_multiple_blockquote', 'non_empty_blockquote',
  'multiple_blockquote_with_angular_bracket', 'multiple_blockquote_with_backticks_and_angular_bracket',
  'multiple_blockquote_with_quote_and_reply', 'fenced_quote_with_hashtag', 'fenced_quote_and_list',
  // headings
  'hashheading_enabled', 'hashheading_needs_spaces', 'hashheading_multiple_spaces',
  'hashheading_6_levels', 'hashheading_7_levels',
  // lists
  'ulist_standard_1', 'ulist_standard_2', 'ulist_standard_3', 'list_complexly_nested',
  'ulist_mixed_bullets', 'ulist_hanging', 'ulist_codeblock_interference', 'ulist_hanging_mixed',
  'ulist_hanging_multi', 'ulist_hanging_quoted', 'ulist_nested_ulist_two_space_indent',
  'ulist_list_two_space_indent', 'numbered_list', 'auto_renumbered_list_trick',
  'auto_renumbered_list_from', 'two_auto_renumbered_lists', 'auto_renumbered_list_blankline',
  'ulist_with_inline_code',
  // emphasis, strong, strikethrough
  'strikthrough_basic', 'strikthrough_multiword_with_no_space_in_between',
  'strikthrough_multiword_with_space_in_between', 'strikthrough_link', 'underscore_disabled',
  'emphasis_text', 'emphasis_code', 'emphasis_with_space', 'emphasis_with_html',
  'underscore_strong_disabled', 'star_strong', 'star_strong_em', 'strong_with_html', 'multiline_strong',
  // links
  'reference_links_disabled', 'reference_links_disabled_2', 'linkify_interference',
  'only_non_image_link', 'link_with_text', 'link_without_text', 'link_with_empty_text',
  'fragment_link', 'not_fragment_link', 'embedded_link_inside_Bold', 'embedded_link_inside_Italic',
  'edge_case_embedded_link_inside_Bold', 'edge_case_embedded_link_inside_Italic', 'telephone_sms_link',
  // tables
  'tables',
  // raw HTML is escaped
  'safe_html', 'safe_html_with_simple_script_tag', 'safe_html_nested_script_tag',
  'safe_html_nested_script_tag_with_parse_error', 'safe_html_messed_up_complexly_nested_script_tags',
  'safe_html_unclosed_tag', 'safe_html_unclosed_tag_and_quotes', 'safe_html_in_code',
];

const byName = new Map((cases?.regular_tests ?? []).map((c) => [c.name, c]));

t.test('basic conformance cases (exact HTML equality)', { skip: skipConformance }, async (t) => {
  t.equal(new Set(BASIC_CASES).size, BASIC_CASES.length, 'allow-list has no duplicates');
  for (const name of BASIC_CASES) {
    const c = byName.get(name);
    if (c === undefined) {
      t.fail(`case ${name} missing from ${CASES_PATH}`);
      continue;
    }
    t.equal(renderMarkdown(c.input, { realmUrl: REALM_URL }), c.expected_output, name);
  }
});

/** Zulip's `replaced()` helper from test_markdown.py: how linkify_tests spell the expected link. */
function expectedLinkify(template: string, url: string): string {
  if (!url) return template;
  const href = url.startsWith('http') ? url : url.includes('@') ? `mailto:${url}` : `http://${url}`;
  return template.replace('%s', `<a href="${href}">${url}</a>`);
}

t.test('linkify conformance cases', { skip: skipConformance }, async (t) => {
  for (const [input, template, url] of cases?.linkify_tests ?? []) {
    t.equal(renderMarkdown(input, { realmUrl: REALM_URL }), expectedLinkify(template, url), input);
  }
});

t.test('raw HTML is escaped, never passed through', async (t) => {
  t.equal(renderMarkdown('<script>alert(1)</script>'), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  t.equal(renderMarkdown('<img src=x onerror=alert(1)>'), '<p>&lt;img src=x onerror=alert(1)&gt;</p>');
  t.equal(renderMarkdown('# <b>x</b>'), '<h1>&lt;b&gt;x&lt;/b&gt;</h1>');
  t.equal(renderMarkdown('> <iframe>'), '<blockquote>\n<p>&lt;iframe&gt;</p>\n</blockquote>');
  t.equal(
    renderMarkdown('a | b\n--|--\n<i>c</i> | d'),
    '<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n' +
      '<td>&lt;i&gt;c&lt;/i&gt;</td>\n<td>d</td>\n</tr>\n</tbody>\n</table>',
  );
  t.equal(renderMarkdown('```html\n<b>"x"</b>\n```'),
    '<div class="codehilite" data-code-language="html"><pre><span></span><code>&lt;b&gt;"x"&lt;/b&gt;\n</code></pre></div>');
  // Placeholder marker characters in user input cannot smuggle stashed HTML.
  t.equal(renderMarkdown('```\n<b>\n```\n\n\x02wzxhzdk:0\x03'),
    '<div class="codehilite"><pre><span></span><code>&lt;b&gt;\n</code></pre></div>\n<p>wzxhzdk:0</p>');
});

t.test('dangerous link schemes are never linked', async (t) => {
  const dangerous = [
    '[x](javascript:alert(1))',
    '[x](JavaScript:alert(1))',
    '[x]( javascript:alert(1))',
    '[x](java\nscript:alert(1))',
    '[x](vbscript:msgbox(1))',
    '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[x](<javascript:alert(1)>)',
    'javascript:alert(1)',
  ];
  for (const input of dangerous) {
    const html = renderMarkdown(input);
    t.notMatch(html, /<a\b/, `not linked: ${JSON.stringify(input)}`);
  }
  t.equal(renderMarkdown('[x](javascript:alert(1))'), '<p>[x](javascript:alert(1))</p>');
  // Quotes in hrefs and titles cannot break out of the attribute.
  for (const input of ['[x](http://a.com/"onmouseover="alert(1))', '[x](http://a.com/ "t" onmouseover="alert(1)")']) {
    t.match(renderMarkdown(input), /^<p><a href="[^"<>]*"( title="[^"<>]*")?>x<\/a>/, input);
  }
  t.equal(renderMarkdown('[x](http://a.com/x "t\\"q")'), '<p><a href="http://a.com/x" title="t\\&quot;q">x</a></p>');
  // Safe schemes and scheme-less URLs do link.
  t.equal(renderMarkdown('[x](example.com/a)'), '<p><a href="http://example.com/a">x</a></p>');
  t.equal(renderMarkdown('[x](/user_uploads/1/a.png)'), '<p><a href="/user_uploads/1/a.png">x</a></p>');
  t.equal(renderMarkdown('[x](mailto:a@b.com)'), '<p><a href="mailto:a@b.com">x</a></p>');
});

t.test('empty and blank input', async (t) => {
  t.equal(renderMarkdown(''), '');
  t.equal(renderMarkdown('   \n\t\n'), '');
});

t.test('long and pathological inputs render without error, quickly', async (t) => {
  const inputs: [string, string][] = [
    ['prose', 'lorem ipsum **dolor** sit `amet` https://example.com/x '.repeat(200)],
    ['one line', 'x'.repeat(10000)],
    ['brackets', '['.repeat(10000)],
    ['link openers', '[a]('.repeat(2500)],
    ['stars', '*a '.repeat(3333)],
    ['backticks', '` a '.repeat(2500)],
    ['nested quotes', '>'.repeat(10000)],
    ['quote lines', '> a\n'.repeat(2500)],
    ['newlines', 'a\n'.repeat(5000)],
    ['fences', '```\n'.repeat(2500)],
    ['nested lists', Array.from({ length: 1000 }, (_, i) => ' '.repeat(2 * (i % 40)) + '* x').join('\n')],
    ['url parens', 'http://a.com/' + '(a'.repeat(3000)],
  ];
  for (const [label, input] of inputs) {
    const started = performance.now();
    const html = renderMarkdown(input.slice(0, 10000));
    const ms = performance.now() - started;
    t.type(html, 'string', `${label}: renders`);
    t.ok(ms < 500, `${label}: ${ms.toFixed(1)} ms`);
  }
  t.equal(renderMarkdown('```\n'.repeat(2500)), '', 'empty fenced blocks vanish, as in Zulip');
  const long = 'word '.repeat(2000);
  t.equal(renderMarkdown(long), `<p>${long.trimEnd()} </p>`);
});

t.test('Python-Markdown block rules Zulip inherits (beyond the conformance cases)', async (t) => {
  // A table, like every Python-Markdown block, starts only at the beginning of a block.
  t.equal(renderMarkdown('text\na | b\n--|--'), '<p>text<br>\na | b<br>\n--|--</p>');
  // No setext headings, no `1)` lists, no backslash escapes.
  t.equal(renderMarkdown('Title\n==='), '<p>Title<br>\n===</p>');
  t.equal(renderMarkdown('1) x'), '<p>1) x</p>');
  t.equal(renderMarkdown('\\*x\\*'), '<p>\\<em>x\\</em></p>');
  // `![alt](src)` is not an image: the URL is just autolinked.
  t.equal(renderMarkdown('![a](http://x.com/a.png)'),
    '<p>![a](<a href="http://x.com/a.png">http://x.com/a.png</a>)</p>');
});

t.test('plugins add inline patterns at Zulip priorities', async (t) => {
  // A stand-in for a later plugin: `@**name**` mentions run at priority 95, i.e. before
  // **strong** (35), so the asterisks are consumed by the mention, not by bold.
  const renderer = createRenderer([
    basicMarkdownPlugin,
    {
      name: 'fake-mention',
      inlinePatterns: [{
        name: 'usermention',
        priority: 95,
        regex: /@\*\*([^*]+)\*\*/g,
        handle: (m) => ({
          node: { kind: 'element', open: '<span class="user-mention">', close: '</span>', content: `@${m[1]}`, atomic: true },
          start: m.index,
          end: m.index + m[0].length,
        }),
      }],
    },
  ]);
  t.equal(renderer.render('hi @**King Hamlet** and **bold**'),
    '<p>hi <span class="user-mention">@King Hamlet</span> and <strong>bold</strong></p>');
  // The shared default renderer is unaffected.
  t.equal(renderMarkdown('hi @**King Hamlet**'), '<p>hi @<strong>King Hamlet</strong></p>');
});
