/**
 * User administration over HTTP (https://zulip.com/api/update-user,
 * https://zulip.com/api/get-users): every rule and error
 * string of `PATCH /users/{user_id}`, `DELETE /users/{user_id}` and
 * `POST /users/{user_id}/reactivate` with "state unchanged after error", events through
 * verifyAction, and register state.
 */
import t from 'tap';
import { DEMO_PASSWORD, startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const bad = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
const success = { result: 'success', msg: '' };

type Person = Record<string, any>;

async function people(caller: Caller): Promise<Map<string, Person>> {
  const members = (await caller.call('GET', '/users', { include_custom_profile_fields: true })).body.members as Person[];
  return new Map(members.map((m) => [m.delivery_email ?? m.email, m]));
}

t.test('PATCH /users/{user_id}: full_name and role', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const before = await people(desdemona);
  const id = (email: string) => before.get(email)!.user_id as number;
  const othello = id('othello@zulip.com');

  // Access and validation errors change nothing.
  t.same((await hamlet.call('PATCH', `/users/${othello}`, { full_name: 'Othello II' })).body, bad('Insufficient permission'));
  t.same((await iago.call('PATCH', '/users/9999', { full_name: 'Nobody' })).body, bad('No such user'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { role: 500 })).body, bad('Invalid role'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { role: 100 })).body, bad('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'));
  t.same((await iago.call('PATCH', `/users/${id('desdemona@zulip.com')}`, { role: 200 })).body, bad('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'));
  t.same((await desdemona.call('PATCH', `/users/${id('desdemona@zulip.com')}`, { role: 200 })).body, bad('The owner permission cannot be removed from the only organization owner.'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { full_name: 'x' })).body, bad('Name too short!'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { full_name: 'a'.repeat(101) })).body, bad('Name too long!'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { full_name: 'Bad @ name' })).body, bad('Invalid characters in name!'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { full_name: 'Othello|12' })).body, bad('Invalid format!'));
  // An invalid name fails the whole request, even with a valid role change.
  t.same((await iago.call('PATCH', `/users/${othello}`, { role: 300, full_name: 'x' })).body, bad('Name too short!'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { role: '"x"' })).body.result, 'error');
  t.same(await people(desdemona), before, 'state unchanged after errors');

  // Blank or unchanged names are ignored (no events, success).
  await verifyAction(t, s, hamlet, {
    action: async () => t.same((await iago.call('PATCH', `/users/${othello}`, { full_name: '   ', role: 400 })).body, success),
    numEvents: 0,
    stateChangeExpected: false,
  });

  // full_name: stripped, one event to everyone.
  const renamed = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', `/users/${othello}`, { full_name: '  Othello, Moor of Venice ' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(renamed.actionResult.body, success);
  t.match(renamed.events[0], { type: 'realm_user', op: 'update', person: { user_id: othello, full_name: 'Othello, Moor of Venice' } });
  t.equal((await people(hamlet)).get('othello@zulip.com')!.full_name, 'Othello, Moor of Venice');

  // role: member → moderator: realm_user update, then system group membership.
  const promoted = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', `/users/${othello}`, { role: 300 }),
    stateChangeExpected: true,
  });
  t.same(promoted.events.map((e) => [e.type, e.op]), [['realm_user', 'update'], ['user_group', 'remove_members'], ['user_group', 'remove_members'], ['user_group', 'add_members']]);
  t.match(promoted.events[0], { person: { user_id: othello, role: 300 } });
  t.match(await people(hamlet), new Map([['othello@zulip.com', { role: 300, is_admin: false }]]));

  // Admins may grant admin and moderator; guests lose nothing else. Owners grant owner.
  await verifyAction(t, s, hamlet, { action: () => iago.call('PATCH', `/users/${othello}`, { role: 600 }), stateChangeExpected: true });
  t.equal((await people(hamlet)).get('othello@zulip.com')!.is_guest, true);
  const owned = await verifyAction(t, s, hamlet, { action: () => desdemona.call('PATCH', `/users/${othello}`, { role: 100 }), stateChangeExpected: true });
  t.same(owned.actionResult.body, success);
  t.match((await people(hamlet)).get('othello@zulip.com'), { role: 100, is_owner: true, is_admin: true, is_guest: false });
  // Now two owners: an owner may step down; admins still cannot touch owners.
  t.same((await iago.call('PATCH', `/users/${othello}`, { role: 400 })).body, bad('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'));
  // (Observed by hamlet: the demoted user's own register also recomputes its can_create_* keys,
  // which Zulip's apply_event refetches from the database rather than from the event.)
  const selfDemote = await verifyAction(t, s, hamlet, { action: () => desdemona.call('PATCH', `/users/${id('desdemona@zulip.com')}`, { role: 200 }), stateChangeExpected: true });
  t.same(selfDemote.actionResult.body, success);
  t.match((await desdemona.call('POST', '/register', { fetch_event_types: ['realm_user'] })).body, { is_owner: false, is_admin: true });
  const othelloCaller = await s.as('othello@zulip.com');
  t.same((await othelloCaller.call('PATCH', `/users/${othello}`, { role: 200 })).body, bad('The owner permission cannot be removed from the only organization owner.'));

  // Non-admins get "Insufficient permission" before any role rule.
  t.same((await hamlet.call('PATCH', `/users/${othello}`, { role: 400 })).body, bad('Insufficient permission'));

  // Register state reflects the changes.
  const reg = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm_user'] })).body;
  t.match(reg.realm_users.find((u: Person) => u.user_id === othello), { full_name: 'Othello, Moor of Venice', role: 100, is_owner: true });
});

