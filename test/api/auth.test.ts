/**
 * POST /fetch_api_key, Basic auth on /api/v1, GET /server_settings
 * (https://zulip.com/api/http-headers, https://zulip.com/api/fetch-api-key).
 */
import t from 'tap';
import { DEMO_PASSWORD, formEncode, rawRequest, startTestServer } from '../support/test-server.js';
import { ZULIP_FEATURE_LEVEL } from '../../src/version.js';

t.test('fetch_api_key', async (t) => {
  const s = await startTestServer(t);
  const ok = await s.request('POST', '/fetch_api_key', { params: { username: 'Hamlet@Zulip.com', password: DEMO_PASSWORD } });
  t.equal(ok.status, 200);
  t.match(ok.body, { result: 'success', msg: '', email: 'hamlet@zulip.com' });
  t.match(ok.body.api_key, /^[A-Za-z0-9]{32}$/);
  t.type(ok.body.user_id, 'number');

  const wrong = await s.request('POST', '/fetch_api_key', { params: { username: 'hamlet@zulip.com', password: 'nope' } });
  t.equal(wrong.status, 401);
  t.same(wrong.body, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
  t.equal(wrong.headers.get('www-authenticate'), null, 'no WWW-Authenticate on fetch_api_key');
  const unknown = await s.request('POST', '/fetch_api_key', { params: { username: 'ghost@zulip.com', password: 'x' } });
  t.same(unknown.body, wrong.body, 'unknown user looks like a wrong password');
  const notEmail = await s.request('POST', '/fetch_api_key', { params: { username: 'hamlet', password: 'x' } });
  t.same(notEmail.body, { result: 'error', msg: 'Enter a valid email address.', code: 'BAD_REQUEST' });
  const missing = await s.request('POST', '/fetch_api_key', { params: { username: 'hamlet@zulip.com' } });
  t.same(missing.body, { result: 'error', msg: "Missing 'password' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'password' });
  const bot = await s.request('POST', '/fetch_api_key', { params: { username: 'default-bot@zulip.com', password: DEMO_PASSWORD } });
  t.equal(bot.body.code, 'AUTHENTICATION_FAILED', 'bots have no password');
});

t.test('fetch_api_key rate limit: 5 failures per username', async (t) => {
  const s = await startTestServer(t);
  const attempt = (password: string) => s.request('POST', '/fetch_api_key', { params: { username: 'cordelia@zulip.com', password } });
  for (let i = 0; i < 5; i++) t.equal((await attempt('bad')).status, 401);
  const limited = await attempt(DEMO_PASSWORD);
  t.equal(limited.status, 429);
  t.equal(limited.body.code, 'RATE_LIMIT_HIT');
  t.equal(limited.body.msg, 'API usage exceeded rate limit');
  t.type(limited.body['retry-after'], 'number');
  t.ok(limited.headers.get('retry-after'));
  t.equal((await s.request('POST', '/fetch_api_key', { params: { username: 'aaron@zulip.com', password: DEMO_PASSWORD } })).status, 200, 'other usernames unaffected');
});

t.test('Basic auth errors are 401 UNAUTHORIZED with WWW-Authenticate', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const basic = (cred: string) => ({ Authorization: 'Basic ' + Buffer.from(cred).toString('base64') });
  const none = await s.request('GET', '/users/me');
  t.equal(none.status, 401);
  t.same(none.body, { result: 'error', msg: 'Not logged in: API authentication or user session required', code: 'UNAUTHORIZED' });
  t.equal(none.headers.get('www-authenticate'), 'Basic realm="zulip"');
  const cases: Array<[string, Record<string, string>, string]> = [
    ['malformed key', basic('hamlet@zulip.com:short'), 'Malformed API key'],
    ['wrong key', basic(`hamlet@zulip.com:${'x'.repeat(32)}`), 'Invalid API key'],
    ['key of another user', basic(`othello@zulip.com:${hamlet.apiKey}`), 'Invalid API key'],
    ['no colon', { Authorization: 'Basic ' + Buffer.from('nocolon').toString('base64') }, 'Invalid authorization header for basic auth'],
  ];
  for (const [name, headers, msg] of cases) {
    const r = await s.request('GET', '/users/me', { headers });
    t.equal(r.status, 401, name);
    t.same(r.body, { result: 'error', msg, code: 'UNAUTHORIZED' }, name);
    t.equal(r.headers.get('www-authenticate'), 'Basic realm="zulip"', name);
  }
  const ok = await s.request('GET', '/users/me', { headers: basic(`HAMLET@zulip.com:${hamlet.apiKey}`) });
  t.equal(ok.status, 200, 'email matched case-insensitively');
  const bearer = await s.request('GET', '/users/me', { headers: { Authorization: 'Bearer abc' } });
  t.equal(bearer.status, 400);
  t.equal(bearer.body.msg, 'This endpoint requires HTTP basic authentication.');
});

t.test('server_settings ignores credentials and reports the realm', async (t) => {
  const s = await startTestServer(t);
  const r = await s.request('GET', '/server_settings', { headers: { Authorization: 'Basic garbage' } });
  t.equal(r.status, 200);
  t.match(r.body, {
    result: 'success',
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    push_notifications_enabled: false,
    is_incompatible: false,
    email_auth_enabled: true,
    require_email_format_usernames: true,
    realm_name: 'Zulip Dev',
    realm_uri: s.url.replace('http://', 'http://'),
  });
  t.type(r.body.zulip_version, 'string');
  t.equal(r.body.authentication_methods.password, true);
});

t.test('unknown subdomain realm', async (t) => {
  const s = await startTestServer(t);
  const form = formEncode({ username: 'hamlet@zulip.com', password: DEMO_PASSWORD });
  const headers = { Host: 'nowhere.localhost', 'Content-Type': 'application/x-www-form-urlencoded' };
  const r = await rawRequest(s.url, 'POST', '/api/v1/fetch_api_key', headers, form);
  t.equal(r.status, 404);
  t.same(r.body, { result: 'error', msg: 'Invalid subdomain', code: 'NONEXISTENT_SUBDOMAIN' });
  const www = await rawRequest(s.url, 'POST', '/api/v1/fetch_api_key', { ...headers, Host: 'www.localhost:9991' }, form);
  t.equal(www.status, 200, 'www is an alias of the root realm');
  const settings = await rawRequest(s.url, 'GET', '/api/v1/server_settings', { Host: 'nowhere.localhost' });
  t.equal(settings.status, 400);
  t.same(settings.body, { result: 'error', msg: 'Invalid subdomain', code: 'BAD_REQUEST' });
});
