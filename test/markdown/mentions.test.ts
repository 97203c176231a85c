/**
 * Mentions (src/markdown/plugins/mentions.ts) rendered by the full Zulip renderer against a
 * hand-made realm context: exact markup of user, silent, id-syntax, wildcard and group mentions,
 * what gets reported in `out`, literal text for unknown names or without realm context, HTML
 * escaping of names, and the silencing of mentions inside block quotes.
 */
import t from 'tap';
import { zulipRenderer } from '../../src/markdown/zulip-renderer.js';
import { emptyFindings, type MentionableGroup, type MentionableUser, type ZulipRenderContext } from '../../src/markdown/context.js';
import { silenceMentions } from '../../src/markdown/plugins/mentions.js';

const USERS: MentionableUser[] = [
  { id: 10, fullName: 'Ada Lovelace', isActive: true },
  { id: 11, fullName: 'Bob <b>&"Builder"', isActive: true },
  { id: 12, fullName: 'Gone Person', isActive: false },
  { id: 13, fullName: 'Twin Name', isActive: true },
  { id: 14, fullName: 'twin name', isActive: true },
];
const GROUPS: MentionableGroup[] = [
  { id: 40, name: 'backend' },
  { id: 41, name: 'R&D <team>' },
  { id: 42, name: 'retired', deactivated: true },
];

function context(): ZulipRenderContext {
  return {
    userById: (id) => USERS.find((u) => u.id === id),
    usersByFullName: (name) => USERS.filter((u) => u.fullName.toLowerCase() === name.toLowerCase()),
    groupByName: (name) => GROUPS.find((g) => g.name === name),
    streamByName: () => undefined,
    streamById: () => undefined,
    linkifiers: [],
    realmEmoji: () => undefined,
    translateEmoticons: false,
    nowSeconds: 1_700_000_000,
    out: emptyFindings(),
  };
}

function render(content: string) {
  const zulip = context();
  const html = zulipRenderer.render(content, { zulip });
  const out = zulip.out;
  return {
    html,
    users: [...out.mentionedUserIds].sort(),
    groups: [...out.mentionedGroupIds].sort(),
    streamWildcard: out.streamWildcard,
    topicWildcard: out.topicWildcard,
  };
}

t.test('user mentions', async (t) => {
  let r = render('ping @**Ada Lovelace** now');
  t.equal(r.html, '<p>ping <span class="user-mention" data-user-id="10">@Ada Lovelace</span> now</p>');
  t.same(r.users, [10], 'reported as mentioned');

  r = render('@**ada LOVELACE**');
  t.equal(r.html, '<p><span class="user-mention" data-user-id="10">@Ada Lovelace</span></p>', 'name matched case-insensitively, shown as stored');

  r = render('@_**Ada Lovelace**');
  t.equal(r.html, '<p><span class="user-mention silent" data-user-id="10">Ada Lovelace</span></p>', 'silent: class and no @');
  t.same(r.users, [], 'silent mentions report nobody');

  r = render('@**Ada Lovelace|10** and @**|10** and @_**Ada Lovelace|10**');
  t.equal(
    r.html,
    '<p><span class="user-mention" data-user-id="10">@Ada Lovelace</span> and ' +
      '<span class="user-mention" data-user-id="10">@Ada Lovelace</span> and ' +
      '<span class="user-mention silent" data-user-id="10">Ada Lovelace</span></p>',
    'name|id and |id syntaxes',
  );
  t.same(r.users, [10]);

  r = render('@**ada lovelace|10** @**Ada Lovelace|11** @**|999**');
  t.equal(r.html, '<p>@<strong>ada lovelace|10</strong> @<strong>Ada Lovelace|11</strong> @<strong>|999</strong></p>', 'name|id needs the exact name of that id');
  t.same(r.users, []);

  r = render('@**Gone Person**');
  t.equal(r.html, '<p><span class="user-mention silent" data-user-id="12">Gone Person</span></p>', 'deactivated users render silent');
  t.same(r.users, [], 'and are not reported');

  r = render('@**Twin Name**');
  t.equal(r.html, '<p><span class="user-mention" data-user-id="14">@twin name</span></p>', 'duplicate names: the last match wins');

  r = render('@**Bob <b>&"Builder"**');
  t.equal(r.html, '<p><span class="user-mention" data-user-id="11">@Bob &lt;b&gt;&amp;"Builder"</span></p>', 'names are HTML-escaped');
});