t.test('PATCH /users/{user_id}: bots, deactivated targets, profile_data, new_email', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const all = await people(desdemona);
  const id = (email: string) => all.get(email)!.user_id as number;
  const bot = id('default-bot@zulip.com');
  const othello = id('othello@zulip.com');

  // A bot's owner may rename it but not change its role; others may not touch it.
  t.same((await cordelia.call('PATCH', `/users/${bot}`, { full_name: 'Robot' })).body, bad('Insufficient permission'));
  t.same((await hamlet.call('PATCH', `/users/${bot}`, { role: 300 })).body, bad('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'));
  const botRenamed = await verifyAction(t, s, iago, { action: () => hamlet.call('PATCH', `/users/${bot}`, { full_name: 'Robot' }), numEvents: 2, stateChangeExpected: true });
  t.same(botRenamed.actionResult.body, success);
  t.same(botRenamed.events.map((e) => e.type), ['realm_user', 'realm_bot']);
  t.equal((await people(hamlet)).get('default-bot@zulip.com')!.full_name, 'Robot');

  // profile_data: validated per field type; null/empty deletes; unknown keys rejected.
  const phone = (await iago.call('POST', '/realm/profile_fields', { name: 'Phone', field_type: 1 })).body.id as number;
  const choice = (await iago.call('POST', '/realm/profile_fields', { name: 'Editor', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' } } })).body.id as number;
  const snapshot = await people(desdemona);
  t.same((await iago.call('PATCH', `/users/${othello}`, { profile_data: [{ id: 999, value: 'x' }] })).body, bad('Field id 999 not found.'));
  t.same((await iago.call('PATCH', `/users/${othello}`, { profile_data: [{ id: phone, value: 'ok' }, { id: choice, value: 'emacs' }] })).body.result, 'error');
  t.same((await iago.call('PATCH', `/users/${othello}`, { profile_data: [{ id: phone, value: 'x', extra: 1 }] })).body.result, 'error');
  t.same((await hamlet.call('PATCH', `/users/${othello}`, { profile_data: [{ id: phone, value: 'x' }] })).body, bad('Insufficient permission'));
  t.same(await people(desdemona), snapshot, 'state unchanged after errors');
  const set = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', `/users/${othello}`, { profile_data: [{ id: phone, value: '555' }, { id: choice, value: 'vim' }] }),
    numEvents: 2,
    stateChangeExpected: true,
  });
  t.match(set.events[0], { person: { user_id: othello, custom_profile_field: { id: phone, value: '555' } } });
  t.same((await people(hamlet)).get('othello@zulip.com')!.profile_data, { [phone]: { value: '555', rendered_value: '<p>555</p>' }, [choice]: { value: 'vim' } });
  const cleared = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', `/users/${othello}`, { profile_data: [{ id: phone, value: null }, { id: choice, value: '' }] }),
    numEvents: 2,
    stateChangeExpected: true,
  });
  t.match(cleared.events[1], { person: { custom_profile_field: { id: choice, value: null } } });
  t.same((await people(hamlet)).get('othello@zulip.com')!.profile_data, {});

  // new_email: owners only; validated; unique.
  t.same((await iago.call('PATCH', `/users/${othello}`, { new_email: 'moor@zulip.com' })).body, bad('User not authorized to change user emails'));
  t.same((await desdemona.call('PATCH', `/users/${othello}`, { new_email: 'not an email' })).body, bad('Invalid address.'));
  t.same((await desdemona.call('PATCH', `/users/${othello}`, { new_email: 'Hamlet@zulip.com' })).body, bad("Email 'Hamlet@zulip.com' already in use"));
  const moved = await verifyAction(t, s, hamlet, {
    action: () => desdemona.call('PATCH', `/users/${othello}`, { new_email: 'Moor@Zulip.com' }),
    registerParams: { client_gravatar: false },
    stateChangeExpected: true,
  });
  t.same(moved.actionResult.body, success);
  t.same(moved.events.slice(0, 2).map((e) => e.person), [{ user_id: othello, delivery_email: 'moor@zulip.com' }, { user_id: othello, new_email: 'moor@zulip.com' }]);
  t.match(moved.events[2], { person: { user_id: othello, avatar_source: 'G', avatar_url: /^https:\/\/secure\.gravatar\.com\/avatar\// } });
  t.same((await desdemona.call('PATCH', `/users/${othello}`, { new_email: 'moor@zulip.com' })).body, success, 'same email: no-op');
  // The changed user authenticates with the new address (Basic auth matches delivery_email).
  t.match((await (await s.as('moor@zulip.com')).call('POST', '/register', { fetch_event_types: ['realm_user'] })).body, { delivery_email: 'moor@zulip.com', email: 'moor@zulip.com' });
  t.equal((await people(hamlet)).get('moor@zulip.com')!.user_id, othello);
  // The new address logs in; the old one no longer does.
  t.equal((await s.request('POST', '/fetch_api_key', { params: { username: 'moor@zulip.com', password: DEMO_PASSWORD } })).status, 200);
  t.not((await s.request('POST', '/fetch_api_key', { params: { username: 'othello@zulip.com', password: DEMO_PASSWORD } })).status, 200);
});

t.test('DELETE /users/{user_id} and POST /users/{user_id}/reactivate', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const all = await people(desdemona);
  const id = (email: string) => all.get(email)!.user_id as number;
  const othello = id('othello@zulip.com');
  const othelloCaller = await s.as('othello@zulip.com');

  t.same((await hamlet.call('DELETE', `/users/${othello}`)).body, bad('Insufficient permission'));
  t.same((await iago.call('DELETE', '/users/9999')).body, bad('No such user'));
  t.same((await iago.call('DELETE', `/users/${id('default-bot@zulip.com')}`)).body, bad('No such user'));
  t.same((await iago.call('DELETE', `/users/${id('desdemona@zulip.com')}`)).body, bad('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'));
  t.same((await desdemona.call('DELETE', `/users/${id('desdemona@zulip.com')}`)).body, bad('Cannot deactivate the only organization owner'));
  t.same((await iago.call('POST', `/users/${othello}/reactivate`)).body, bad('User is already active'));
  t.same((await hamlet.call('POST', `/users/${othello}/reactivate`)).body, bad('Insufficient permission'));
  t.same(await people(desdemona), all, 'state unchanged after errors');

  const off = await verifyAction(t, s, hamlet, {
    action: () => iago.call('DELETE', `/users/${othello}`),
    stateChangeExpected: true,
  });
  t.same(off.actionResult.body, success);
  t.match(off.events[0], { type: 'realm_user', op: 'update', person: { user_id: othello, is_active: false } });
  t.ok(off.events.slice(1).every((e) => e.type === 'user_group' && e.op === 'remove_members'));
  t.equal((await people(hamlet)).get('othello@zulip.com')!.is_active, false);
  t.ok(off.after.realm_non_active_users.some((u: Person) => u.user_id === othello));
  // The deactivated user can no longer authenticate.
  t.equal((await othelloCaller.call('GET', '/users/me')).status, 401);
  t.same((await iago.call('DELETE', `/users/${othello}`)).body, bad('User is deactivated'));
  // PATCH works on deactivated users.
  t.same((await iago.call('PATCH', `/users/${othello}`, { full_name: 'Othello Away' })).body, success);

  const on = await verifyAction(t, s, hamlet, {
    action: () => iago.call('POST', `/users/${othello}/reactivate`),
    stateChangeExpected: true,
  });
  t.same(on.actionResult.body, success);
  t.match(on.events[0], { person: { user_id: othello, is_active: true } });
  t.ok(on.events.slice(1).every((e) => e.type === 'user_group' && e.op === 'add_members'));
  t.equal((await othelloCaller.call('GET', '/users/me')).status, 200);

  // A second owner makes deactivating an owner possible (by an owner).
  await desdemona.call('PATCH', `/users/${othello}`, { role: 100 });
  t.same((await desdemona.call('DELETE', `/users/${othello}`)).body, success);
  t.same((await desdemona.call('DELETE', `/users/${id('desdemona@zulip.com')}`)).body, bad('Cannot deactivate the only organization owner'));
});

