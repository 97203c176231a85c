/**
 * The browser's way in over real HTTP (Zulip's zerver/views/auth.py `login_page`, `logout_view`):
 * the login page and its security headers, the CSRF-checked login and logout forms, session and
 * CSRF cookies, `next`, the login rate limit, `GET /` and the built app's `/static/` files.
 */
import t from 'tap';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { get as httpGet } from 'node:http';
import { startTestServer, DEMO_PASSWORD, type TestServer } from '../support/test-server.js';
import { Browser } from '../support/browser-session.js';

const sessionCount = (s: TestServer) => s.server.registry.bySubdomainName('')!.state.sessions?.size ?? 0;

t.test('GET /login/: a script-free form with the CSRF token, strict security headers', async (t) => {
  const s = await startTestServer(t);
  const b = new Browser(s.url);
  const page = await b.fetch('GET', '/login/');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.match(page.headers.get('content-security-policy'), /default-src 'self'/);
  t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.notMatch(page.headers.get('content-security-policy'), /script-src[^;]*unsafe-inline/, 'no inline script allowed');
  t.equal(page.headers.get('x-frame-options'), 'DENY');
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');
  t.notMatch(page.text, /<script/i, 'no script at all');
  t.match(page.text, /<label for="id_username">Email<\/label><input id="id_username" name="username"/);
  t.match(page.text, /<label for="id_password">Password<\/label><input id="id_password" name="password" type="password"/);
  t.match(page.text, /<button type="submit">Log in<\/button>/);
  t.match(page.text, /<form method="post" action="\/accounts\/login\/">/);
  const token = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(page.text)?.[1];
  t.match(token, /^[A-Za-z0-9]{32}$/);
  t.equal(b.csrf(), token, 'the hidden field equals the csrftoken cookie');
  const again = await b.fetch('GET', '/login/');
  t.same(again.headers.getSetCookie(), [], 'an existing CSRF cookie is kept');
  t.equal((await b.fetch('POST', '/login/')).status, 405);
  t.match((await b.fetch('GET', '/accounts/login/')).text, /<button type="submit">Log in<\/button>/, 'GET /accounts/login/ shows the form too');
  t.equal((await b.fetch('PUT', '/accounts/login/')).status, 405);
});

