import t from 'tap';
import { render } from './zulip-support.js';

const OPEN = '<div class="spoiler-block"><div class="spoiler-header">';
const MID = '</div><div class="spoiler-content" aria-hidden="true">';
const END = '</div></div>';

t.test('spoiler blocks', async (t) => {
  t.equal(render('```spoiler Plot twist\nThe **butler**.\n```'),
    `${OPEN}\n<p>Plot twist</p>\n${MID}\n<p>The <strong>butler</strong>.</p>\n${END}`);
  t.equal(render('~~~spoiler\nhidden\n~~~\nafter'), `${OPEN}\n${MID}\n<p>hidden</p>\n${END}\n<p>after</p>`, 'no header');
  t.equal(render('```spoiler *Header* :car:\nx\n```'),
    `${OPEN}\n<p><em>Header</em> <span aria-label="car" class="emoji emoji-1f697" role="img" title="car">:car:</span></p>\n${MID}\n<p>x</p>\n${END}`,
    'the header is Markdown');
});

t.test('spoiler content is Markdown and may hold fences', async (t) => {
  t.equal(render('````spoiler code\n```py\nx = 1\n```\n- a\n- b\n````'),
    `${OPEN}\n<p>code</p>\n${MID}\n<div class="codehilite" data-code-language="Python"><pre><span></span><code>x = 1\n</code></pre></div>\n` +
      `<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n${END}`);
  t.equal(render('```quote\n```spoiler h\nc\n```\n```'),
    `<blockquote>\n${OPEN}\n<p>h</p>\n${MID}\n<p>c</p>\n${END}\n</blockquote>`, 'inside a quote');
});

t.test('spoiler header and content are escaped', async (t) => {
  t.equal(render('```spoiler <img src=x onerror=alert(1)>\n<b>x</b>\n```'),
    `${OPEN}\n<p>&lt;img src=x onerror=alert(1)&gt;</p>\n${MID}\n<p>&lt;b&gt;x&lt;/b&gt;</p>\n${END}`);
});

t.test('an empty spoiler renders nothing, an unclosed one runs to the end', async (t) => {
  t.equal(render('```spoiler h\n```'), '');
  t.equal(render('```spoiler h\nrest'), `${OPEN}\n<p>h</p>\n${MID}\n<p>rest</p>\n${END}`);
});
