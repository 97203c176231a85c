/**
 * `/json/<path>`: every `/api/v1` endpoint for the browser app, by session cookie and Zulip's CSRF
 * check (zerver/lib/rest.py `rest_dispatch`, zerver/middleware.py `csrf_failure`), over real HTTP:
 * 401 without a session, 403 CSRF_FAILED without the token (nothing changed), the API key never
 * sent, the password change of `PATCH /settings`, deactivation, and the event socket by cookie.
 */
import t from 'tap';
import WebSocket from 'ws';
import { startTestServer, DEMO_PASSWORD, type TestServer } from '../support/test-server.js';
import { Browser } from '../support/browser-session.js';

const realmOf = (s: TestServer) => s.server.registry.bySubdomainName('')!;

async function loggedIn(s: TestServer, email: string, password = DEMO_PASSWORD): Promise<Browser> {
  const b = new Browser(s.url);
  const res = await b.logIn(email, password);
  if (res.status !== 302) throw new Error(`login of ${email} failed: ${res.status} ${res.text}`);
  return b;
}

t.test('/json: 401 without a session (no Basic challenge); Basic is not accepted there, nor cookies on /api/v1', async (t) => {
  const s = await startTestServer(t);
  const anon = await fetch(`${s.url}/json/users/me`);
  t.equal(anon.status, 401);
  t.same(await anon.json(), { result: 'error', msg: 'Not logged in: API authentication or user session required', code: 'UNAUTHORIZED' });
  t.equal(anon.headers.get('www-authenticate'), 'Session realm="zulip"', "Zulip's session challenge: no browser password dialog");
  const hamlet = await s.as('hamlet@zulip.com');
  const basic = 'Basic ' + Buffer.from(`hamlet@zulip.com:${hamlet.apiKey}`).toString('base64');
  t.equal((await fetch(`${s.url}/json/users/me`, { headers: { Authorization: basic } })).status, 401, 'no API key on /json');
  const b = await loggedIn(s, 'hamlet@zulip.com');
  const api = await fetch(`${s.url}/api/v1/users/me`, { headers: { Cookie: b.cookieHeader() } });
  t.equal(api.status, 401, 'no session on /api/v1');
  t.equal(api.headers.get('www-authenticate'), 'Basic realm="zulip"');
  t.equal((await fetch(`${s.url}/json/nope`)).status, 404);
  t.equal((await fetch(`${s.url}/json/server_settings`)).status, 200, 'unauthenticated endpoints are served');
});

t.test('/json: unsafe methods need X-CSRFToken = csrftoken cookie; a refused write changes nothing', async (t) => {
  const s = await startTestServer(t);
  const b = await loggedIn(s, 'hamlet@zulip.com');
  const realm = realmOf(s);
  const before = realm.state.nextIds.message;
  const send = { type: 'stream', to: 'Verona', topic: 'csrf', content: 'hello' };
  const cases: Array<[string, Record<string, string>, string]> = [
    ['an empty header', { 'X-CSRFToken': '' }, "CSRF token from the 'X-Csrftoken' HTTP header has incorrect length."],
    ['wrong token', { 'X-CSRFToken': 'Z'.repeat(32) }, "CSRF token from the 'X-Csrftoken' HTTP header incorrect."],
    ['another origin', { Origin: 'http://evil.example' }, 'Origin checking failed - http://evil.example does not match any trusted origins.'],
  ];
  for (const [what, headers, reason] of cases) {
    const r = await b.json('POST', 'messages', send, headers);
    t.equal(r.status, 403, what);
    t.same(r.json, { result: 'error', msg: `CSRF error: ${reason}`, code: 'CSRF_FAILED', reason }, what);
  }
  const noHeader = await b.fetch('POST', '/json/messages', { form: send });
  t.equal(noHeader.json?.reason, 'CSRF token missing.', 'the header absent altogether');
  t.equal(realm.state.nextIds.message, before, 'no message was sent');

  const sent = await b.json('POST', 'messages', send);
  t.equal(sent.status, 200, JSON.stringify(sent.json));
  t.equal(sent.json?.ignored_parameters_unsupported, undefined);
  const withField = await b.json('POST', 'messages', { ...send, csrfmiddlewaretoken: b.csrf() }, { 'X-CSRFToken': '' });
  t.equal(withField.status, 200, 'the form field works too and is not reported as ignored');
  t.equal(withField.json?.ignored_parameters_unsupported, undefined);
  const got = await b.json('GET', `messages/${sent.json!.id}`);
  t.equal(got.status, 200, 'GET needs no token');
  t.equal(got.json?.message.client, 'website', 'browser requests are recorded as client "website"');
  t.equal(got.json?.message.sender_email, 'hamlet@zulip.com');
});

