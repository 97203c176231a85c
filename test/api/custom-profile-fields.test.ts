/**
 * Custom profile field endpoints (https://zulip.com/api/get-custom-profile-fields,
 * https://zulip.com/api/create-custom-profile-field): parameters and
 * defaults, errors with "state unchanged", events through verifyAction (`custom_profile_fields`,
 * `realm_user` update), register state, and `profile_data` in GET /users and /users/me.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const bad = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

t.test('profile field definitions over HTTP', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const list = async () => (await hamlet.call('GET', '/realm/profile_fields')).body.custom_fields as Array<Record<string, unknown>>;
  t.same(await list(), []);

  // Non-admins and bad parameters change nothing.
  t.match((await hamlet.call('POST', '/realm/profile_fields', { name: 'X', field_type: 1 })).body, { result: 'error', msg: 'Insufficient permission' });
  t.same((await iago.call('POST', '/realm/profile_fields', { name: 'X', field_type: 'one' })).body, bad('Argument "field_type" is not valid JSON.'));
  t.same((await iago.call('POST', '/realm/profile_fields', { name: 'X', field_type: 3, field_data: '[1]' })).body, bad('field_data is not a dict'));
  t.same((await iago.call('POST', '/realm/profile_fields', { name: 'X', field_type: 3, field_data: { a: 1 } })).body, bad('field_data contains a value that is not an allowed_type'));
  t.same((await iago.call('POST', '/realm/profile_fields', { name: '   ', field_type: 1 })).body, bad('Label cannot be blank.'));
  t.same(await list(), [], 'state unchanged after errors');

  // Create: event to everyone with the full list; defaults; name stripped.
  const created = await verifyAction(t, s, hamlet, {
    action: () => iago.call('POST', '/realm/profile_fields', { name: '  Phone number ', hint: 'Mobile', field_type: 1, display_in_profile_summary: true }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  const phone = created.actionResult.body.id as number;
  t.same(created.actionResult.body, { result: 'success', msg: '', id: phone });
  t.same(created.events[0]!.fields, [
    { id: phone, name: 'Phone number', type: 1, hint: 'Mobile', field_data: '', order: phone, required: false, editable_by_user: true, display_in_profile_summary: true },
  ]);
  const editor = (await iago.call('POST', '/realm/profile_fields', {
    name: 'Editor', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } }, required: true, editable_by_user: false,
  })).body.id as number;
  t.match(await list(), [{ id: phone }, { id: editor, field_data: '{"vim":{"text":"Vim","order":"1"},"emacs":{"text":"Emacs","order":"2"}}', required: true, editable_by_user: false }]);
  t.notOk('display_in_profile_summary' in (await list())[1]!, 'display_in_profile_summary omitted when false');

  // PATCH resets omitted parameters to their defaults.
  const patched = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', `/realm/profile_fields/${phone}`, { name: 'Phone' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(patched.actionResult.body, { result: 'success', msg: '' });
  t.same(patched.events[0]!.fields[0], { id: phone, name: 'Phone', type: 1, hint: '', field_data: '', order: phone, required: false, editable_by_user: true });
  t.same((await iago.call('PATCH', '/realm/profile_fields/999', { name: 'x' })).body, bad('Field id 999 not found.'));
  t.same((await iago.call('PATCH', `/realm/profile_fields/${phone}`, { name: 'Editor' })).body, bad('A field with that label already exists.'));
  t.match((await hamlet.call('PATCH', `/realm/profile_fields/${phone}`, { name: 'Y' })).body, { msg: 'Insufficient permission' });

  // Reorder.
  const reordered = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', '/realm/profile_fields', { order: [editor, phone] }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(reordered.events[0]!.fields.map((f: { id: number }) => f.id), [editor, phone]);
  t.same((await iago.call('PATCH', '/realm/profile_fields', { order: [editor] })).body, bad('Invalid order mapping.'));
  t.same((await list()).map((f) => f.id), [editor, phone]);

  // Register state.
  const reg = (await hamlet.call('POST', '/register', { fetch_event_types: ['custom_profile_fields'] })).body;
  t.same(reg.custom_profile_fields, await list());
  t.match(reg.custom_profile_field_types, { SELECT: { id: 3, name: 'List of options' }, PRONOUNS: { id: 8, name: 'Pronouns' } });

  // Delete.
  await verifyAction(t, s, hamlet, {
    action: () => iago.call('DELETE', `/realm/profile_fields/${editor}`),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same((await iago.call('DELETE', `/realm/profile_fields/${editor}`)).body, bad(`Field id ${editor} not found.`));
  t.match((await hamlet.call('DELETE', `/realm/profile_fields/${phone}`)).body, { msg: 'Insufficient permission' });
  t.same((await list()).map((f) => f.id), [phone]);
});

t.test('user values over HTTP: profile_data, events, errors', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const create = async (params: Record<string, unknown>) => (await iago.call('POST', '/realm/profile_fields', params)).body.id as number;
  const bio = await create({ name: 'Biography', field_type: 2 });
  const birthday = await create({ name: 'Birthday', field_type: 4 });
  const mentor = await create({ name: 'Mentor', field_type: 6 });
  const locked = await create({ name: 'Badge', field_type: 1, editable_by_user: false });
  const nickname = await create({ name: 'Nickname', field_type: 1 });
  const set = (caller: typeof hamlet, data: unknown) => caller.call('PATCH', '/users/me/profile_data', { data });
  const profile = async () => (await othello.call('GET', `/users/${hamlet.userId}`, { include_custom_profile_fields: true })).body.user.profile_data;

  // Errors change nothing.
  t.same((await set(hamlet, [{ id: bio, value: 'ok' }, { id: birthday, value: '1909-3-5' }])).body, bad('Birthday is not a date'));
  t.same((await set(hamlet, [{ id: 999, value: 'x' }])).body, bad('Field id 999 not found.'));
  t.same((await set(hamlet, [{ id: mentor, value: [99999] }])).body, bad('Invalid user ID: 99999'));
  t.same((await set(hamlet, [{ id: locked, value: 'x' }])).body, bad('You are not allowed to change this field. Contact an administrator to update it.'));
  t.equal((await set(hamlet, [{ id: bio, value: 'x', extra: 1 }])).status, 400);
  t.same(await profile(), {}, 'state unchanged after errors');

  // Set: one realm_user event per changed field, folded into realm_users.
  const changed = await verifyAction(t, s, othello, {
    action: () => set(hamlet, [{ id: bio, value: 'I *am*' }, { id: birthday, value: '1600-04-23' }, { id: mentor, value: [othello.userId, iago.userId] }]),
    numEvents: 3,
    stateChangeExpected: true,
  });
  t.same(changed.actionResult.body, { result: 'success', msg: '' });
  t.same(changed.events.map((e) => e.person), [
    { user_id: hamlet.userId, custom_profile_field: { id: bio, value: 'I *am*', rendered_value: '<p>I <em>am</em></p>' } },
    { user_id: hamlet.userId, custom_profile_field: { id: birthday, value: '1600-04-23' } },
    { user_id: hamlet.userId, custom_profile_field: { id: mentor, value: `[${othello.userId},${iago.userId}]` } },
  ]);
  const expected = {
    [bio]: { value: 'I *am*', rendered_value: '<p>I <em>am</em></p>' },
    [birthday]: { value: '1600-04-23' },
    [mentor]: { value: `[${othello.userId},${iago.userId}]` },
  };
  t.same(await profile(), expected, 'GET /users/{id}?include_custom_profile_fields=true');
  const members = (await othello.call('GET', '/users', { include_custom_profile_fields: true })).body.members as Array<Record<string, any>>;
  t.same(members.find((m) => m.user_id === hamlet.userId)!.profile_data, expected, 'GET /users?include_custom_profile_fields=true');
  t.notOk('profile_data' in (await othello.call('GET', '/users')).body.members[0], 'not included by default');
  t.same((await hamlet.call('GET', '/users/me')).body.profile_data, expected, 'GET /users/me');

  // Unchanged values: no event.
  await verifyAction(t, s, othello, { action: () => set(hamlet, [{ id: birthday, value: '1600-04-23' }]), numEvents: 0, stateChangeExpected: false });

  // Remove: value null; missing value silent; unknown id error.
  t.same((await hamlet.call('DELETE', '/users/me/profile_data', { data: [999] })).body, bad('Field id 999 not found.'));
  t.same((await hamlet.call('DELETE', '/users/me/profile_data', { data: [locked] })).body, bad('You are not allowed to change this field. Contact an administrator to update it.'));
  const removed = await verifyAction(t, s, othello, {
    action: () => hamlet.call('DELETE', '/users/me/profile_data', { data: [birthday, nickname] }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(removed.actionResult.body, { result: 'success', msg: '' });
  t.same(removed.events[0]!.person, { user_id: hamlet.userId, custom_profile_field: { id: birthday, value: null } });
  t.notOk(String(birthday) in (await profile()));

  // Admins may set fields users cannot; bots cannot use the endpoint.
  t.same((await set(iago, [{ id: locked, value: 'Gold' }])).body, { result: 'success', msg: '' });
  const botUser = [...s.server.registry.bySubdomainName('')!.state.users.values()].find((u) => u.email === 'default-bot@zulip.com')!;
  const botCall = await s.request('PATCH', '/users/me/profile_data', {
    params: { data: [{ id: bio, value: 'x' }] },
    headers: { Authorization: 'Basic ' + Buffer.from(`${botUser.email}:${botUser.apiKey}`).toString('base64') },
  });
  t.same(botCall.body, bad('This endpoint does not accept bot requests.'));

  // Deleting a field drops the values from user objects.
  await iago.call('DELETE', `/realm/profile_fields/${bio}`);
  t.same(Object.keys(await profile()), [String(mentor)]);
});
