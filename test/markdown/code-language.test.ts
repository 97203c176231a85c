import t from 'tap';
import { render } from './zulip-support.js';
import { PYGMENTS_NAME_BY_ALIAS } from '../../src/markdown/plugins/code-language.js';

const block = (lang: string, code: string) =>
  `<div class="codehilite" data-code-language="${lang}"><pre><span></span><code>${code}\n</code></pre></div>`;

t.test('data-code-language is the Pygments lexer name for known languages', async (t) => {
  t.equal(render('```py\nx = "1"\n```'), block('Python', 'x = "1"'));
  t.equal(render('``` JS\nlet a;\n```'), block('JavaScript', 'let a;'), 'case-insensitive');
  t.equal(render('~~~{.cpp}\nint x;\n~~~'), block('C++', 'int x;'));
  t.equal(render('```c#\nvar x;\n```'), block('C#', 'var x;'));
  t.equal(render('```latex\n\\pi\n```'), block('TeX', '\\pi'));
  t.equal(render('```html+php\n<?php ?>\n```'), block('HTML+PHP', '&lt;?php ?&gt;'));
});

t.test('unknown languages keep the lowercased name; no language: no attribute', async (t) => {
  t.equal(render('```MyDSL\na & b\n```'), block('mydsl', 'a &amp; b'));
  t.equal(render('```\n"q"\n```'), '<div class="codehilite"><pre><span></span><code>&quot;q&quot;\n</code></pre></div>');
});

t.test('special fences are not code', async (t) => {
  t.notOk(PYGMENTS_NAME_BY_ALIAS.has('quote'));
  t.notOk(PYGMENTS_NAME_BY_ALIAS.has('math'));
  t.notOk(PYGMENTS_NAME_BY_ALIAS.has('spoiler'));
  t.equal(render('```quote\nq\n```'), '<blockquote>\n<p>q</p>\n</blockquote>');
});
