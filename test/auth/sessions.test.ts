/**
 * The cookie/CSRF contract (`auth/sessions.ts`; Django's CsrfViewMiddleware as Zulip applies it to
 * `/json`, failure wording from zerver/lib/exceptions.py `CsrfFailureError`).
 */
import t from 'tap';
import {
  checkCsrf,
  csrfCookie,
  expiredSessionCookie,
  newCsrfToken,
  newSessionId,
  parseCookies,
  sessionCookie,
  sessionIdHash,
} from '../../src/auth/sessions.js';
import { safeNext } from '../../src/api/web-pages.js';
import { preferredEncoding } from '../../src/http/static-assets.js';

const URL_ = 'https://chat.example.com';
const TOKEN = 'A'.repeat(32);
const post = (headers: Record<string, string>, body: [string, string][] = []) => checkCsrf({ method: 'POST', headers, body, realmUrl: URL_ });
const reason = (e: ReturnType<typeof checkCsrf>) => (e === null ? null : { status: e.status, code: e.code, msg: e.message, reason: e.data.reason });

t.test('session ids: 32 random bytes, stored as SHA-256', async (t) => {
  const a = newSessionId();
  const b = newSessionId();
  t.equal(Buffer.from(a, 'base64url').length, 32);
  t.not(a, b);
  t.match(sessionIdHash(a), /^[0-9a-f]{64}$/);
  t.equal(sessionIdHash(a), sessionIdHash(a));
  t.not(sessionIdHash(a), sessionIdHash(b));
  t.match(newCsrfToken(), /^[A-Za-z0-9]{32}$/);
});

t.test('cookies: attributes of the contract', async (t) => {
  const session = sessionCookie('abc', { secure: true });
  for (const attr of [/^sessionid=abc;/, /HttpOnly/, /SameSite=Lax/, /Secure/, /Path=\//, /Max-Age=1209600/]) t.match(session, attr);
  t.notMatch(sessionCookie('abc', { secure: false }), /Secure/, 'no Secure for an http realm URL');
  const csrf = csrfCookie(TOKEN, { secure: false });
  t.match(csrf, /^csrftoken=A{32};/);
  t.notMatch(csrf, /HttpOnly/, 'script reads the CSRF cookie');
  t.match(csrf, /SameSite=Lax/);
  t.match(expiredSessionCookie({ secure: false }), /^sessionid=; Max-Age=0/);
  t.same(parseCookies(`a=1; sessionid=xyz; csrftoken=${TOKEN}`), { a: '1', sessionid: 'xyz', csrftoken: TOKEN });
  t.same(parseCookies(undefined), {});
});

t.test('checkCsrf: safe methods pass; unsafe ones need the header or form field equal to the cookie', async (t) => {
  const cookie = `csrftoken=${TOKEN}`;
  t.equal(checkCsrf({ method: 'GET', headers: {}, body: [], realmUrl: URL_ }), null);
  t.equal(checkCsrf({ method: 'HEAD', headers: {}, body: [], realmUrl: URL_ }), null);
  t.equal(post({ cookie, 'x-csrftoken': TOKEN }), null);
  t.equal(post({ cookie }, [['csrfmiddlewaretoken', TOKEN]]), null, 'the form field on POST');
  t.equal(checkCsrf({ method: 'PATCH', headers: { cookie, 'x-csrftoken': TOKEN }, body: [], realmUrl: URL_ }), null);
  t.equal(post({ cookie, 'x-csrftoken': TOKEN, origin: URL_ }), null, 'the realm URL\'s origin');
  t.equal(post({ cookie, 'x-csrftoken': TOKEN, origin: 'http://localhost:9991', host: 'localhost:9991' }), null, 'the origin the request was sent to');
  t.equal(
    reason(checkCsrf({ method: 'POST', headers: { cookie, 'x-csrftoken': TOKEN, origin: 'http://localhost:9991', host: 'localhost:9991' }, body: [], realmUrl: URL_, scheme: 'https' }))!.reason,
    'Origin checking failed - http://localhost:9991 does not match any trusted origins.',
    'scheme matters',
  );

  t.same(reason(post({ 'x-csrftoken': TOKEN })), { status: 403, code: 'CSRF_FAILED', msg: 'CSRF error: CSRF cookie not set.', reason: 'CSRF cookie not set.' });
  t.same(reason(post({ cookie })), { status: 403, code: 'CSRF_FAILED', msg: 'CSRF error: CSRF token missing.', reason: 'CSRF token missing.' });
  t.equal(reason(post({ cookie, 'x-csrftoken': 'B'.repeat(32) }))!.msg, "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
  t.equal(reason(post({ cookie, 'x-csrftoken': 'short' }))!.msg, "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header has incorrect length.");
  t.equal(reason(post({ cookie }, [['csrfmiddlewaretoken', 'B'.repeat(32)]]))!.msg, 'CSRF error: CSRF token from POST incorrect.');
  t.equal(
    reason(post({ cookie, 'x-csrftoken': TOKEN, origin: 'https://evil.example' }))!.msg,
    'CSRF error: Origin checking failed - https://evil.example does not match any trusted origins.',
  );
  t.equal(reason(checkCsrf({ method: 'DELETE', headers: { cookie }, body: [], realmUrl: URL_ }))!.reason, 'CSRF token missing.');
});

t.test('safeNext: only local paths', async (t) => {
  t.equal(safeNext('/#narrow/channel/1'), '/#narrow/channel/1');
  t.equal(safeNext(undefined), '/');
  for (const bad of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/a\nb', '']) t.equal(safeNext(bad), '/', bad);
});

t.test('preferredEncoding: br, then gzip, honouring q=0', async (t) => {
  t.equal(preferredEncoding('gzip, deflate, br'), 'br');
  t.equal(preferredEncoding('gzip'), 'gzip');
  t.equal(preferredEncoding('br;q=0, gzip'), 'gzip');
  t.equal(preferredEncoding('identity'), null);
  t.equal(preferredEncoding(undefined), null);
});
