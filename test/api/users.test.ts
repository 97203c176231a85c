/**
 * GET /users/me, GET /users, GET /users/{id}, GET /users/{email}
 * (https://zulip.com/api/get-own-user, https://zulip.com/api/get-users,
 * https://zulip.com/api/get-user).
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';

const USER_KEYS = ['avatar_url', 'avatar_version', 'date_joined', 'delivery_email', 'email', 'full_name', 'is_active', 'is_admin', 'is_bot', 'is_guest', 'is_owner', 'role', 'timezone', 'user_id'];

t.test('users/me', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const me = await iago.call('GET', '/users/me');
  t.equal(me.status, 200);
  t.match(me.body, { user_id: iago.userId, email: 'iago@zulip.com', delivery_email: 'iago@zulip.com', full_name: 'Iago', role: 200, is_admin: true, is_owner: false, is_guest: false, is_bot: false, is_active: true, profile_data: {} });
  t.equal(me.body.max_message_id, 4, 'iago received the Verona thread (1-3) and the Denmark message (4), not the DMs');
  t.match(me.body.date_joined, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
  t.type(me.body.avatar_url, 'string', 'users/me always computes avatar URLs');
  t.notOk('is_billing_admin' in me.body, 'removed at FL 363');
});

t.test('GET /users lists everyone including bots', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const all = await hamlet.call('GET', '/users');
  t.equal(all.body.members.length, 10);
  const bot = all.body.members.find((u: { email: string }) => u.email === 'default-bot@zulip.com');
  t.match(bot, { is_bot: true, bot_type: 1, bot_owner_id: hamlet.userId });
  const human = all.body.members.find((u: { email: string }) => u.email === 'hamlet@zulip.com');
  t.same(Object.keys(human).sort(), USER_KEYS);
  t.equal(human.avatar_url, null, 'client_gravatar defaults to true');
  const withAvatars = await hamlet.call('GET', '/users', { client_gravatar: false, include_custom_profile_fields: true });
  t.type(withAvatars.body.members[0].avatar_url, 'string');
  t.same(withAvatars.body.members.find((u: { is_bot: boolean }) => !u.is_bot).profile_data, {});
  const some = await hamlet.call('GET', '/users', { user_ids: [1, 2, 999] });
  t.same(some.body.members.map((u: { user_id: number }) => u.user_id), [1, 2]);
  const bad = await hamlet.call('GET', '/users', { user_ids: 'nope' });
  t.equal(bad.status, 400);
});

t.test('one user by id and by email', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const byId = await hamlet.call('GET', '/users/5');
  t.equal(byId.body.user.user_id, 5);
  const byEmail = await hamlet.call('GET', '/users/OTHELLO@zulip.com');
  t.equal(byEmail.body.user.email, 'othello@zulip.com');
  const missing = await hamlet.call('GET', '/users/4242');
  t.same(missing.body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  const missingEmail = await hamlet.call('GET', '/users/ghost@zulip.com');
  t.same(missingEmail.body, missing.body);
});