t.test('POST /users', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const before = await people(desdemona);
  const ok = { email: 'newbie@zulip.com', password: 'swordfish-42', full_name: 'New Bie' };
  const { email: _e, ...noEmail } = ok;
  const { password: _p, ...noPassword } = ok;
  const { full_name: _n, ...noName } = ok;

  // Zulip's require_realm_admin, then the can_create_users check (held by owners in parley).
  t.same((await hamlet.call('POST', '/users', ok)).body, bad('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'));
  t.same((await hamlet.call('POST', '/users', {})).body, bad('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'), 'permission before arguments');
  t.same((await iago.call('POST', '/users', ok)).body, bad('User not authorized to create users'));
  t.match((await desdemona.call('POST', '/users', noEmail)).body, { result: 'error', msg: "Missing 'email' argument", code: 'REQUEST_VARIABLE_MISSING' });
  t.match((await desdemona.call('POST', '/users', noPassword)).body, { msg: "Missing 'password' argument" });
  t.match((await desdemona.call('POST', '/users', noName)).body, { msg: "Missing 'full_name' argument" });
  t.same((await desdemona.call('POST', '/users', { ...ok, full_name: 'N' })).body, bad('Name too short!'));
  t.same((await desdemona.call('POST', '/users', { ...ok, full_name: 'New "Bie"' })).body, bad('Invalid characters in name!'));
  t.same((await desdemona.call('POST', '/users', { ...ok, email: 'not-an-email' })).body, bad('Bad name or username'));
  t.same((await desdemona.call('POST', '/users', { ...ok, email: 'Hamlet@Zulip.com' })).body, bad("Email 'Hamlet@Zulip.com' already in use"));
  t.same((await desdemona.call('POST', '/users', { ...ok, email: 'hamlet@zulip.com', password: '' })).body, bad("Email 'hamlet@zulip.com' already in use"), 'existing before weak password');
  t.same((await desdemona.call('POST', '/users', { ...ok, password: '' })).body, bad('The password is too weak.'));
  t.same((await desdemona.call('POST', '/users', { ...ok, password: 'abc12' })).body, bad('The password is too weak.'));
  // Long enough but guessable (zxcvbn estimate below 10000 guesses), and too long.
  t.same((await desdemona.call('POST', '/users', { ...ok, password: 'password1' })).body, bad('The password is too weak.'));
  t.same((await desdemona.call('POST', '/users', { ...ok, password: 'abcdef' })).body, bad('The password is too weak.'));
  t.same((await desdemona.call('POST', '/users', { ...ok, password: 'Zq8!'.repeat(26) })).body, bad('The password is too weak.'));
  t.same(await people(desdemona), before, 'state unchanged after errors');

  for (const clientGravatar of [false, true]) {
    const email = clientGravatar ? 'newbie2@zulip.com' : ok.email;
    const created = await verifyAction(t, s, hamlet, {
      action: () => desdemona.call('POST', '/users', { ...ok, email }),
      registerParams: { client_gravatar: clientGravatar },
      stateChangeExpected: true,
    });
    const userId = created.actionResult.body.user_id as number;
    t.same(created.actionResult.body, { result: 'success', msg: '', user_id: userId });
    t.match(created.events[0], { type: 'realm_user', op: 'add', person: { user_id: userId, email, delivery_email: email, full_name: 'New Bie', role: 400, is_active: true, profile_data: {} } });
    t.ok(created.events.some((e) => e.type === 'user_group' && e.op === 'add_members'));
  }
  const newbie = (await people(hamlet)).get(ok.email)!;
  t.match(newbie, { role: 400, is_bot: false, is_active: true });
  // The account logs in with its password.
  t.equal((await s.request('POST', '/fetch_api_key', { params: { username: ok.email, password: ok.password } })).status, 200);
  t.same((await desdemona.call('POST', '/users', ok)).body, bad(`Email '${ok.email}' already in use`));
});

