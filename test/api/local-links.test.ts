/**
 * Links into the realm render relative (Zulip's `rewrite_local_links_to_relative`; conformance
 * case `fragment_link`): `<realm_url>/#narrow/...` → `#narrow/...`, `<realm_url>/user_uploads/...`
 * → `user_uploads/...`, for sends, content edits and POST /messages/render. The realm URL is the
 * one clients get as `realm_url` (the configured `--external-url`, see external-url.test.ts).
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';

async function realmUrlOf(caller: Caller): Promise<string> {
  const r = await caller.call('POST', '/register', { fetch_event_types: ['realm'] });
  return r.body.realm_url as string;
}

t.test('sent channel and direct messages link into the realm relatively', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const url = await realmUrlOf(hamlet);
  t.equal(url, s.url, 'realm_url is the default URL, http://127.0.0.1:<port>');

  const bare = await hamlet.call('POST', '/messages', {
    type: 'stream',
    to: 'Verona',
    topic: 'links',
    content: `${url}/#narrow/channel/1-Verona`,
  });
  t.equal(bare.status, 200);
  const got = await hamlet.call('GET', `/messages/${bare.body.id}`);
  t.equal(got.body.message.content, `<p><a href="#narrow/channel/1-Verona">${url}/#narrow/channel/1-Verona</a></p>`);
  t.equal(got.body.raw_content, `${url}/#narrow/channel/1-Verona`, 'raw content unchanged');

  const dm = await hamlet.call('POST', '/messages', {
    type: 'private',
    to: JSON.stringify(['othello@zulip.com']),
    content: `[foo](${url}/#narrow/stream/1-Denmark) and [file](${url}/user_uploads/2/ab/x.txt)`,
  });
  t.equal(dm.status, 200);
  const gotDm = await hamlet.call('GET', `/messages/${dm.body.id}`);
  t.equal(
    gotDm.body.message.content,
    '<p><a href="#narrow/stream/1-Denmark">foo</a> and <a href="user_uploads/2/ab/x.txt">file</a></p>',
  );
});

t.test('links elsewhere stay absolute', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const url = await realmUrlOf(hamlet);
  const r = await hamlet.call('POST', '/messages/render', {
    content: `https://example.com/#narrow/channel/1-Verona ${url}/help/`,
  });
  t.equal(r.status, 200);
  t.equal(
    r.body.rendered,
    `<p><a href="https://example.com/#narrow/channel/1-Verona">https://example.com/#narrow/channel/1-Verona</a> <a href="${url}/help/">${url}/help/</a></p>`,
    'other hosts and non-app paths of the realm are not rewritten',
  );
});

t.test('POST /messages/render links into the realm relatively', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const url = await realmUrlOf(hamlet);
  const r = await hamlet.call('POST', '/messages/render', { content: `[foo](${url}/#narrow/stream/1-Denmark)` });
  t.same(r.body, { result: 'success', msg: '', rendered: '<p><a href="#narrow/stream/1-Denmark">foo</a></p>' });
});

t.test('content edits link into the realm relatively', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const url = await realmUrlOf(hamlet);
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'links', content: 'first' });
  t.equal(sent.status, 200);
  const edit = await hamlet.call('PATCH', `/messages/${sent.body.id}`, { content: `see ${url}/#narrow/channel/1-Verona/topic/links` });
  t.equal(edit.status, 200);
  const got = await hamlet.call('GET', `/messages/${sent.body.id}`);
  t.equal(
    got.body.message.content,
    `<p>see <a href="#narrow/channel/1-Verona/topic/links">${url}/#narrow/channel/1-Verona/topic/links</a></p>`,
  );
});
