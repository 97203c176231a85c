/**
 * The organization's URL is configuration (`--external-url`), never the request's Host
 * (DESIGN.md §8; issue 13 §1): `realm_url`/`realm_uri` in /server_settings and /register, invite
 * links, the /join page, links in rendered messages (sends, edits, /messages/render, Notification
 * Bot) are the same whatever Host a client used. The Host still selects the realm by subdomain.
 */
import t from 'tap';
import { request as httpRequest } from 'node:http';
import { formEncode, rawRequest, startTestServer, type TestServer } from '../support/test-server.js';

const EXTERNAL = 'https://chat.example.com';
/** Host headers a client could send: the server's address, the public name, a stranger. */
const HOSTS = ['127.0.0.1', 'chat.example.com', 'www.chat.example.com:443', 'evil.example'];

/** An authenticated request with a chosen Host header (fetch cannot set Host). */
async function call(s: TestServer, email: string, host: string, method: string, path: string, params: Record<string, unknown> = {}) {
  const caller = await s.as(email);
  const auth = 'Basic ' + Buffer.from(`${email}:${caller.apiKey}`).toString('base64');
  const encoded = formEncode(params);
  const isGet = method === 'GET';
  return rawRequest(s.url, method, `/api/v1${path}${isGet && encoded ? `?${encoded}` : ''}`, {
    Host: host,
    Authorization: auth,
    ...(isGet ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }),
  }, isGet ? '' : encoded);
}

/** GET an HTML page with a chosen Host. */
function getPage(url: string, path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { headers: { Host: host } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('realm_url is the configured URL whatever the Host', async (t) => {
  const s = await startTestServer(t, { externalUrl: EXTERNAL });
  t.equal(s.server.registry.urlFor(''), EXTERNAL);
  for (const host of HOSTS) {
    const settings = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: host });
    t.equal(settings.status, 200, host);
    t.equal(settings.body.realm_url, EXTERNAL, `server_settings realm_url with Host ${host}`);
    t.equal(settings.body.realm_uri, EXTERNAL);
    t.equal(settings.body.realm_icon, `${EXTERNAL}/static/images/logo/zulip-icon-128x128.png?version=1`, 'the default icon under the configured URL');
    const register = await call(s, 'hamlet@zulip.com', host, 'POST', '/register', { fetch_event_types: ['realm'] });
    t.equal(register.status, 200);
    t.equal(register.body.realm_url, EXTERNAL, `register realm_url with Host ${host}`);
    t.equal(register.body.realm_uri, EXTERNAL);
  }
});

t.test('a subdomain realm is <scheme>://<subdomain>.<external host>, selected by Host', async (t) => {
  const s = await startTestServer(t, { externalUrl: EXTERNAL });
  await s.server.registry.createRealm('team', 'Team');
  const team = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: 'team.chat.example.com' });
  t.match(team.body, { realm_url: 'https://team.chat.example.com', realm_name: 'Team' });
  const root = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: 'chat.example.com' });
  t.match(root.body, { realm_url: EXTERNAL, realm_name: 'Zulip Dev' });
  const none = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: 'nowhere.chat.example.com' });
  t.same(none.body, { result: 'error', msg: 'Invalid subdomain', code: 'BAD_REQUEST' });
});

t.test('invite links and the /join page use the configured URL', async (t) => {
  const s = await startTestServer(t, { externalUrl: EXTERNAL });
  const created = await call(s, 'iago@zulip.com', 'evil.example', 'POST', '/invites/multiuse', { invite_as: 400 });
  t.equal(created.status, 200);
  const link = created.body.invite_link as string;
  t.match(link, /^https:\/\/chat\.example\.com\/join\/[a-z2-7]{24}\/$/);
  const listed = await call(s, 'iago@zulip.com', '127.0.0.1', 'GET', '/invites');
  t.same(listed.body.invites.map((i: { link_url: string }) => i.link_url), [link], 'GET /invites link_url');
  const path = new URL(link).pathname;
  const page = await getPage(s.url, path, 'evil.example');
  t.equal(page.status, 200);
  t.match(page.text, `<form method="post" action="${link}">`, 'the form posts to the configured URL');
  t.notMatch(page.text, 'evil.example');
});