t.test('the API key never reaches the browser', async (t) => {
  const s = await startTestServer(t);
  const b = await loggedIn(s, 'hamlet@zulip.com');
  const key = realmOf(s).state.users.get(realmOf(s).state.usersByEmail.get('hamlet@zulip.com')!)!.apiKey;
  const reg = await b.json('POST', 'register', {});
  t.equal(reg.status, 200);
  t.notOk(reg.text.includes(key), 'not in POST /json/register');
  t.notOk((await b.json('GET', 'users/me')).text.includes(key), 'not in GET /json/users/me');
  const fetched = await b.json('POST', 'fetch_api_key', { username: 'hamlet@zulip.com', password: DEMO_PASSWORD });
  t.equal(fetched.status, 404, '/json/fetch_api_key does not exist');
  t.notOk(fetched.text.includes(key));
  for (const c of [...b.cookies.values()]) t.not(c, key, 'no cookie holds it');
});

t.test('PATCH /json/settings: password change as Zulip, other sessions end, this one stays', async (t) => {
  const s = await startTestServer(t);
  const here = await loggedIn(s, 'cordelia@zulip.com');
  const elsewhere = await loggedIn(s, 'cordelia@zulip.com');
  const aaron = await loggedIn(s, 'aaron@zulip.com');
  const realm = realmOf(s);
  const hashBefore = realm.state.users.get(realm.state.usersByEmail.get('cordelia@zulip.com')!)!.passwordHash;

  const wrong = await here.json('PATCH', 'settings', { old_password: 'nope', new_password: 'a-much-better-secret-41' });
  t.same(wrong.json, { result: 'error', msg: 'Wrong password!', code: 'BAD_REQUEST' });
  const missing = await here.json('PATCH', 'settings', { new_password: 'a-much-better-secret-41' });
  t.equal(missing.json?.msg, 'Wrong password!', 'old_password is required');
  const weak = await here.json('PATCH', 'settings', { old_password: DEMO_PASSWORD, new_password: 'password1' });
  t.same(weak.json, { result: 'error', msg: 'New password is too weak!', code: 'BAD_REQUEST' });
  const noToken = await here.json('PATCH', 'settings', { old_password: DEMO_PASSWORD, new_password: 'a-much-better-secret-41' }, { 'X-CSRFToken': '' });
  t.equal(noToken.status, 403);
  t.equal(realm.state.users.get(realm.state.usersByEmail.get('cordelia@zulip.com')!)!.passwordHash, hashBefore, 'unchanged after the errors');
  t.equal((await elsewhere.json('GET', 'users/me')).status, 200, 'the other session still works');

  const changed = await here.json('PATCH', 'settings', { old_password: DEMO_PASSWORD, new_password: 'a-much-better-secret-41', full_name: 'Cordelia L.' });
  t.equal(changed.status, 200, JSON.stringify(changed.json));
  t.equal((await here.json('GET', 'users/me')).json?.full_name, 'Cordelia L.', 'this session stays; other settings applied too');
  t.equal((await elsewhere.json('GET', 'users/me')).status, 401, "the user's other session ended");
  t.equal((await aaron.json('GET', 'users/me')).status, 200, "another user's session is untouched");
  t.equal((await s.request('POST', '/fetch_api_key', { params: { username: 'cordelia@zulip.com', password: DEMO_PASSWORD } })).status, 401, 'old password refused');
  t.equal((await s.request('POST', '/fetch_api_key', { params: { username: 'cordelia@zulip.com', password: 'a-much-better-secret-41' } })).status, 200, 'new password works');

  // From /api/v1 (no session), every web session of the user ends.
  const cordelia = await s.as('cordelia@zulip.com').catch(() => null);
  t.equal(cordelia, null, 'the demo password is gone');
  const key = (await s.request('POST', '/fetch_api_key', { params: { username: 'cordelia@zulip.com', password: 'a-much-better-secret-41' } })).body.api_key;
  const api = await fetch(`${s.url}/api/v1/settings`, {
    method: 'PATCH',
    headers: { Authorization: 'Basic ' + Buffer.from(`cordelia@zulip.com:${key}`).toString('base64'), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ old_password: 'a-much-better-secret-41', new_password: 'yet-another-fine-secret-7' }),
  });
  t.equal(api.status, 200);
  t.equal((await here.json('GET', 'users/me')).status, 401, 'a change through the API ends every web session');
});

