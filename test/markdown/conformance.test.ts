/**
 * The conformance runner's bookkeeping (flags, counting, linkify templates), on synthetic cases.
 * Zulip's own cases: the last test here, `npm run conformance`, and render.test.ts (plain Markdown).
 */
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expectedLinkify, fixtureContext, runConformance, type CaseFile } from '../../src/markdown/conformance.js';

t.test('flags are honoured like Zulip\'s test runner', async (t) => {
  const file: CaseFile = {
    regular_tests: [
      { name: 'plain', input: 'a *b*', expected_output: '<p>a <em>b</em></p>' },
      { name: 'wrong', input: 'a', expected_output: '<p>b</p>' },
      { name: 'skipped', input: 'x', expected_output: 'never', ignore: true },
      { name: 'emoticon on', input: ';)', expected_output: '<p><span aria-label="wink" class="emoji emoji-1f609" role="img" title="wink">:wink:</span></p>', translate_emoticons: true },
      { name: 'emoticon off', input: ';)', expected_output: '<p>;)</p>' },
      { name: 'frontend-only keys unused', input: 'z', expected_output: '<p>z</p>', marked_expected_output: 'other', text_content: 'z', backend_only_rendering: true },
    ],
    linkify_tests: [
      ['see example.com', '<p>see %s</p>', 'example.com'],
      ['mail a@b.co', '<p>mail %s</p>', 'a@b.co'],
      ['not a link', '<p>not a link</p>', ''],
    ],
  };
  const r = runConformance(file);
  t.same({ passed: r.regular.passed, total: r.regular.total, skipped: r.regular.skipped }, { passed: 4, total: 5, skipped: 1 });
  t.same(r.regular.failures.map((f) => f.name), ['wrong']);
  t.same({ passed: r.linkify.passed, total: r.linkify.total }, { passed: 3, total: 3 });
  t.same(r.unknownKeys, []);
  t.same(runConformance({ regular_tests: [{ name: 'k', input: 'a', expected_output: '<p>a</p>', typo: 1 } as never], linkify_tests: [] }).unknownKeys, ['k.typo']);
});

t.test('linkify templates (Zulip\'s replaced())', async (t) => {
  t.equal(expectedLinkify('<p>%s</p>', 'https://x.com'), '<p><a href="https://x.com">https://x.com</a></p>');
  t.equal(expectedLinkify('<p>%s</p>', 'x.com'), '<p><a href="http://x.com">x.com</a></p>');
  t.equal(expectedLinkify('<p>%s</p>', 'a@x.com'), '<p><a href="mailto:a@x.com">a@x.com</a></p>');
  t.equal(expectedLinkify('<p>plain</p>', ''), '<p>plain</p>');
});

t.test('the fixture realm is the development cast', async (t) => {
  const ctx = fixtureContext(false);
  t.equal(ctx.usersByFullName('king hamlet')[0]?.fullName, 'King Hamlet');
  t.equal(ctx.streamByName('denmark')?.name, 'Denmark');
  t.equal(ctx.linkifiers.length, 1);
  t.equal(fixtureContext(true).translateEmoticons, true);
});

/**
 * Zulip's own cases (zerver/tests/fixtures/markdown_test_cases.json, when a copy is present): every
 * linkify case passes, and every
 * regular case passes except the known gaps, which are listed by reason:
 * - Pygments syntax highlighting (no npm library emits Pygments' token classes);
 * - KaTeX HTML, only when the installed KaTeX is not the 0.16 line Zulip's fixtures come from.
 */
const CASES_PATH = process.env['ZULIP_MARKDOWN_CASES'] ??
  fileURLToPath(new URL('../../../shared/reference/markdown_test_cases.json', import.meta.url));
const PYGMENTS = ['codeblock_hilite_python', 'codeblock_canonicalize_lang_alias', 'tex_fenced_tex', 'tex_fenced_latex',
  'codeblock_hilite_shebang_feature_no_path_1', 'codeblock_hilite_shebang_feature_no_path_2',
  'codeblock_hilite_shebang_feature_with_path', 'codeblock_hilite_startinline_php'];
/** The inline image/video preview cases (src/markdown/plugins/inline-previews.ts): every one passes. */
const PREVIEWS = ['inline_image', 'two_inline_images', 'deduplicate_inline_previews', 'bulleted_list_inlining',
  'only_inline_image', 'only_named_inline_image', 'only_inline_video', 'only_named_inline_video', 'spoiler_with_inline_image'];
const KATEX_HTML = ['fenced_quotes_inside_mathblock', 'tex_inline', 'tex_complex', 'tex_fenced_math', 'tex_money',
  'tex_inline_permissive_spacing', 'tex_safe_script_tag', 'tex_inline_no_markdown_inside', 'tex_display_no_markdown_inside'];
const katexVersion = (createRequire(import.meta.url)('katex/package.json') as { version: string }).version;

t.test('Zulip\'s markdown_test_cases.json', { skip: existsSync(CASES_PATH) ? false : `no fixture at ${CASES_PATH}` }, async (t) => {
  const r = runConformance(JSON.parse(readFileSync(CASES_PATH, 'utf8')) as CaseFile);
  t.same(r.linkify.failures.map((f) => f.name), [], 'every linkify case');
  const known = new Set([...PYGMENTS, ...(katexVersion.startsWith('0.16.') ? [] : KATEX_HTML)]);
  const failed = new Set(r.regular.failures.map((f) => f.name));
  t.same(PREVIEWS.filter((n) => failed.has(n)), [], 'every inline image/video preview case');
  t.equal(PREVIEWS.filter((n) => (JSON.parse(readFileSync(CASES_PATH, 'utf8')) as CaseFile).regular_tests.some((c) => c.name === n)).length, PREVIEWS.length, 'the preview cases are in the fixture');
  t.same(r.regular.failures.map((f) => f.name).filter((n) => !known.has(n)), [], `every other regular case (KaTeX ${katexVersion})`);
  t.ok(r.regular.passed >= r.regular.total - known.size, `${r.regular.passed}/${r.regular.total}`);
});
