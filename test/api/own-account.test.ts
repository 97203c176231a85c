/**
 * The caller's own account and devices over HTTP: `DELETE /users/me`
 * (https://zulip.com/api/deactivate-own-user; Zulip's `deactivate_user_own_backend`),
 * `POST /users/me/api_key/regenerate` (Zulip's `regenerate_api_key`), and the push device
 * registrations (https://zulip.com/api/add-apns-token, https://zulip.com/api/add-fcm-token;
 * zerver/views/push_notifications.py): events, errors with nothing changed, the old key refused at
 * once while web sessions stay, and everything surviving a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DEMO_PASSWORD, startTestServer, basicRequest, loginApiKey } from '../support/test-server.js';
import { Browser } from '../support/browser-session.js';
import { verifyAction } from '../support/verify-action.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { startServer } from '../../src/main.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const OK = { result: 'success', msg: '' };


t.test('DELETE /users/me', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');

  t.same((await desdemona.call('DELETE', '/users/me')).body, {
    result: 'error', msg: 'Cannot deactivate the only organization owner.', code: 'CANNOT_DEACTIVATE_LAST_USER', is_last_owner: true, entity: 'organization owner',
  });
  t.equal((await desdemona.call('GET', '/users/me')).body.is_active, true, 'still active');

  const gone = await verifyAction(t, s, iago, {
    action: () => hamlet.call('DELETE', '/users/me'),
    stateChangeExpected: true,
  });
  t.same(gone.actionResult.body, OK);
  t.ok(gone.events.some((e) => e.type === 'realm_user' && e.person.user_id === hamlet.userId && e.person.is_active === false), 'realm_user update is_active=false');
  t.ok(gone.events.some((e) => e.type === 'realm_bot' && e.bot.is_active === false), "hamlet's bot goes with him");
  t.equal((await hamlet.call('GET', '/users/me')).status, 401, 'the account is deactivated');
  t.equal((await iago.call('GET', `/users/${hamlet.userId}`)).body.user.is_active, false);
});

t.test('API key regeneration', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const old = hamlet.apiKey;
  const iago = await s.as('iago@zulip.com');
  // No event to anyone (Zulip sends none for a human); the caller's own queue cannot be polled
  // with the old key afterwards, so another user observes.
  const reply = await verifyAction(t, s, iago, {
    action: () => hamlet.call('POST', '/users/me/api_key/regenerate'),
    numEvents: 0,
    stateChangeExpected: false,
  });
  const key = reply.actionResult.body.api_key as string;
  t.match(key, /^[A-Za-z0-9]{32}$/);
  t.not(key, old);
  const before = await basicRequest(s.url, hamlet.email, old, 'GET', '/users/me');
  t.equal(before.status, 401, 'the old key stops working at once');
  t.equal((await basicRequest(s.url, hamlet.email, key, 'GET', '/users/me')).body.user_id, hamlet.userId, 'the new key works');
  // A web session opened before the regeneration keeps working (Zulip: sessions are separate).
  const browser = new Browser(s.url);
  t.equal((await browser.logIn(hamlet.email, DEMO_PASSWORD)).status, 302);
  const fromBrowser = await browser.json('POST', 'users/me/api_key/regenerate');
  const key2 = fromBrowser.json!.api_key as string;
  t.equal(fromBrowser.status, 200, 'the browser app may regenerate too');
  t.equal((await browser.json('GET', 'users/me')).json!.user_id, hamlet.userId, 'the session survives a regeneration');
  t.equal((await basicRequest(s.url, hamlet.email, key, 'GET', '/users/me')).status, 401, 'the previous key is refused in turn');
  // Bots may not (Zulip's human_users_only).
  const bot = (await basicRequest(s.url, hamlet.email, key2, 'POST', '/bots', { full_name: 'Key Bot', short_name: 'keybot' })).body;
  t.equal(bot.result, 'success');
  const botEmail = (await iago.call('GET', `/users/${bot.user_id}`)).body.user.email as string;
  t.same((await basicRequest(s.url, botEmail, bot.api_key, 'POST', '/users/me/api_key/regenerate')).body, bad('This endpoint does not accept bot requests.'));
  t.equal((await basicRequest(s.url, botEmail, bot.api_key, 'GET', '/users/me')).status, 200, "the bot's key is unchanged");
});

t.test('push device registration', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const apns = 'c0ffee00'.repeat(8);
  t.same((await hamlet.call('POST', '/users/me/apns_device_token', { token: apns, appid: 'org.zulip.Zulip' })).body, OK);
  t.same((await hamlet.call('POST', '/users/me/apns_device_token', { token: apns, appid: 'org.zulip.Zulip' })).body, OK, 'registering again is fine');
  t.same((await hamlet.call('POST', '/users/me/android_gcm_reg_id', { token: 'fcm-registration-id:1' })).body, OK);

  t.same((await hamlet.call('POST', '/users/me/apns_device_token', { token: apns, appid: 'bad app id!' })).body, bad('Invalid app ID'));
  t.same((await hamlet.call('POST', '/users/me/apns_device_token', { token: apns })).body, {
    result: 'error', msg: "Missing 'appid' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'appid',
  });
  t.same((await hamlet.call('POST', '/users/me/apns_device_token', { token: '', appid: 'org.zulip.Zulip' })).body, bad('Empty or invalid length token'));
  t.same((await hamlet.call('POST', '/users/me/android_gcm_reg_id', { token: 'x'.repeat(4097) })).body, bad('Empty or invalid length token'));
  t.same((await hamlet.call('POST', '/users/me/apns_device_token', { token: 'abcde', appid: 'org.zulip.Zulip' })).body, bad('Invalid APNS token'));
  t.same((await hamlet.call('DELETE', '/users/me/apns_device_token', { token: 'ffff' })).body, bad('Token does not exist'));
  t.same((await hamlet.call('DELETE', '/users/me/android_gcm_reg_id', { token: apns })).body, bad('Token does not exist'), 'kinds are separate');

  t.same((await hamlet.call('DELETE', '/users/me/apns_device_token', { token: apns })).body, OK);
  t.same((await hamlet.call('DELETE', '/users/me/apns_device_token', { token: apns })).body, bad('Token does not exist'), 'gone');
});

t.test('muted users, alert words, snippets, devices and a new API key survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-personal-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: 'personal-pw', rateLimits: false };
  const first = await startServer(config);
  const oldKey = await loginApiKey(first.url, 'hamlet@zulip.com', 'personal-pw');
  const email = 'hamlet@zulip.com';
  const call = (url: string, key: string, method: string, path: string, params?: Record<string, unknown>) => basicRequest(url, email, key, method, path, params);
  t.equal((await call(first.url, oldKey, 'POST', '/users/me/muted_users/5')).body.result, 'success');
  t.equal((await call(first.url, oldKey, 'POST', '/users/me/alert_words', { alert_words: ['castle'] })).body.result, 'success');
  t.equal((await call(first.url, oldKey, 'POST', '/saved_snippets', { title: 'Hi', content: 'Hello there' })).body.result, 'success');
  t.equal((await call(first.url, oldKey, 'POST', '/users/me/android_gcm_reg_id', { token: 'fcm-1' })).body.result, 'success');
  const key = (await call(first.url, oldKey, 'POST', '/users/me/api_key/regenerate')).body.api_key as string;
  const types = ['muted_users', 'alert_words', 'saved_snippets'];
  const before = (await call(first.url, key, 'POST', '/register', { fetch_event_types: types })).body;
  await first.close();

  const second = await startServer(config);
  t.teardown(() => second.close());
  t.equal((await call(second.url, oldKey, 'GET', '/users/me')).status, 401, 'the old key stays refused');
  const after = (await call(second.url, key, 'POST', '/register', { fetch_event_types: types })).body;
  for (const k of types) t.same(after[k], before[k], `${k} after the restart`);
  t.equal(after.muted_users.length, 1);
  t.same(after.alert_words, ['castle']);
  t.same((await call(second.url, key, 'DELETE', '/users/me/android_gcm_reg_id', { token: 'fcm-1' })).body, bad('Token does not exist'), 'regenerating the key dropped the devices');
  t.same((await call(second.url, key, 'POST', '/users/me/android_gcm_reg_id', { token: 'fcm-2' })).body, OK);
  t.same((await call(second.url, key, 'POST', '/saved_snippets', { title: 'b', content: 'c' })).body.saved_snippet_id, 2, 'the snippet id counter was restored');
});
