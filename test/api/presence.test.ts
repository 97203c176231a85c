/**
 * Presence over HTTP (https://zulip.com/api/get-presence): `POST /users/me/presence` with
 * every parameter and error, `GET /realm/presence`, `GET /users/{id|email}/presence`, the
 * `presence` event through `verifyAction` (legacy and slim queues), `/register` state with
 * `presence_last_update_id`, pings never touching the durable log, and persistence across a
 * graceful restart. Time-dependent rules are in test/domain/presence.test.ts (pinned clock).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type Caller, type TestServer, basicCall, loginApiKey } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { startServer } from '../../src/main.js';
import { DEFAULT_CONFIG } from '../../src/config.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

/** The demo's generic bot (API key only, no password). */
function botCaller(s: TestServer): Caller {
  const bot = [...s.server.registry.all()[0]!.state.users.values()].find((u) => u.isBot)!;
  const auth = 'Basic ' + Buffer.from(`${bot.email}:${bot.apiKey}`).toString('base64');
  return { email: bot.email, apiKey: bot.apiKey, userId: bot.id, call: (method, path, params) => s.request(method, path, { params: params ?? {}, headers: { Authorization: auth } }) };
}

t.test('POST /users/me/presence: parameters, formats, errors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const bot = botCaller(s);

  t.same((await hamlet.call('POST', '/users/me/presence', {})).body, { result: 'error', msg: 'Missing \'status\' argument', code: 'REQUEST_VARIABLE_MISSING', var_name: 'status' });
  t.same((await hamlet.call('POST', '/users/me/presence', { status: 'away' })).body, bad('Invalid status: away'));
  t.same((await bot.call('POST', '/users/me/presence', { status: 'active' })).body, bad('This endpoint does not accept bot requests.'));

  const first = await hamlet.call('POST', '/users/me/presence', { status: 'active', new_user_input: true });
  t.equal(first.status, 200);
  const ts = first.body.presences['hamlet@zulip.com'].website.timestamp;
  t.same(first.body.presences, {
    'hamlet@zulip.com': {
      aggregated: { client: 'website', status: 'active', timestamp: ts },
      website: { client: 'website', status: 'active', timestamp: ts, pushable: false },
    },
  }, 'legacy format keyed by email');
  t.type(first.body.server_timestamp, 'number');
  t.ok(Math.abs(first.body.server_timestamp - Date.now() / 1000) < 5);
  t.equal(first.body.presence_last_update_id, 0);

  const ping = await othello.call('POST', '/users/me/presence', { status: 'idle', ping_only: true });
  t.same(ping.body, { result: 'success', msg: '' }, 'ping_only: no presences');

  const slim = await othello.call('POST', '/users/me/presence', { status: 'active', slim_presence: true });
  t.same(Object.keys(slim.body.presences).sort(), [String(hamlet.userId), String(othello.userId)], 'slim: keyed by user id');
  t.same(Object.keys(slim.body.presences[String(hamlet.userId)]).sort(), ['active_timestamp', 'idle_timestamp']);
  const since = slim.body.presence_last_update_id;
  t.ok(since >= 1);

  const none = await hamlet.call('POST', '/users/me/presence', { status: 'active', last_update_id: since });
  t.same(none.body.presences, {}, 'last_update_id: nothing changed since');
  t.equal(none.body.presence_last_update_id, since);
  const all = await hamlet.call('POST', '/users/me/presence', { status: 'active', last_update_id: -1 });
  t.same(Object.keys(all.body.presences).sort(), ['hamlet@zulip.com', 'othello@zulip.com']);
  t.same((await hamlet.call('POST', '/users/me/presence', { status: 'active', ping_only: 'yes' })).body.code, 'BAD_REQUEST');
});

