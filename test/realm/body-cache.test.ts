/**
 * The realm's decoded-body cache (src/realm/body-cache.ts): budget and eviction order, and that a
 * fetched message never shows a stale body after a content edit.
 */
import t from 'tap';
import { BodyCache } from '../../src/realm/body-cache.js';
import { startTestServer } from '../support/test-server.js';

const body = (content: string) => ({ content, rendered: `<p>${content}</p>` });

t.test('evicts the oldest entries beyond the character budget', async (t) => {
  const cache = new BodyCache(30); // each body below costs 3 + 10 = 13 code units
  cache.put(1, body('aaa'));
  cache.put(2, body('bbb'));
  t.same(cache.get(1), body('aaa'));
  cache.put(3, body('ccc'));
  t.equal(cache.get(1), undefined, 'oldest evicted');
  t.same(cache.get(2), body('bbb'));
  t.same(cache.get(3), body('ccc'));
});

t.test('put replaces, forget drops, an over-budget body is not cached', async (t) => {
  const cache = new BodyCache(30);
  cache.put(1, body('aaa'));
  cache.put(1, body('xyz'));
  cache.put(2, body('bbb'));
  t.same(cache.get(1), body('xyz'), 'replacing does not count the old body twice');
  cache.forget(1);
  t.equal(cache.get(1), undefined);
  cache.put(3, body('x'.repeat(40)));
  t.equal(cache.get(3), undefined);
  t.same(cache.get(2), body('bbb'));
});

t.test('a content edit is visible to the next fetch (no stale cached body)', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'cache', content: 'first version' });
  t.equal(sent.status, 200);
  const id = sent.body.id as number;
  const fetch = async () => {
    const r = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0 });
    return (r.body.messages as Array<{ id: number; content: string }>).find((m) => m.id === id)!.content;
  };
  t.equal(await fetch(), '<p>first version</p>');
  t.equal(await fetch(), '<p>first version</p>', 'second read (cached) is the same');
  const edited = await hamlet.call('PATCH', `/messages/${id}`, { content: 'second version' });
  t.equal(edited.status, 200);
  t.equal(await fetch(), '<p>second version</p>');
  await s.server.registry.bySubdomainName('')!.whenDurable();
  t.equal(await fetch(), '<p>second version</p>', 'after the edit is durable');
  const raw = await hamlet.call('GET', '/messages', { anchor: id, num_before: 0, num_after: 0, apply_markdown: false });
  t.equal(raw.body.messages[0].content, 'second version');
});

t.test('the entry cap evicts the oldest body', async (t) => {
  const cache = new BodyCache(1000, 2);
  cache.put(1, body('a'));
  cache.put(2, body('b'));
  cache.put(3, body('c'));
  t.equal(cache.get(1), undefined);
  t.same(cache.get(2), body('b'));
  t.same(cache.get(3), body('c'));
});