t.test('PATCH /settings: full_name, timezone, email_address_visibility', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const before = await people(iago);
  const botKey = ((await hamlet.call('POST', '/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots as Person[])[0]!.api_key as string;
  const botAuth = 'Basic ' + Buffer.from(`default-bot@zulip.com:${botKey}`).toString('base64');
  t.same((await s.request('PATCH', '/settings', { params: { full_name: 'Bot Two' }, headers: { Authorization: botAuth } })).body, bad('This endpoint does not accept bot requests.'));

  t.same((await hamlet.call('PATCH', '/settings', { full_name: 'H' })).body, bad('Name too short!'));
  t.same((await hamlet.call('PATCH', '/settings', { full_name: 'Ham@let' })).body, bad('Invalid characters in name!'));
  t.same((await hamlet.call('PATCH', '/settings', { timezone: 'Mars/Olympus' })).body, bad("Invalid timezone 'Mars/Olympus'"));
  t.same((await hamlet.call('PATCH', '/settings', { timezone: 'europe/london' })).body, bad("Invalid timezone 'europe/london'"));
  t.same((await hamlet.call('PATCH', '/settings', { timezone: '' })).body, bad("Invalid timezone ''"));
  t.same((await hamlet.call('PATCH', '/settings', { email_address_visibility: 9 })).body, bad('Invalid email_address_visibility'));
  t.same((await hamlet.call('PATCH', '/settings', { full_name: 'Hamlet Prince', timezone: 'Nowhere' })).body, bad("Invalid timezone 'Nowhere'"), 'one bad value fails all');
  t.same(await people(iago), before, 'state unchanged after errors');

  // full_name.
  const renamed = await verifyAction(t, s, othello, { action: () => hamlet.call('PATCH', '/settings', { full_name: ' Prince Hamlet ' }), numEvents: 1, stateChangeExpected: true });
  t.same(renamed.actionResult.body, success);
  t.match(renamed.events[0], { type: 'realm_user', person: { user_id: hamlet.userId, full_name: 'Prince Hamlet' } });

  // timezone: others see realm_user; the user gets user_settings (and the legacy event without user_settings_object).
  const tzOther = await verifyAction(t, s, othello, { action: () => hamlet.call('PATCH', '/settings', { timezone: 'Europe/Copenhagen' }), numEvents: 1, stateChangeExpected: true });
  t.same(tzOther.events[0]!.person, { user_id: hamlet.userId, email: 'hamlet@zulip.com', timezone: 'Europe/Copenhagen' });
  const tzSelf = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/settings', { timezone: 'America/New_York' }),
    registerParams: { client_capabilities: { user_settings_object: true } },
    stateChangeExpected: true,
  });
  t.same(tzSelf.events.map((e) => e.type), ['user_settings', 'realm_user']);
  const tzLegacy = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/settings', { timezone: 'UTC' }),
    registerParams: { client_capabilities: {} },
    stateChangeExpected: true,
  });
  t.same(tzLegacy.events.map((e) => e.type), ['user_settings', 'update_display_settings', 'realm_user']);
  t.same((await hamlet.call('PATCH', '/settings', { timezone: 'UTC' })).body, success, 'unchanged: no-op');

  // email_address_visibility: 1 → 3 (admins): members lose the address, the API email becomes fake.
  for (const [viewer, gravatar] of [[othello, false], [othello, true], [iago, true], [polonius, false]] as const) {
    const v = await verifyAction(t, s, viewer, {
      action: () => hamlet.call('PATCH', '/settings', { email_address_visibility: 3 }),
      registerParams: { client_gravatar: gravatar },
      stateChangeExpected: true,
    });
    t.same(v.actionResult.body, success);
    const persons = v.events.filter((e) => e.type === 'realm_user').map((e) => Object.keys(e.person).join());
    t.same(persons, viewer === iago ? ['user_id,new_email', 'user_id,avatar_source,avatar_url,avatar_url_medium,avatar_version'] : ['user_id,delivery_email', 'user_id,new_email', 'user_id,avatar_source,avatar_url,avatar_url_medium,avatar_version']);
    // Back to everyone for the next viewer.
    await verifyAction(t, s, viewer, { action: () => hamlet.call('PATCH', '/settings', { email_address_visibility: 1 }), registerParams: { client_gravatar: gravatar }, stateChangeExpected: true });
  }
  const self = await verifyAction(t, s, hamlet, { action: () => hamlet.call('PATCH', '/settings', { email_address_visibility: 4 }), stateChangeExpected: true });
  t.equal(self.after.user_settings.email_address_visibility, 4);
  t.match((await othello.call('GET', `/users/${hamlet.userId}`)).body.user, { email: `user${hamlet.userId}@localhost`, delivery_email: null });
  // 4 → 2 (members): no API email change; guests still cannot see it.
  const members = await verifyAction(t, s, othello, { action: () => hamlet.call('PATCH', '/settings', { email_address_visibility: 2 }), stateChangeExpected: true });
  t.same(members.events.map((e) => e.person), [{ user_id: hamlet.userId, delivery_email: 'hamlet@zulip.com' }]);
  t.equal((await polonius.call('GET', `/users/${hamlet.userId}`)).body.user.delivery_email, null);

  // Unsupported settings are reported, not rejected.
  t.same((await hamlet.call('PATCH', '/settings', { no_such_setting: true })).body, { ...success, ignored_parameters_unsupported: ['no_such_setting'] });
});