t.test('unknown names, positions and missing context stay literal', async (t) => {
  let r = render('@**Nobody Here** and @*nogroup*');
  t.equal(r.html, '<p>@<strong>Nobody Here</strong> and @<em>nogroup</em></p>');
  t.same([r.users, r.groups], [[], []]);

  r = render('mail@**Ada Lovelace** (@**Ada Lovelace**) "@**Ada Lovelace**"');
  t.equal(
    r.html,
    '<p>mail@<strong>Ada Lovelace</strong> (<span class="user-mention" data-user-id="10">@Ada Lovelace</span>) ' +
      '"<span class="user-mention" data-user-id="10">@Ada Lovelace</span>"</p>',
    'a mention must follow whitespace or an opening delimiter',
  );

  r = render('`@**Ada Lovelace**`\n\n    @**Ada Lovelace**');
  t.equal(r.html, '<p><code>@**Ada Lovelace**</code></p>\n<div class="codehilite"><pre><span></span><code>@**Ada Lovelace**\n</code></pre></div>', 'not in code');
  t.same(r.users, []);

  t.equal(zulipRenderer.render('@**Ada Lovelace** @**all** @*backend*'), '<p>@<strong>Ada Lovelace</strong> @<strong>all</strong> @<em>backend</em></p>', 'no realm context: literal');
});

t.test('wildcard mentions', async (t) => {
  for (const name of ['all', 'everyone', 'channel', 'stream']) {
    const r = render(`hey @**${name}**`);
    t.equal(r.html, `<p>hey <span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span></p>`, name);
    t.same([r.streamWildcard, r.topicWildcard], [true, false]);
  }
  let r = render('@_**all**');
  t.equal(r.html, '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>', 'silent channel wildcard');
  t.equal(r.streamWildcard, false, 'silent wildcard reports nothing');

  r = render('@**topic**');
  t.equal(r.html, '<p><span class="topic-mention">@topic</span></p>');
  t.same([r.streamWildcard, r.topicWildcard], [false, true]);
  r = render('@_**topic**');
  t.equal(r.html, '<p><span class="topic-mention silent">topic</span></p>');
  t.equal(r.topicWildcard, false);

  r = render('@**All** @**TOPIC**');
  t.equal(r.html, '<p>@<strong>All</strong> @<strong>TOPIC</strong></p>', 'wildcards are case-sensitive');
  t.same([r.streamWildcard, r.topicWildcard], [false, false]);
});

t.test('user group mentions', async (t) => {
  let r = render('cc @*backend*');
  t.equal(r.html, '<p>cc <span class="user-group-mention" data-user-group-id="40">@backend</span></p>');
  t.same(r.groups, [40]);

  r = render('@_*backend*');
  t.equal(r.html, '<p><span class="user-group-mention silent" data-user-group-id="40">backend</span></p>');
  t.same(r.groups, []);

  r = render('@*retired*');
  t.equal(r.html, '<p><span class="user-group-mention silent" data-user-group-id="42">retired</span></p>', 'deactivated group: silent');
  t.same(r.groups, []);

  r = render('@*R&D <team>*');
  t.equal(r.html, '<p><span class="user-group-mention" data-user-group-id="41">@R&amp;D &lt;team&gt;</span></p>', 'group names are escaped');

  r = render('@*Backend*');
  t.equal(r.html, '<p>@<em>Backend</em></p>', 'group names match exactly');
});

t.test('mentions in block quotes are silenced', async (t) => {
  let r = render('> @**Ada Lovelace** said @*backend* to @**all**\n\n@**Ada Lovelace**');
  t.equal(
    r.html,
    '<blockquote>\n<p><span class="user-mention silent" data-user-id="10">Ada Lovelace</span> said ' +
      '<span class="user-group-mention silent" data-user-group-id="40">backend</span> to ' +
      '<span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>\n</blockquote>\n' +
      '<p><span class="user-mention" data-user-id="10">@Ada Lovelace</span></p>',
  );
  t.same([r.users, r.groups, r.streamWildcard], [[10], [], false], 'only the unquoted mention counts');

  r = render('```quote\n- @**topic** and @**Ada Lovelace**\n```');
  t.equal(
    r.html,
    '<blockquote>\n<ul>\n<li><span class="topic-mention silent">topic</span> and ' +
      '<span class="user-mention silent" data-user-id="10">Ada Lovelace</span></li>\n</ul>\n</blockquote>',
    'quote fences too, at any depth',
  );
  t.same([r.users, r.topicWildcard], [[], false]);

  t.equal(silenceMentions('a @**x** b @*g* c @_**y** d@**z**'), 'a @_**x** b @_*g* c @_**y** d@**z**', 'silenceMentions');
});