t.test('deactivating a user ends their sessions', async (t) => {
  const s = await startTestServer(t);
  const othello = await loggedIn(s, 'othello@zulip.com');
  const iago = await loggedIn(s, 'iago@zulip.com');
  const id = realmOf(s).state.usersByEmail.get('othello@zulip.com')!;
  t.equal((await iago.json('DELETE', `users/${id}`)).status, 200);
  t.equal((await othello.json('GET', 'users/me')).status, 401);
  t.equal((await othello.fetch('GET', '/')).status, 302, 'back to the login page');
  t.equal((await new Browser(s.url).logIn('othello@zulip.com', DEMO_PASSWORD)).status, 200, 'and cannot log in again');
});

/** Opens a socket with `headers`; resolves with the first frame after subscribing, or the refusal status. */
function openSocket(url: string, path: string, headers: Record<string, string>, subscribe?: { queue_id: string }): Promise<{ status: number; frame?: Record<string, any>; body?: Record<string, any> }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('socket timed out')), 20_000);
    ws.on('open', () => {
      if (subscribe === undefined) {
        clearTimeout(timer);
        ws.close();
        return resolve({ status: 101 });
      }
      ws.send(JSON.stringify({ op: 'subscribe', queue_id: subscribe.queue_id, last_event_id: -1 }));
    });
    ws.on('message', (data) => {
      clearTimeout(timer);
      ws.close();
      resolve({ status: 101, frame: JSON.parse(String(data)) });
    });
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) });
      });
    });
  });
}

t.test('the event socket accepts the session cookie from the realm\'s own origin', async (t) => {
  const s = await startTestServer(t);
  const b = await loggedIn(s, 'hamlet@zulip.com');
  const reg = await b.json('POST', 'register', { event_types: ['message'] });
  const queueId = reg.json!.queue_id as string;
  const origin = new URL(s.url).origin;
  for (const path of ['/json/events/socket', '/api/v1/events/socket']) {
    const ok = await openSocket(s.url, path, { Cookie: b.cookieHeader(), Origin: origin }, { queue_id: queueId });
    t.equal(ok.frame?.type, 'subscribed', `${path}: subscribed by cookie`);
    t.equal(ok.frame?.queue_id, queueId);
  }
  const foreign = await openSocket(s.url, '/json/events/socket', { Cookie: b.cookieHeader(), Origin: 'http://evil.example' });
  t.equal(foreign.status, 403, 'cross-site socket hijacking refused');
  t.equal(foreign.body?.code, 'CSRF_FAILED');
  const anon = await openSocket(s.url, '/json/events/socket', { Origin: origin, Cookie: 'sessionid=nope' });
  t.equal(anon.status, 401);
  t.equal(anon.body?.code, 'UNAUTHORIZED');
});