t.test('PATCH /settings: generic personal settings are stored, validated and announced', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const settingsOf = async () => (await hamlet.call('POST', '/register', { fetch_event_types: ['user_settings'] })).body.user_settings;
  const before = await settingsOf();
  t.equal(before.enter_sends, false);
  t.equal(before.automatically_follow_topics_policy, 3);

  // Type and enumeration errors change nothing, even when another value in the request was fine.
  t.same((await hamlet.call('PATCH', '/settings', { enter_sends: 'yes' })).body, bad('Argument "enter_sends" is not valid JSON.'));
  t.same((await hamlet.call('PATCH', '/settings', { automatically_follow_topics_policy: 7 })).body, bad('Invalid automatically_follow_topics_policy'));
  t.same((await hamlet.call('PATCH', '/settings', { enter_sends: true, web_home_view: 'nowhere' })).body, bad('Invalid web_home_view'));
  t.same((await hamlet.call('PATCH', '/settings', { web_font_size_px: 99 })).body, bad('Invalid web_font_size_px'));
  t.same(await settingsOf(), before, 'state unchanged after errors');

  // A display setting: user_settings, plus the legacy event for clients without user_settings_object.
  const legacy = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/settings', { enter_sends: true }),
    registerParams: { client_capabilities: {} },
    stateChangeExpected: true,
  });
  t.same(legacy.events.map((e) => e.type), ['user_settings', 'update_display_settings']);
  t.equal(legacy.after.enter_sends, true, 'legacy top-level copy');
  const modern = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/settings', { enable_sounds: false, enable_drafts_synchronization: false }),
    registerParams: { client_capabilities: { user_settings_object: true } },
    stateChangeExpected: true,
  });
  t.same(modern.events.map((e) => [e.type, e.property]).sort(), [['user_settings', 'enable_drafts_synchronization'], ['user_settings', 'enable_sounds']]);
  t.same((await hamlet.call('PATCH', '/settings', { enable_sounds: false })).body, success, 'unchanged: no-op');
  const after = await settingsOf();
  t.same([after.enter_sends, after.enable_sounds, after.enable_drafts_synchronization], [true, false, false]);

  // The automatic follow policy drives automatic_new_visibility_policy on send.
  t.same((await hamlet.call('PATCH', '/settings', { automatically_follow_topics_policy: 4 })).body, success);
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'brand new topic', content: 'hi' });
  t.equal(sent.body.result, 'success');
  t.equal(sent.body.automatic_new_visibility_policy, undefined, 'never: no automatic follow');
  t.same((await hamlet.call('PATCH', '/settings', { automatically_follow_topics_policy: 3 })).body, success);
  const followed = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'another new topic', content: 'hi' });
  t.equal(followed.body.automatic_new_visibility_policy, 3);
});

