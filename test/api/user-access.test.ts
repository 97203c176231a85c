/**
 * Reading another user over HTTP goes through the access family (Zulip's zerver/lib/users.py
 * `access_user_by_id`, `access_user_by_email`, `check_can_access_user`): `GET /users/{id}`,
 * `GET /users/{email}`, `GET /users/{id}/status`, `GET /users/{id}/subscriptions/{stream_id}`,
 * `GET /users/{id}/presence`; and one message through `access_message` (`GET /messages/{id}`,
 * `GET /messages/{id}/history`). Unknown, other-realm, bot, deactivated and — for a guest outside
 * `can_access_all_users_group` — inaccessible targets each get Zulip's error.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { systemGroupId } from '../../src/domain/groups.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('user lookups: unknown, bot, deactivated, restricted guest', async (t) => {
  const s = await startTestServer(t);
  const state = s.server.registry.bySubdomainName('')!.state;
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const bot = [...state.users.values()].find((u) => u.email === 'default-bot@zulip.com')!;
  const unknownId = Math.max(...state.users.keys()) + 1000;
  const verona = (await hamlet.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id as number;

  // Deactivate othello (an administrator's write, through the API).
  t.equal((await iago.call('DELETE', `/users/${othello.userId}`)).status, 200);

  // GET /users/{id}: bots and deactivated users are readable; unknown ids are not.
  t.equal((await hamlet.call('GET', `/users/${bot.id}`)).body.user.user_id, bot.id);
  t.equal((await hamlet.call('GET', `/users/${othello.userId}`)).body.user.is_active, false);
  t.same((await hamlet.call('GET', `/users/${unknownId}`)).body, bad('No such user'));
  t.same((await hamlet.call('GET', '/users/nobody@zulip.com')).body, bad('No such user'));

  // GET /users/{id}/status: no bots ("No such user"), no deactivated users.
  t.same((await hamlet.call('GET', `/users/${bot.id}/status`)).body, bad('No such user'));
  t.same((await hamlet.call('GET', `/users/${othello.userId}/status`)).body, bad('User is deactivated'));
  t.same((await hamlet.call('GET', `/users/${unknownId}/status`)).body, bad('No such user'));

  // GET /users/{id}/subscriptions/{stream_id}: the same target rules before the channel's.
  t.same((await hamlet.call('GET', `/users/${othello.userId}/subscriptions/${verona}`)).body, bad('User is deactivated'));
  t.same((await hamlet.call('GET', `/users/${unknownId}/subscriptions/${verona}`)).body, bad('No such user'));

  // Presence: unknown and deactivated → "No such user"; bots have none.
  t.same((await hamlet.call('GET', `/users/${othello.userId}/presence`)).body, bad('No such user'));
  t.same((await hamlet.call('GET', `/users/${bot.id}/presence`)).body, bad('Presence is not supported for bot users.'));

  // A guest outside can_access_all_users_group: only users sharing a channel or a DM are accessible.
  // The guest leaves every channel, so hamlet shares nothing with them.
  const subs = (await polonius.call('GET', '/users/me/subscriptions')).body.subscriptions as Array<{ name: string }>;
  const left = await polonius.call('DELETE', '/users/me/subscriptions', { subscriptions: subs.map((sub) => sub.name) });
  t.equal(left.status, 200, 'guest unsubscribed from everything');
  const lonely = hamlet.userId;
  const before = (await polonius.call('GET', `/users/${lonely}`)).body;
  t.equal(before.user.user_id, lonely, 'unrestricted guest reads everyone');
  state.settings.groups['can_access_all_users_group'] = systemGroupId(state, 'role:members');
  t.same((await polonius.call('GET', `/users/${lonely}`)).body, bad('Insufficient permission'));
  t.same((await polonius.call('GET', '/users/hamlet@zulip.com')).body, bad('Insufficient permission'));
  t.same((await polonius.call('GET', `/users/${lonely}/status`)).body, bad('Insufficient permission'));
  t.same((await polonius.call('GET', `/users/${lonely}/subscriptions/${verona}`)).body, bad('Insufficient permission'));
  t.equal((await polonius.call('GET', `/users/${polonius.userId}`)).body.user.user_id, polonius.userId, 'themself');
  t.equal((await polonius.call('GET', `/users/${bot.id}`)).body.user.user_id, bot.id, 'bots stay accessible');
  t.equal((await iago.call('GET', `/users/${polonius.userId}`)).body.user.user_id, polonius.userId, 'members are not restricted');
});

t.test('one message: inaccessible and unknown ids are the same error', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const sent = await hamlet.call('POST', '/messages', { type: 'private', to: JSON.stringify([hamlet.userId]), content: 'note to self' });
  const id = sent.body.id as number;
  t.equal((await hamlet.call('GET', `/messages/${id}`)).body.raw_content, 'note to self');
  t.same((await polonius.call('GET', `/messages/${id}`)).body, bad('Invalid message(s)'));
  t.same((await polonius.call('GET', `/messages/${id + 10_000}`)).body, bad('Invalid message(s)'));
  t.equal((await hamlet.call('GET', `/messages/${id}/history`)).body.message_history.length, 1);
  t.same((await polonius.call('GET', `/messages/${id}/history`)).body, bad('Invalid message(s)'));
});
