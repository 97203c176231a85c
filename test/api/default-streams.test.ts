/**
 * Default channels over HTTP (https://zulip.com/api/add-default-stream,
 * https://zulip.com/api/remove-default-stream): `default_streams` events via verifyAction, the
 * register's `realm_default_streams`, new users subscribed to the defaults, every error with its
 * code and "state unchanged".
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

t.test('add and remove default channels', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const id = async (name: string) => (await iago.call('GET', '/get_stream_id', { stream: name })).body.stream_id as number;
  const rome = await id('Rome');
  const core = await id('core team');
  const initial = (await hamlet.call('POST', '/register', { fetch_event_types: ['default_streams'] })).body.realm_default_streams as number[];

  const added = await verifyAction(t, s, hamlet, { action: () => iago.call('POST', '/default_streams', { stream_id: rome }), numEvents: 1, stateChangeExpected: true });
  t.same(added.actionResult.body, { result: 'success', msg: '' });
  t.same(added.events[0], { id: added.events[0]!.id, type: 'default_streams', default_streams: [...initial, rome].sort((a, b) => a - b) });
  // Guests get no event and always an empty list.
  const guest = await verifyAction(t, s, polonius, { action: () => iago.call('DELETE', '/default_streams', { stream_id: rome }), numEvents: 0 });
  t.same(guest.after.realm_default_streams, []);
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['default_streams'] })).body.realm_default_streams, initial, 'removed again');
  // Adding twice / removing a non-default channel: no change, no event.
  await verifyAction(t, s, hamlet, { action: () => iago.call('DELETE', '/default_streams', { stream_id: rome }), numEvents: 0, stateChangeExpected: false });
  await iago.call('POST', '/default_streams', { stream_id: rome });
  await verifyAction(t, s, hamlet, { action: () => iago.call('POST', '/default_streams', { stream_id: rome }), numEvents: 0, stateChangeExpected: false });

  // A user created now is subscribed to the new default channel.
  const created = await s.as('desdemona@zulip.com');
  const reply = await created.call('POST', '/users', { email: 'newbie@zulip.com', password: 'a-long-enough-password-1', full_name: 'New User' });
  t.equal(reply.status, 200);
  const subscribed = await iago.call('GET', `/users/${reply.body.user_id}/subscriptions/${rome}`);
  t.equal(subscribed.body.is_subscribed, true, 'new user subscribed to the default channel');

  const before = (await hamlet.call('POST', '/register', { fetch_event_types: ['default_streams'] })).body.realm_default_streams;
  const cases: Array<[typeof iago, string, Record<string, unknown>, object]> = [
    [hamlet, 'POST', { stream_id: rome }, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL')],
    [hamlet, 'DELETE', { stream_id: rome }, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL')],
    [iago, 'POST', { stream_id: 4242 }, err('Invalid channel ID')],
    [iago, 'DELETE', { stream_id: 4242 }, err('Invalid channel ID')],
    [iago, 'POST', { stream_id: core }, err('Private channels cannot be made default.')],
    [iago, 'POST', {}, { result: 'error', msg: "Missing 'stream_id' argument", code: 'REQUEST_VARIABLE_MISSING' }],
  ];
  for (const [caller, method, params, expected] of cases) {
    const r = await verifyAction(t, s, hamlet, { action: () => caller.call(method, '/default_streams', params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, `${method} ${JSON.stringify(params)}`);
    t.match(r.actionResult.body, expected);
  }
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['default_streams'] })).body.realm_default_streams, before, 'unchanged after errors');
});