t.test('stored HTML is identical whatever Host the sender used', async (t) => {
  const s = await startTestServer(t, { externalUrl: EXTERNAL });
  const content = `[here](${EXTERNAL}/#narrow/channel/1-Verona) and ${s.url}/#narrow/channel/1-Verona`;
  const rendered: string[] = [];
  for (const host of HOSTS) {
    const sent = await call(s, 'hamlet@zulip.com', host, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'links', content });
    t.equal(sent.status, 200, host);
    const got = await call(s, 'hamlet@zulip.com', '127.0.0.1', 'GET', `/messages/${sent.body.id}`);
    rendered.push(got.body.message.content);
  }
  t.equal(new Set(rendered).size, 1, 'one rendering for every Host');
  t.equal(
    rendered[0],
    `<p><a href="#narrow/channel/1-Verona">here</a> and <a href="${s.url}/#narrow/channel/1-Verona">${s.url}/#narrow/channel/1-Verona</a></p>`,
    'links into the configured URL are relative; the bind address is another site',
  );
  const preview = await call(s, 'hamlet@zulip.com', 'evil.example', 'POST', '/messages/render', { content });
  t.equal(preview.body.rendered, rendered[0], '/messages/render agrees');

  const sent = await call(s, 'hamlet@zulip.com', '127.0.0.1', 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'edit', content: 'x' });
  const edit = await call(s, 'hamlet@zulip.com', 'evil.example', 'PATCH', `/messages/${sent.body.id}`, { content });
  t.equal(edit.status, 200);
  const edited = await call(s, 'hamlet@zulip.com', '127.0.0.1', 'GET', `/messages/${sent.body.id}`);
  t.equal(edited.body.message.content, rendered[0], 'content edits agree');
});

t.test('Notification Bot links point into the configured URL and render relative', async (t) => {
  const s = await startTestServer(t, { externalUrl: EXTERNAL });
  const first = await call(s, 'hamlet@zulip.com', 'evil.example', 'POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'plans', content: 'a' });
  await call(s, 'hamlet@zulip.com', 'evil.example', 'POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'plans', content: 'b' });
  await call(s, 'hamlet@zulip.com', 'evil.example', 'POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'later', content: 'c' });
  const moved = await call(s, 'hamlet@zulip.com', 'evil.example', 'PATCH', `/messages/${first.body.id}`, {
    topic: 'later', propagate_mode: 'change_one', send_notification_to_old_thread: false, send_notification_to_new_thread: true,
  });
  t.equal(moved.status, 200);
  const narrow = JSON.stringify([['stream', 'Denmark'], ['topic', 'later']]);
  const raw = await call(s, 'hamlet@zulip.com', '127.0.0.1', 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false, narrow });
  t.match(raw.body.messages[0].content, new RegExp(`^\\[A message\\]\\(${EXTERNAL.replace(/\./g, '\\.')}/#narrow/channel/2-Denmark/topic/later/near/${first.body.id}\\)`));
  const html = await call(s, 'hamlet@zulip.com', '127.0.0.1', 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow });
  t.match(html.body.messages[0].content, `<a href="#narrow/channel/2-Denmark/topic/later/near/${first.body.id}">A message</a>`);
});

t.test('the default URL is http://127.0.0.1:<bound port>', async (t) => {
  const s = await startTestServer(t);
  t.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const settings = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: 'localhost:1' });
  t.equal(settings.body.realm_url, s.url, 'the bound port, not the provisional 0 nor the Host');
});

t.test('the deprecated --external-host H still works, as http://H:<port>', async (t) => {
  const s = await startTestServer(t, { externalHost: 'chat.acme.com' });
  const port = new URL(s.url).port;
  const settings = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: '127.0.0.1' });
  t.equal(settings.body.realm_url, `http://chat.acme.com:${port}`);
  await s.server.registry.createRealm('team', 'Team');
  const team = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: `team.chat.acme.com:${port}` });
  t.equal(team.body.realm_url, `http://team.chat.acme.com:${port}`, 'subdomains of the external host select their realm');
});
