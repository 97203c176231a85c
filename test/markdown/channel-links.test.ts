/**
 * Channel, topic and message links (src/markdown/plugins/channel-links.ts) rendered by the full
 * Zulip renderer against a hand-made realm context: exact markup, Zulip's narrow-hash encoding,
 * the `/with/` operand of topic links, the empty topic, escaping, and literal text for unknown
 * channels or without realm context.
 */
import t from 'tap';
import { zulipRenderer } from '../../src/markdown/zulip-renderer.js';
import { emptyFindings, type LinkableStream, type ZulipRenderContext } from '../../src/markdown/context.js';
import { encodeStream, hashUtilEncode } from '../../src/markdown/plugins/channel-links.js';

const STREAMS: LinkableStream[] = [
  { id: 7, name: 'design' },
  { id: 8, name: 'Q&A <team>' },
  { id: 9, name: 'v1.0 (beta) 100%' },
  { id: 21, name: 'café' },
];

function render(content: string, latest: Record<string, number> = {}): string {
  const zulip: ZulipRenderContext = {
    userById: () => undefined,
    usersByFullName: () => [],
    groupByName: () => undefined,
    streamByName: (name) => STREAMS.find((s) => s.name === name),
    streamById: (id) => STREAMS.find((s) => s.id === id),
    topicLatestMessageId: (streamId, topic) => latest[`${streamId}:${topic.toLowerCase()}`],
    linkifiers: [],
    realmEmoji: () => undefined,
    translateEmoticons: false,
    nowSeconds: 1_700_000_000,
    out: emptyFindings(),
  };
  return zulipRenderer.render(content, { zulip });
}

t.test('narrow hash encoding', async (t) => {
  t.equal(hashUtilEncode('a b.c'), 'a.20b.2Ec');
  t.equal(hashUtilEncode("x(y)!*'~_-/?#%"), 'x.28y.29.21.2A.27~_-.2F.3F.23.25');
  t.equal(hashUtilEncode('ünï 🎉'), '.C3.BCn.C3.AF.20.F0.9F.8E.89', 'UTF-8 bytes');
  t.equal(encodeStream(9, 'v1.0 (beta) 100%'), '9-v1.2E0-.28beta.29-100.25', 'spaces become dashes first');
});

t.test('channel links', async (t) => {
  t.equal(render('see #**design**'), '<p>see <a class="stream" data-stream-id="7" href="/#narrow/channel/7-design">#design</a></p>');
  t.equal(
    render('#**v1.0 (beta) 100%**'),
    '<p><a class="stream" data-stream-id="9" href="/#narrow/channel/9-v1.2E0-.28beta.29-100.25">#v1.0 (beta) 100%</a></p>',
  );
  t.equal(
    render('#**Q&A <team>**'),
    '<p><a class="stream" data-stream-id="8" href="/#narrow/channel/8-Q.26A-.3Cteam.3E">#Q&amp;A &lt;team&gt;</a></p>',
    'names are escaped',
  );
  t.equal(render('#**café**'), '<p><a class="stream" data-stream-id="21" href="/#narrow/channel/21-caf.C3.A9">#café</a></p>');
  t.equal(render('#**Design** #**nowhere**'), '<p>#<strong>Design</strong> #<strong>nowhere</strong></p>', 'unknown or differently cased names stay literal');
  t.equal(render('x#**design**'), '<p>x#<strong>design</strong></p>', 'must follow whitespace or an opening delimiter');
  t.equal(zulipRenderer.render('#**design**'), '<p>#<strong>design</strong></p>', 'no realm context: literal');
});

t.test('topic links', async (t) => {
  t.equal(
    render('#**design>API review**'),
    '<p><a class="stream-topic" data-stream-id="7" href="/#narrow/channel/7-design/topic/API.20review">#design &gt; API review</a></p>',
    'no message in the topic: no /with/',
  );
  t.equal(
    render('#**design>api Review**', { '7:api review': 42 }),
    '<p><a class="stream-topic" data-stream-id="7" href="/#narrow/channel/7-design/topic/api.20Review/with/42">#design &gt; api Review</a></p>',
    'the latest message of the topic as the /with/ operand; the typed topic is kept',
  );
  t.equal(
    render('#**design>a > b <c> & d**'),
    '<p><a class="stream-topic" data-stream-id="7" href="/#narrow/channel/7-design/topic/a.20.3E.20b.20.3Cc.3E.20.26.20d">#design &gt; a &gt; b &lt;c&gt; &amp; d</a></p>',
    'the topic may contain > and is escaped',
  );
  t.equal(
    render('#**design>**'),
    '<p><a class="stream-topic" data-stream-id="7" href="/#narrow/channel/7-design/topic/">#design &gt; <em>general chat</em></a></p>',
    'the empty topic',
  );
  t.equal(render('#**nowhere>topic**'), '<p>#<strong>nowhere&gt;topic</strong></p>', 'unknown channel: literal');
});

t.test('message links', async (t) => {
  t.equal(
    render('#**design>API review@123**'),
    '<p><a class="message-link" href="/#narrow/channel/7-design/topic/API.20review/near/123">#design &gt; API review @ 💬</a></p>',
  );
  t.equal(
    render('#**design>mail me@home@77**'),
    '<p><a class="message-link" href="/#narrow/channel/7-design/topic/mail.20me.40home/near/77">#design &gt; mail me@home @ 💬</a></p>',
    'the id follows the last @',
  );
  t.equal(
    render('#**design>@5**'),
    '<p><a class="message-link" href="/#narrow/channel/7-design/topic//near/5">#design &gt; <em>general chat</em> @ 💬</a></p>',
    'the empty topic',
  );
  t.equal(
    render('#**design>x@12a**'),
    '<p><a class="stream-topic" data-stream-id="7" href="/#narrow/channel/7-design/topic/x.4012a">#design &gt; x@12a</a></p>',
    'not a message id: a topic link',
  );
});