t.test('POST /bots', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const before = await people(iago);

  t.same((await polonius.call('POST', '/bots', { full_name: 'Spy Bot', short_name: 'spy' })).body, bad('Not allowed for guest users'));
  t.match((await hamlet.call('POST', '/bots', { short_name: 'x' })).body, { msg: "Missing 'full_name' argument" });
  t.match((await hamlet.call('POST', '/bots', { full_name: 'X Bot' })).body, { msg: "Missing 'short_name' argument" });
  t.same((await hamlet.call('POST', '/bots', { full_name: 'B', short_name: 'b' })).body, bad('Name too short!'));
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Bad Bot', short_name: 'bad name' })).body, bad('Bad name or username'));
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Othello, the Moor of Venice', short_name: 'moor' })).body, bad('Name is already in use!'));
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 4 })).body, bad('Invalid bot type'));
  t.same(await people(iago), before, 'state unchanged after errors');

  // Hamlet (the bot's owner) and iago (administrator) see realm_bot add; othello only realm_user add.
  for (const [observer, short] of [[hamlet, 'helper'], [iago, 'helper2'], [await s.as('othello@zulip.com'), 'helper3']] as const) {
    const created = await verifyAction(t, s, observer, {
      action: () => hamlet.call('POST', '/bots', { full_name: `Helper ${short}`, short_name: short }),
      stateChangeExpected: true,
    });
    const body = created.actionResult.body;
    t.match(body, { result: 'success', user_id: Number, api_key: /^[A-Za-z0-9]{32}$/, avatar_url: /^https:\/\/secure\.gravatar\.com\//, default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false });
    t.match(created.events[0], { type: 'realm_user', op: 'add', person: { user_id: body.user_id, is_bot: true, bot_type: 1, bot_owner_id: hamlet.userId, email: `${short}-bot@localhost` } });
    t.equal(created.events.some((e) => e.type === 'realm_bot'), observer.email !== 'othello@zulip.com', 'realm_bot add to the owner and administrators only');
    // The bot authenticates with its API key.
    const auth = 'Basic ' + Buffer.from(`${short}-bot@localhost:${body.api_key}`).toString('base64');
    t.equal((await s.request('GET', '/users/me', { headers: { Authorization: auth } })).body.user_id, body.user_id);
  }
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Another Helper', short_name: 'helper' })).body, bad('Username already in use'));
});

