/**
 * TeX: structure and Zulip's error markup. Exact KaTeX HTML depends on the KaTeX release (Zulip's
 * own output is checked by the conformance runner), so successful renders are compared with
 * KaTeX's own output here.
 */
import t from 'tap';
import { createRequire } from 'node:module';
import { render } from './zulip-support.js';

const katex = createRequire(import.meta.url)('katex') as {
  renderToString(tex: string, o: { displayMode: boolean; throwOnError: boolean }): string;
};
const inline = (tex: string) => katex.renderToString(tex, { displayMode: false, throwOnError: true });
const display = (tex: string) => katex.renderToString(tex, { displayMode: true, throwOnError: true });

t.test('inline $$…$$', async (t) => {
  t.equal(render('area $$\\pi r^2$$ here'), `<p>area ${inline('\\pi r^2')} here</p>`);
  t.match(render('$$x$$'), /^<p><span class="katex"><span class="katex-mathml"><math/);
  t.equal(render('costs $$5 \\$$$'), `<p>costs ${inline('5 \\$')}</p>`, 'escaped dollar inside');
  t.equal(render('$$**b**$$'), `<p>${inline('**b**')}</p>`, 'no Markdown inside');
});

t.test('what is not inline TeX', async (t) => {
  t.equal(render('a$$x$$'), '<p>a$$x$$</p>', 'glued to a word');
  t.equal(render('$$x$$b'), '<p>$$x$$b</p>');
  t.equal(render('$$$x$$$'), '<p>$$$x$$$</p>', 'three dollars');
  t.equal(render('$$x\ny$$'), '<p>$$x<br>\ny$$</p>', 'no newline inside');
  t.equal(render('$$_x$$'), '<p>$$_x$$</p>', 'body may not start with _');
  t.equal(render('`$$x$$`'), '<p><code>$$x$$</code></p>', 'code wins');
  t.equal(render('pay $5 or $6'), '<p>pay $5 or $6</p>');
});

t.test('invalid TeX', async (t) => {
  t.equal(render('$$\\nosuchmacro{<b>}$$'), '<p><span class="tex-error">$$\\nosuchmacro{&lt;b&gt;}$$</span></p>');
  t.equal(render("```math\n\\nosuchmacro{'<b>'}\n```"),
    '<p><span class="tex-error">\\nosuchmacro{&#x27;&lt;b&gt;&#x27;}</span></p>', 'blocks escape quotes too (Django escape)');
});

t.test('```math blocks', async (t) => {
  t.equal(render('```math\na^2\n```'), `<p>${display('a^2')}</p>`, 'display mode, kept inside a paragraph');
  t.match(render('```math\na^2\n```'), /^<p><span class="katex-display">/);
  t.equal(render('```math\na\n\nb\n```'), `<p>${display('a')}\n\n${display('b')}</p>`, 'one formula per paragraph');
  t.equal(render('```math\n```js\nx\n```'), `<p>${display('```js\nx')}</p>`, 'no nested fences inside math');
  t.equal(render('```quote\n```math\nx\n```\n```'), `<blockquote>\n<p>${display('x')}</p>\n</blockquote>`, 'inside a quote');
});

t.test('KaTeX output never carries raw input markup', async (t) => {
  const html = render('$$<script>alert(1)</script>$$');
  t.notMatch(html, /<script/);
  t.match(html, /&lt;script&gt;/);
});