t.test('POST /accounts/login/: CSRF, wrong password, success with cookies and next', async (t) => {
  const s = await startTestServer(t);
  const b = new Browser(s.url);
  await b.fetch('GET', '/login/');

  const noToken = await b.fetch('POST', '/accounts/login/', { form: { username: 'hamlet@zulip.com', password: DEMO_PASSWORD } });
  t.equal(noToken.status, 403, 'no csrfmiddlewaretoken');
  t.match(noToken.text, /CSRF verification failed\. Request aborted\./);
  const noCookie = await new Browser(s.url).fetch('POST', '/accounts/login/', { form: { csrfmiddlewaretoken: b.csrf(), username: 'hamlet@zulip.com', password: DEMO_PASSWORD } });
  t.equal(noCookie.status, 403, 'a token without the cookie (a cross-site form)');
  t.equal(sessionCount(s), 0, 'no session after a CSRF failure');

  const wrong = await b.logIn('hamlet@zulip.com', 'not the password');
  t.equal(wrong.status, 200, 'the form again');
  t.match(wrong.text, /role="alert">Please enter a correct email and password/);
  t.match(wrong.text, /value="hamlet@zulip\.com"/, 'the email is kept');
  t.notOk(b.cookies.has('sessionid'));
  t.equal((await b.logIn('default-bot@zulip.com', 'x')).status, 200, 'a bot cannot log in');
  t.equal(sessionCount(s), 0);

  const oldCsrf = b.csrf();
  const ok = await b.logIn('Hamlet@Zulip.com', DEMO_PASSWORD);
  t.equal(ok.status, 302);
  t.equal(ok.headers.get('location'), '/');
  const cookies = ok.headers.getSetCookie();
  const session = cookies.find((c) => c.startsWith('sessionid='))!;
  t.match(session, /HttpOnly/);
  t.match(session, /SameSite=Lax/);
  t.match(session, /Path=\//);
  t.notMatch(session, /Secure/, 'http realm URL: no Secure');
  t.match(b.cookies.get('sessionid'), /^[A-Za-z0-9_-]{43}$/, '32 random bytes');
  t.not(b.csrf(), oldCsrf, 'the CSRF token is rotated at login');
  t.equal(sessionCount(s), 1);
  const stored = [...s.server.registry.bySubdomainName('')!.state.sessions!.keys()][0];
  t.not(stored, b.cookies.get('sessionid'), 'only a hash of the id is stored');

  t.equal((await b.fetch('GET', '/login/')).status, 302, 'the login page sends a logged-in user to the app');
  const me = await b.json('GET', 'users/me');
  t.equal(me.json?.email, 'hamlet@zulip.com');

  const next = await new Browser(s.url).logIn('othello@zulip.com', DEMO_PASSWORD, '/#narrow/channel/1-Verona');
  t.equal(next.headers.get('location'), '/#narrow/channel/1-Verona', 'a local next');
  const evil = await new Browser(s.url).logIn('othello@zulip.com', DEMO_PASSWORD, '//evil.example/');
  t.equal(evil.headers.get('location'), '/', 'an off-site next is ignored');
});

t.test('login attempts are rate-limited per username (authenticate_by_username: 5 per 30 minutes)', async (t) => {
  const s = await startTestServer(t);
  const b = new Browser(s.url);
  for (let i = 0; i < 5; i++) t.equal((await b.logIn('prospero@zulip.com', `wrong-${i}`)).status, 200);
  const limited = await b.logIn('prospero@zulip.com', DEMO_PASSWORD);
  t.equal(limited.status, 429, 'even the right password is refused now');
  t.match(limited.text, /too many attempts/);
  t.notOk(b.cookies.has('sessionid'));
});

t.test('POST /accounts/logout/ (CSRF checked) ends the session; GET / needs one', async (t) => {
  const s = await startTestServer(t);
  const b = new Browser(s.url);
  const root = await b.fetch('GET', '/');
  t.equal(root.status, 302);
  t.equal(root.headers.get('location'), '/login/');
  await b.logIn('iago@zulip.com', DEMO_PASSWORD);
  const app = await b.fetch('GET', '/');
  t.equal(app.status, 200, 'the app shell');
  t.match(app.headers.get('content-security-policy'), /default-src 'self'/);
  t.equal(app.headers.get('x-frame-options'), 'DENY');

  const forged = await b.fetch('POST', '/accounts/logout/');
  t.equal(forged.status, 403, 'logout without the token is refused');
  t.equal((await b.json('GET', 'users/me')).status, 200, 'still logged in');
  t.equal((await b.fetch('GET', '/accounts/logout/')).status, 405);

  const out = await b.fetch('POST', '/accounts/logout/', { headers: { 'X-CSRFToken': b.csrf() } });
  t.equal(out.status, 302);
  t.equal(out.headers.get('location'), '/login/');
  t.match(out.headers.getSetCookie().join('\n'), /sessionid=; Max-Age=0/);
  t.equal(sessionCount(s), 0, 'the session is deleted on the server');
  t.equal((await b.fetch('GET', '/')).status, 302);
  // A copy of the old cookie (a stolen one) does not work either.
  const stolen = new Browser(s.url);
  stolen.cookies.set('sessionid', 'x'.repeat(43));
  t.equal((await stolen.json('GET', 'users/me')).status, 401);
});

t.test('GET / serves the built shell; /static/ serves hashed assets compressed and cached for a year', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-webapp-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const js = `console.log(${JSON.stringify('x'.repeat(5000))});\n`;
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>shell</title><script type="module" src="/static/app-abc123.js"></script>');
  writeFileSync(join(dir, 'app-abc123.js'), js);
  writeFileSync(join(dir, 'font-x-1.woff2'), Buffer.from([1, 2, 3]));
  writeFileSync(join(dir, '.hidden'), 'secret');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'a.css'), 'body{}');
  const s = await startTestServer(t, {}, { webappDir: dir });
  const b = new Browser(s.url);
  await b.logIn('hamlet@zulip.com', DEMO_PASSWORD);
  const shell = await b.fetch('GET', '/');
  t.equal(shell.text, '<!doctype html><title>shell</title><script type="module" src="/static/app-abc123.js"></script>');
  t.match(shell.headers.get('cache-control'), /no-store/, 'the shell is never cached');

  const get = (path: string, encoding?: string) => fetch(`${s.url}${path}`, encoding === undefined ? {} : { headers: { 'Accept-Encoding': encoding } });
  const br = await get('/static/app-abc123.js', 'gzip, deflate, br');
  t.equal(br.status, 200);
  t.match(br.headers.get('content-type'), /^(application|text)\/javascript/);
  t.equal(br.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.equal(br.headers.get('content-encoding'), 'br');
  t.equal(br.headers.get('vary'), 'Accept-Encoding');
  // fetch decodes transparently: read the bytes on the wire through node:http.
  const wire = (encoding: string) =>
    new Promise<{ enc: string | undefined; body: Buffer }>((resolve, reject) => {
      httpGet(`${s.url}/static/app-abc123.js`, { headers: { 'Accept-Encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
  const gz = await wire('gzip');
  t.equal(gz.enc, 'gzip');
  t.ok(gz.body.length < js.length / 10, 'compressed on the wire');
  t.equal(gunzipSync(gz.body).toString(), js, 'and decodes to the file');
  const brotli = await wire('br');
  t.equal(brotli.enc, 'br');
  t.equal(brotliDecompressSync(brotli.body).toString(), js);
  t.equal(await (await get('/static/app-abc123.js')).text(), js, 'identity without Accept-Encoding');
  const font = await get('/static/font-x-1.woff2', 'gzip');
  t.equal(font.headers.get('content-type'), 'font/woff2');
  t.equal(font.headers.get('content-encoding'), null, 'already-compressed types are sent as they are');
  t.equal((await get('/static/sub/a.css')).headers.get('content-type'), 'text/css; charset=utf-8');
  for (const bad of ['/static/index.html', '/static/.hidden', '/static/../package.json', '/static/%2e%2e/package.json', '/static/nope.js', '/static/sub/../.hidden']) {
    const res = await get(bad);
    t.equal(res.status, 404, bad);
    t.equal((await res.json()).code, 'NOT_FOUND');
  }
  t.equal((await fetch(`${s.url}/static/app-abc123.js`, { method: 'POST' })).status, 405);
});
