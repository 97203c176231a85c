import t from 'tap';
import { render } from './zulip-support.js';
import type { Linkifier } from '../../src/domain/linkifiers.js';

const trac: Linkifier = { id: 1, pattern: '#(?P<id>[0-9]{2,8})', urlTemplate: 'https://trac.example.com/ticket/{id}' };
const gh: Linkifier = { id: 2, pattern: '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/{org}/{repo}/issues/{id}' };
const jira: Linkifier = { id: 3, pattern: '[A-Z]{2,5}-[0-9]+', urlTemplate: 'https://jira.example.com/browse/{+x}' };

t.test('linkifiers link their matches', async (t) => {
  t.equal(render('see #1234 and #99.', { linkifiers: [trac] }),
    '<p>see <a href="https://trac.example.com/ticket/1234">#1234</a> and <a href="https://trac.example.com/ticket/99">#99</a>.</p>');
  t.equal(render('see #1234', {}), '<p>see #1234</p>', 'no linkifiers: text');
  t.equal(render('(#1234) "#55"', { linkifiers: [trac] }),
    '<p>(<a href="https://trac.example.com/ticket/1234">#1234</a>) "<a href="https://trac.example.com/ticket/55">#55</a>"</p>',
    'after opening punctuation');
});

t.test('word boundaries (Zulip\'s prepared pattern)', async (t) => {
  t.equal(render('issue#1234 #1234z #1', { linkifiers: [trac] }), '<p>issue#1234 #1234z #1</p>');
  t.equal(render('#12,#34;#56', { linkifiers: [trac] }),
    '<p><a href="https://trac.example.com/ticket/12">#12</a>,<a href="https://trac.example.com/ticket/34">#34</a>;#56</p>',
    'a comma may precede a match, a semicolon may not');
  t.equal(render('#12 #34', { linkifiers: [trac] }),
    '<p><a href="https://trac.example.com/ticket/12">#12</a> <a href="https://trac.example.com/ticket/34">#34</a></p>');
});

t.test('order: earlier linkifiers win overlapping text', async (t) => {
  t.equal(render('zulip/zulip#123', { linkifiers: [gh, trac] }),
    '<p><a href="https://github.com/zulip/zulip/issues/123">zulip/zulip#123</a></p>');
  t.equal(render('zulip/zulip#123 #456', { linkifiers: [trac, gh] }),
    '<p><a href="https://github.com/zulip/zulip/issues/123">zulip/zulip#123</a> <a href="https://trac.example.com/ticket/456">#456</a></p>',
    'a later linkifier still links what earlier ones did not match');
});

t.test('not inside code, links, URLs or mentions', async (t) => {
  const l = { linkifiers: [trac] };
  t.equal(render('`#1234`', l), '<p><code>#1234</code></p>');
  t.equal(render('[#1234](https://example.com)', l), '<p><a href="https://example.com">#1234</a></p>');
  t.equal(render('https://example.com/#1234', l), '<p><a href="https://example.com/#1234">https://example.com/#1234</a></p>');
  t.equal(render('```\n#1234\n```', l), '<div class="codehilite"><pre><span></span><code>#1234\n</code></pre></div>');
});

t.test('inside emphasis, quotes and lists', async (t) => {
  const l = { linkifiers: [trac] };
  // As in Zulip: **strong** (priority 35) runs after linkifiers (45), whose boundary rule does
  // not accept `*` before a match; ***strong em*** (100) runs before, so its content is linkified.
  t.equal(render('**#1234**', l), '<p><strong>#1234</strong></p>');
  t.equal(render('***#1234***', l), '<p><strong><em><a href="https://trac.example.com/ticket/1234">#1234</a></em></strong></p>');
  t.equal(render('> #1234', l), '<blockquote>\n<p><a href="https://trac.example.com/ticket/1234">#1234</a></p>\n</blockquote>');
  t.equal(render('* #1234', l), '<ul>\n<li><a href="https://trac.example.com/ticket/1234">#1234</a></li>\n</ul>');
});

t.test('URLs are sanitized and made relative when local', async (t) => {
  const bad: Linkifier = { id: 4, pattern: 'X(?P<id>[0-9]+)', urlTemplate: 'javascript:alert({id})' };
  t.equal(render('X1', { linkifiers: [bad] }), '<p>X1</p>', 'a disallowed scheme is not linked');
  const local: Linkifier = { id: 5, pattern: 'M(?P<id>[0-9]+)', urlTemplate: 'https://chat.example.com/#narrow/near/{id}' };
  t.equal(render('M42', { linkifiers: [local] }), '<p><a href="#narrow/near/42">M42</a></p>');
  const quote: Linkifier = { id: 6, pattern: 'Q(?P<q>[a-z"<>]+)', urlTemplate: 'https://example.com/?q={q}' };
  t.equal(render('Q"a<b>', { linkifiers: [quote] }), '<p><a href="https://example.com/?q=%22a%3Cb%3E">Q"a&lt;b&gt;</a></p>',
    'template expansion percent-encodes; text is escaped');
});

t.test('a linkifier without groups', async (t) => {
  t.equal(render('ABC-12 done', { linkifiers: [jira] }), '<p><a href="https://jira.example.com/browse/">ABC-12</a> done</p>');
});