t.test('deactivating a user deactivates their bots', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const bot = (await people(iago)).get('default-bot@zulip.com')!.user_id as number;
  const off = await verifyAction(t, s, iago, { action: () => iago.call('DELETE', `/users/${hamlet.userId}`), stateChangeExpected: true });
  t.same(off.actionResult.body, success);
  t.same(off.events.filter((e) => e.type !== 'user_group').map((e) => [e.type, e.person ?? e.bot]), [
    ['realm_user', { user_id: hamlet.userId, is_active: false }],
    ['realm_user', { user_id: bot, is_active: false }],
    ['realm_bot', { user_id: bot, is_active: false }],
  ]);
  t.match(off.after.realm_bots, [{ user_id: bot, is_active: false }]);
  // Reactivating the owner does not bring the bot back; reactivating the bot does.
  await verifyAction(t, s, iago, { action: () => iago.call('POST', `/users/${hamlet.userId}/reactivate`), stateChangeExpected: true });
  t.equal((await people(iago)).get('default-bot@zulip.com')!.is_active, false);
  const on = await verifyAction(t, s, iago, { action: () => iago.call('POST', `/users/${bot}/reactivate`), stateChangeExpected: true });
  t.match(on.events.at(-1), { type: 'realm_bot', op: 'update', bot: { user_id: bot, is_active: true } });
});
