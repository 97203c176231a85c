import t from 'tap';
import type { RealmState } from '../../src/domain/realm-state.js';
import type { Linkifier } from '../../src/domain/linkifiers.js';
import { topicLinks } from '../../src/domain/topic-links.js';
import { startTestServer } from '../support/test-server.js';

const trac: Linkifier = { id: 1, pattern: '#(?P<id>[0-9]{2,8})', urlTemplate: 'https://trac.example.com/ticket/{id}' };
const gh: Linkifier = { id: 2, pattern: '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/{org}/{repo}/issues/{id}' };
const stateWith = (items: Linkifier[]) => ({ linkifiers: { items, nextId: 10 } }) as unknown as RealmState;

t.test('linkifier matches in the topic', async (t) => {
  const s = stateWith([trac]);
  t.same(topicLinks(s, 'fix #1234 and #56'), [
    { text: '#1234', url: 'https://trac.example.com/ticket/1234' },
    { text: '#56', url: 'https://trac.example.com/ticket/56' },
  ]);
  t.same(topicLinks(s, 'issue#1234'), [], 'word boundary');
  t.same(topicLinks(s, ''), [], 'empty topic');
  t.same(topicLinks(stateWith([]), '#1234'), [], 'no linkifiers');
});

t.test('bare URLs in the topic, https:// added when missing', async (t) => {
  const s = stateWith([]);
  t.same(topicLinks(s, 'see https://example.com/a?b=1 now'), [{ text: 'https://example.com/a?b=1', url: 'https://example.com/a?b=1' }]);
  t.same(topicLinks(s, 'zulip.com/help, chat.zulip.org'), [
    { text: 'zulip.com/help', url: 'https://zulip.com/help' },
    { text: 'chat.zulip.org', url: 'https://chat.zulip.org' },
  ]);
  t.same(topicLinks(s, 'http://a.com/x'), [{ text: 'http://a.com/x', url: 'http://a.com/x' }], 'an explicit scheme is kept');
});

t.test('overlaps: earlier linkifiers, then URLs', async (t) => {
  t.same(topicLinks(stateWith([gh, trac]), 'zulip/zulip#12'), [{ text: 'zulip/zulip#12', url: 'https://github.com/zulip/zulip/issues/12' }]);
  t.same(topicLinks(stateWith([trac, gh]), 'zulip/zulip#12 #34'), [
    { text: 'zulip/zulip#12', url: 'https://github.com/zulip/zulip/issues/12' },
    { text: '#34', url: 'https://trac.example.com/ticket/34' },
  ]);
  const site: Linkifier = { id: 3, pattern: 'example\\.com', urlTemplate: 'https://intranet/example' };
  t.same(topicLinks(stateWith([site]), 'example.com'), [{ text: 'example.com', url: 'https://intranet/example' }],
    'a linkifier beats a bare URL at the same place');
});

t.test('topic_links in message objects', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const added = await iago.call('POST', '/realm/filters', { pattern: '#(?P<id>[0-9]{2,8})', url_template: 'https://trac.example.com/ticket/{id}' });
  t.equal(added.status, 200, JSON.stringify(added.body));
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'bug #4321 example.org', content: 'see #4321' });
  t.equal(sent.status, 200);
  const id = (sent.body as { id: number }).id;
  const got = await hamlet.call('GET', `/messages/${id}`);
  const message = (got.body as { message: Record<string, unknown> }).message;
  t.same(message['topic_links'], [
    { text: '#4321', url: 'https://trac.example.com/ticket/4321' },
    { text: 'example.org', url: 'https://example.org' },
  ]);
  t.equal(message['content'], '<p>see <a href="https://trac.example.com/ticket/4321">#4321</a></p>', 'content is linkified too');
  const dm = await hamlet.call('POST', '/messages', { type: 'private', to: JSON.stringify(['othello@zulip.com']), content: '#4321' });
  const dmGot = await hamlet.call('GET', `/messages/${(dm.body as { id: number }).id}`);
  t.same((dmGot.body as { message: Record<string, unknown> }).message['topic_links'], [], 'direct messages have none');
});
