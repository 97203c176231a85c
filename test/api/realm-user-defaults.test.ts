/**
 * PATCH /realm/user_settings_defaults (Zulip's update_realm_user_settings_defaults): administrators
 * change what new users start with; events fold into `realm_user_settings_defaults`; existing users
 * keep their settings; new users (a bot here) start with the organization's defaults, presence and
 * email visibility included; errors leave everything unchanged.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { realmUserDefault } from '../../src/domain/realm-user-defaults.js';

const defaults = async (c: Caller) =>
  (await c.call('POST', '/register', { fetch_event_types: ['realm_user_settings_defaults'] })).body.realm_user_settings_defaults as Record<string, unknown>;

t.test('administrators change the defaults; events; new users start with them', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  t.equal((await defaults(hamlet)).left_side_userlist, false);

  const changed = await verifyAction(t, s, hamlet, {
    numEvents: 2,
    stateChangeExpected: true,
    action: () => iago.call('PATCH', '/realm/user_settings_defaults', { left_side_userlist: true, emojiset: 'text', enter_sends: false }),
  });
  t.equal(changed.actionResult.status, 200);
  t.same(changed.events.map((e) => [e.type, e.op, e.property, e.value]).sort((a, b) => String(a[2]).localeCompare(String(b[2]))), [
    ['realm_user_settings_defaults', 'update', 'emojiset', 'text'],
    ['realm_user_settings_defaults', 'update', 'left_side_userlist', true],
  ], 'one event per changed default; enter_sends was already false');
  t.match(await defaults(hamlet), { left_side_userlist: true, emojiset: 'text', enter_sends: false });

  const settingsOf = async (c: Caller) => (await c.call('POST', '/register', { fetch_event_types: ['user_settings'] })).body.user_settings as Record<string, unknown>;
  t.match(await settingsOf(hamlet), { left_side_userlist: false, emojiset: 'google' }, 'existing users keep their settings');

  t.equal((await iago.call('PATCH', '/realm/user_settings_defaults', { presence_enabled: false, email_address_visibility: 2 })).status, 200);
  const created = await hamlet.call('POST', '/bots', { full_name: 'Fresh Bot', short_name: 'fresh' });
  t.equal(created.status, 200);
  const botEmail = (await iago.call('GET', `/users/${created.body.user_id}`)).body.user.delivery_email as string;
  const botAuth = 'Basic ' + Buffer.from(`${botEmail}:${created.body.api_key}`).toString('base64');
  const botCall = (method: string, path: string, params: Record<string, unknown> = {}) => s.request(method, path, { params, headers: { Authorization: botAuth } });
  const botState = (await botCall('POST', '/register', { fetch_event_types: ['user_settings'] })).body;
  t.match(botState.user_settings, { left_side_userlist: true, emojiset: 'text', presence_enabled: false, email_address_visibility: 2 }, 'a new user starts with the defaults (presence_enabled is read from the status: seed §4.9)');
});

t.test('errors: permission and validation, nothing changed', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const before = await defaults(hamlet);
  t.same((await hamlet.call('PATCH', '/realm/user_settings_defaults', { left_side_userlist: true })).body,
    { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.same((await iago.call('PATCH', '/realm/user_settings_defaults', { left_side_userlist: true, emojiset: 'comic' })).body,
    { result: 'error', msg: 'Invalid emojiset', code: 'BAD_REQUEST' }, 'one bad value refuses the whole request');
  t.same((await iago.call('PATCH', '/realm/user_settings_defaults', { email_address_visibility: 9 })).body,
    { result: 'error', msg: 'Invalid email_address_visibility', code: 'BAD_REQUEST' });
  t.equal((await iago.call('PATCH', '/realm/user_settings_defaults', { web_font_size_px: 'big' })).status, 400);
  t.same(await defaults(hamlet), before, 'defaults unchanged after errors');
  const ignored = await iago.call('PATCH', '/realm/user_settings_defaults', { full_name: 'Nope', starred_message_counts: false });
  t.same(ignored.body.ignored_parameters_unsupported, ['full_name'], 'identity settings are not defaults');
  t.equal((await defaults(hamlet)).starred_message_counts, false);
});

t.test('handler: records replay and survive a snapshot; errors leave the state unchanged', async (t) => {
  const { state, ctx, ids } = smallRealm();
  rejects(t, state, { type: 'update_realm_user_defaults', actorId: ids.member, settings: { enter_sends: true } }, ctx, 'Must be an organization administrator');
  rejects(t, state, { type: 'update_realm_user_defaults', actorId: ids.admin, settings: { enter_sends: true, color_scheme: 7 } }, ctx, 'Invalid color_scheme');
  run(state, { type: 'update_realm_user_defaults', actorId: ids.admin, settings: { enter_sends: true, color_scheme: 2 } }, ctx);
  t.equal(realmUserDefault(state, 'enter_sends'), true);
  const back = decide(state, { type: 'update_realm_user_defaults', actorId: ids.admin, settings: { enter_sends: false } }, ctx);
  if (!back.ok) throw back.error;
  t.same(back.value.records, [{ type: 'realm_user_default_changed', v: 1, property: 'enter_sends', value: false }]);
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(state.id, structuredClone(core), columns);
  t.equal(fingerprint(copy), fingerprint(state));
  t.equal(realmUserDefault(copy, 'color_scheme'), 2);
});