t.test('GET /realm/presence and GET /users/{id|email}/presence', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const bot = botCaller(s);
  t.same((await othello.call('GET', '/realm/presence')).body.presences, {}, 'nobody reported yet');
  await hamlet.call('POST', '/users/me/presence', { status: 'active' });
  const realm = (await othello.call('GET', '/realm/presence')).body;
  const ts = realm.presences['hamlet@zulip.com'].aggregated.timestamp;
  t.same(realm.presences, {
    'hamlet@zulip.com': {
      aggregated: { client: 'website', status: 'active', timestamp: ts },
      website: { client: 'website', status: 'active', timestamp: ts, pushable: false },
    },
  });
  t.type(realm.server_timestamp, 'number');

  const want = { result: 'success', msg: '', presence: { aggregated: { status: 'active', timestamp: ts }, website: { status: 'active', timestamp: ts } } };
  t.same((await othello.call('GET', `/users/${hamlet.userId}/presence`)).body, want, 'by id');
  t.same((await othello.call('GET', '/users/hamlet@zulip.com/presence')).body, want, 'by email');
  t.same((await othello.call('GET', `/users/${othello.userId}/presence`)).body, bad(`No presence data for ${othello.userId}`));
  t.same((await othello.call('GET', '/users/othello@zulip.com/presence')).body, bad('No presence data for othello@zulip.com'));
  t.same((await othello.call('GET', `/users/${bot.userId}/presence`)).body, bad('Presence is not supported for bot users.'));
  t.same((await othello.call('GET', '/users/9999/presence')).body, bad('No such user'));
  t.same((await othello.call('GET', '/users/nobody@zulip.com/presence')).body, bad('No such user'));
});

t.test('presence events and register state (verifyAction), legacy and slim', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');

  const reg = (await othello.call('POST', '/register', { fetch_event_types: ['presence'] })).body;
  t.same(reg.presences, {});
  t.equal(reg.presence_last_update_id, -1);

  const legacy = await verifyAction(t, s, othello, {
    eventTypes: ['presence'],
    action: () => hamlet.call('POST', '/users/me/presence', { status: 'active' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  const ev = legacy.events[0]!;
  t.same(ev, {
    id: ev.id, type: 'presence', user_id: hamlet.userId, email: 'hamlet@zulip.com', server_timestamp: ev.server_timestamp,
    presence: { website: { client: 'website', status: 'active', timestamp: ev.presence.website.timestamp, pushable: false } },
  });
  t.equal(legacy.after.presence_last_update_id, 0);

  const slim = await verifyAction(t, s, othello, {
    eventTypes: ['presence'],
    registerParams: { slim_presence: true },
    action: () => cordelia.call('POST', '/users/me/presence', { status: 'active' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.notOk('email' in slim.events[0]!, 'slim queues: no email');
  t.same(Object.keys(slim.after.presences).sort(), [String(hamlet.userId), String(cordelia.userId)].sort());

  await verifyAction(t, s, othello, {
    eventTypes: ['presence'],
    action: () => hamlet.call('POST', '/users/me/presence', { status: 'active' }),
    numEvents: 0,
    stateChangeExpected: false,
  });
});

t.test('pings do not append to the durable log', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const realm = s.server.registry.all()[0]!;
  const log = (s.server.registry as unknown as { log: { lastSeq(id: number): number } }).log;
  const before = log.lastSeq(realm.id);
  for (let i = 0; i < 20; i++) {
    await hamlet.call('POST', '/users/me/presence', { status: i % 2 ? 'idle' : 'active', ping_only: true });
    await othello.call('POST', '/users/me/presence', { status: 'active' });
  }
  t.equal(log.lastSeq(realm.id), before, 'no record appended');
  t.ok(realm.state.presence.get(hamlet.userId));
});

t.test('presence survives a graceful restart (final snapshot)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-presence-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: 'presence-pw' };
  const call = basicCall;
  const login = (url: string) => loginApiKey(url, 'hamlet@zulip.com', 'presence-pw');
  const first = await startServer(config);
  const key = await login(first.url);
  const reported = await call(first.url, 'hamlet@zulip.com', key, 'POST', '/users/me/presence', { status: 'active' });
  await first.close();
  const second = await startServer(config);
  t.teardown(() => second.close());
  const after = await call(second.url, 'hamlet@zulip.com', key, 'GET', '/realm/presence');
  t.same(after.presences, reported.presences, 'presences restored from the snapshot');
  const reg = await call(second.url, 'hamlet@zulip.com', key, 'POST', '/register', { fetch_event_types: ['presence'] });
  t.equal(reg.presence_last_update_id, reported.presence_last_update_id, 'presence_last_update_id restored');
});
