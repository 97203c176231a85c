/**
 * User status over HTTP (https://zulip.com/api/update-status,
 * https://zulip.com/api/update-status-for-user): `POST /users/me/status`,
 * `POST /users/{user_id}/status` (administrators), `GET /users/{user_id}/status`, every error
 * with "state unchanged after error", `user_status` events via verifyAction, register state.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('user status endpoints', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const botUser = [...s.server.registry.bySubdomainName('')!.state.users.values()].find((u) => u.email === 'default-bot@zulip.com')!;
  const botAuth = 'Basic ' + Buffer.from(`${botUser.email}:${botUser.apiKey}`).toString('base64');
  const set = (params: Record<string, unknown>) => hamlet.call('POST', '/users/me/status', params);
  const get = async (userId = hamlet.userId) => (await othello.call('GET', `/users/${userId}/status`)).body;

  t.same(await get(), { result: 'success', msg: '', status: {} }, 'default status');
  const initial = (await othello.call('POST', '/register', { fetch_event_types: ['user_status'] })).body.user_status;
  t.same(initial, {}, 'register: nobody has a status');

  // Setting text and emoji: one event with exactly the supplied keys.
  const first = await verifyAction(t, s, othello, {
    action: () => set({ status_text: '  out to lunch  ', emoji_name: 'car' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(first.actionResult.body, { result: 'success', msg: '' });
  t.same(first.events[0], { id: first.events[0]!.id, type: 'user_status', user_id: hamlet.userId, status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  t.same(first.after.user_status, { [String(hamlet.userId)]: { status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' } });
  t.same((await get()).status, { status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });

  // away only: other keys untouched; away = !presence_enabled (seed §4.9), so the setting's events follow.
  const away = await verifyAction(t, s, hamlet, { action: () => set({ away: true }), numEvents: 3, stateChangeExpected: true });
  t.same(away.events[0], { id: away.events[0]!.id, type: 'user_status', user_id: hamlet.userId, away: true });
  t.same(away.events[1], { id: away.events[1]!.id, type: 'user_settings', op: 'update', property: 'presence_enabled', value: false });
  t.match(away.events[2], { type: 'update_global_notifications', user: 'hamlet@zulip.com', notification_name: 'presence_enabled', setting: false });
  t.equal(away.after.user_settings.presence_enabled, false, 'register: presence_enabled follows away');
  t.same((await get()).status, { away: true, status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });

  // The other direction: presence_enabled through PATCH /settings changes away, with both events.
  const enabled = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/settings', { presence_enabled: true }),
    numEvents: 3,
    stateChangeExpected: true,
  });
  t.same(enabled.actionResult.body, { result: 'success', msg: '' });
  t.same(enabled.events.map((e) => e.type), ['user_settings', 'update_global_notifications', 'user_status']);
  t.match(enabled.events[0], { property: 'presence_enabled', value: true });
  t.same(enabled.events[2], { id: enabled.events[2]!.id, type: 'user_status', user_id: hamlet.userId, away: false });
  t.equal(enabled.after.user_settings.presence_enabled, true);
  t.same((await get()).status, { status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'away cleared');
  // Unchanged value: no record, no event (Zulip's json_change_settings skips equal values).
  await verifyAction(t, s, hamlet, { action: () => hamlet.call('PATCH', '/settings', { presence_enabled: true }), numEvents: 0, stateChangeExpected: false });
  await verifyAction(t, s, hamlet, { action: () => hamlet.call('PATCH', '/settings', { presence_enabled: false }), numEvents: 3, stateChangeExpected: true });
  t.same((await get()).status, { away: true, status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });

  // Errors: exact messages, nothing changes, no events.
  const errors: Array<[Record<string, unknown>, string]> = [
    [{}, 'Client did not pass any new values.'],
    [{ emoji_code: '1f697' }, 'Client did not pass any new values.'],
    [{ status_text: 'x', reaction_type: 'unicode_emoji' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [{ status_text: 'y'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
    [{ emoji_name: 'definitely_not_an_emoji' }, "Emoji 'definitely_not_an_emoji' does not exist"],
    [{ emoji_name: 'smile', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.'],
    [{ emoji_name: 'party', emoji_code: '1', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
  ];
  for (const [params, msg] of errors) {
    const r = await verifyAction(t, s, othello, { action: () => set(params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, msg);
    t.same(r.actionResult.body, bad(msg));
  }
  t.same((await hamlet.call('POST', '/users/me/status', { away: 'yes' })).body.result, 'error', 'away must be a JSON bool');
  const botReply = await s.request('POST', '/users/me/status', { params: { status_text: 'beep' }, headers: { Authorization: botAuth } });
  t.same(botReply.body, bad('This endpoint does not accept bot requests.'));
  t.same((await get()).status, { away: true, status_text: 'out to lunch', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'state unchanged after errors');

  // Another user's status: administrators only, no `away`.
  const forbidden = await verifyAction(t, s, hamlet, {
    action: () => othello.call('POST', `/users/${hamlet.userId}/status`, { status_text: 'hacked' }),
    numEvents: 0,
    stateChangeExpected: false,
  });
  t.same(forbidden.actionResult.body, bad('Insufficient permission'));
  t.same((await iago.call('POST', '/users/9999/status', { status_text: 'x' })).body, bad('No such user'));
  t.same((await iago.call('POST', `/users/${hamlet.userId}/status`, {})).body, bad('Client did not pass any new values.'));
  const admin = await verifyAction(t, s, hamlet, {
    action: () => iago.call('POST', `/users/${hamlet.userId}/status`, { status_text: '', emoji_name: '' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(admin.events[0], { id: admin.events[0]!.id, type: 'user_status', user_id: hamlet.userId, status_text: '', emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' });
  t.same(admin.after.user_status, { [String(hamlet.userId)]: { away: true } }, 'cleared keys are omitted');

  // Back to the default: the user disappears from register state.
  const back = await verifyAction(t, s, othello, { action: () => set({ away: false }), numEvents: 1, stateChangeExpected: true });
  t.same(back.after.user_status, {});
  t.same(await get(), { result: 'success', msg: '', status: {} });
  t.same((await othello.call('GET', '/users/9999/status')).body, bad('No such user'));
});
