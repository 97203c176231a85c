/**
 * Subscription endpoints (https://zulip.com/api/subscribe, https://zulip.com/api/unsubscribe,
 * https://zulip.com/api/update-subscriptions, https://zulip.com/api/get-subscriptions,
 * https://zulip.com/api/update-subscription-settings,
 * https://zulip.com/api/get-subscription-status): replies, error strings, and the
 * `subscription` / `stream` events checked with `verifyAction` (register state + events = fresh).
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const CAPS = { client_capabilities: { notification_settings_null: true, archived_channels: false } };

/** The key of `subscribed` / `already_subscribed` at FL 417: the user id as a string. */
function key(c: Caller): string {
  return String(c.userId);
}

async function streamId(c: Caller, name: string): Promise<number> {
  return (await c.call('GET', '/get_stream_id', { stream: name })).body.stream_id;
}

t.test('subscribe self: reply and events', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const me = key(othello);
  const { events, actionResult } = await verifyAction(t, s, othello, {
    registerParams: CAPS,
    action: () => othello.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'venice' }, { name: 'Verona' }] }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(actionResult.body, { result: 'success', msg: '', subscribed: { [me]: ['Venice'] }, already_subscribed: { [me]: ['Verona'] } });
  t.match(events[0], { type: 'subscription', op: 'add', subscriptions: [{ name: 'Venice', subscribers: [othello.userId] }] });

  const peer = await verifyAction(t, s, hamlet, {
    registerParams: { ...CAPS, include_subscribers: true },
    action: () => othello.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Rome', color: '#abc' }] }),
    numEvents: 1,
  });
  t.same(peer.events[0], { id: peer.events[0]!.id, type: 'subscription', op: 'peer_add', stream_ids: [await streamId(hamlet, 'Rome')], user_ids: [othello.userId] });
  const subs = (await othello.call('GET', '/users/me/subscriptions')).body.subscriptions;
  t.equal(subs.find((x: { name: string }) => x.name === 'Rome').color, '#abc');
  t.same((await hamlet.call('GET', `/users/${othello.userId}/subscriptions/${await streamId(hamlet, 'Rome')}`)).body, { result: 'success', msg: '', is_subscribed: true });
});

t.test('creating channels by subscribing', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const observer = await verifyAction(t, s, hamlet, {
    registerParams: CAPS,
    action: () => othello.call('POST', '/users/me/subscriptions', {
      subscriptions: [{ name: 'Brand new', description: 'All **new**' }],
      principals: ['othello@zulip.com', 'cordelia@zulip.com'],
    }),
    numEvents: 2,
  });
  t.same(observer.events.map((e) => `${e.type}/${e.op}`), ['stream/create', 'subscription/peer_add']);
  t.match(observer.events[0], { streams: [{ name: 'Brand new', rendered_description: '<p>All <strong>new</strong></p>', invite_only: false }] });

  const creator = await verifyAction(t, s, othello, {
    registerParams: CAPS,
    action: () => othello.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Another' }] }),
    numEvents: 3,
  });
  t.same(creator.events.map((e) => `${e.type}/${e.op ?? ''}`), ['stream/create', 'subscription/add', 'message/']);
  t.match(creator.events[2], { message: { sender_email: 'notification-bot@zulip.com', subject: 'channel events', display_recipient: 'Another' } });

  // A private channel: invisible to other members, visible to administrators.
  const member = await verifyAction(t, s, hamlet, {
    registerParams: CAPS,
    action: () => othello.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'hush' }], invite_only: true }),
    stateChangeExpected: false,
  });
  t.same(member.events, []);
  const admin = await verifyAction(t, s, iago, {
    registerParams: CAPS,
    action: () => othello.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'hush2' }], invite_only: true, history_public_to_subscribers: true }),
    numEvents: 2,
  });
  t.match(admin.events[0], { type: 'stream', op: 'create', streams: [{ name: 'hush2', invite_only: true, history_public_to_subscribers: true }] });
});

t.test('joining a private channel by invitation sends stream create', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  // hamlet is in "core team": a channel administrator? No: the realm default lets members add
  // subscribers to channels they are subscribed to.
  const { events } = await verifyAction(t, s, othello, {
    registerParams: CAPS,
    action: () => hamlet.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'core team' }], principals: [othello.userId] }),
    numEvents: 3,
  });
  t.same(events.map((e) => `${e.type}/${e.op ?? ''}`), ['stream/create', 'subscription/add', 'message/']);
  t.match(events[2], { message: { sender_email: 'notification-bot@zulip.com', content: /subscribed you to the channel/ } });
});

t.test('unsubscribe: reply and events', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const self = await verifyAction(t, s, othello, {
    registerParams: { ...CAPS, include_subscribers: true },
    action: () => othello.call('DELETE', '/users/me/subscriptions', { subscriptions: ['Verona', 'Venice'] }),
    numEvents: 1,
  });
  t.same(self.actionResult.body, { result: 'success', msg: '', removed: ['Verona'], not_removed: ['Venice'] });
  t.same(self.events[0], { id: self.events[0]!.id, type: 'subscription', op: 'remove', subscriptions: [{ name: 'Verona', stream_id: await streamId(hamlet, 'Verona') }] });
  const peer = await verifyAction(t, s, hamlet, {
    registerParams: CAPS,
    action: () => othello.call('DELETE', '/users/me/subscriptions', { subscriptions: ['Denmark'] }),
    numEvents: 1,
  });
  t.match(peer.events[0], { type: 'subscription', op: 'peer_remove', user_ids: [othello.userId] });
  // Losing access to a private channel: remove, then stream delete.
  const lost = await verifyAction(t, s, hamlet, {
    registerParams: CAPS,
    action: () => iago.call('DELETE', '/users/me/subscriptions', { subscriptions: ['core team'], principals: ['hamlet@zulip.com'] }),
    numEvents: 2,
  });
  t.same(lost.events.map((e) => `${e.type}/${e.op}`), ['subscription/remove', 'stream/delete']);
  const denied = await othello.call('DELETE', '/users/me/subscriptions', { subscriptions: ['Scotland'], principals: ['hamlet@zulip.com'] });
  t.same(denied.body, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
  const missing = await othello.call('DELETE', '/users/me/subscriptions', { subscriptions: ['nope', 'core team'] });
  t.same(missing.body, { result: 'error', msg: 'Channel(s) (nope, core team) do not exist', code: 'BAD_REQUEST' });
});

t.test('PATCH bulk add and delete', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  const me = key(othello);
  const r = await othello.call('PATCH', '/users/me/subscriptions', { add: [{ name: 'Venice' }], delete: ['Verona'] });
  t.same(r.body, { result: 'success', msg: '', subscribed: { [me]: ['Venice'] }, already_subscribed: {}, removed: ['Verona'], not_removed: [] });
  t.same((await othello.call('PATCH', '/users/me/subscriptions', {})).body, {
    result: 'error', msg: 'Nothing to do. Specify at least one of "add" or "delete".', code: 'BAD_REQUEST',
  });
  t.match((await othello.call('PATCH', '/users/me/subscriptions', { add: [{ color: '#fff' }] })).body, { msg: 'name key is missing from add[0]' });
  t.match((await othello.call('PATCH', '/users/me/subscriptions', { add: ['x'] })).body, { msg: 'add[0] is not a dict' });
  t.match((await othello.call('PATCH', '/users/me/subscriptions', { delete: [1] })).body, { msg: 'delete[0] is not a string' });
  t.match((await othello.call('PATCH', '/users/me/subscriptions', { add: [{ name: 'x', color: 'red' }] })).body, { msg: 'add[0]["color"] is not a valid hex color code' });
});

t.test('POST validation errors change nothing', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const before = (await othello.call('GET', '/users/me/subscriptions', { include_subscribers: true })).body;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ subscriptions: [{ name: 'x', color: 'blue' }] }, 'subscriptions[0]["color"] is not a valid hex color code'],
    [{ subscriptions: [{ name: 'x', description: 'd'.repeat(1025) }] }, 'subscriptions[0]["description"] is too long (limit: 1024 characters)'],
    [{ subscriptions: [{ name: 'x', extra: 1 }] }, 'Unexpected arguments: extra'],
    [{ subscriptions: [{ name: 'x' }], principals: ['a@b.c', 1] }, 'principals is not an allowed_type'],
    [{ subscriptions: [{ name: 'x' }], principals: ['nobody@zulip.com'] }, 'No such user'],
    [{ subscriptions: [{ name: '' }] }, "Channel name can't be empty!"],
    [{ subscriptions: [{ name: 'core team' }] }, 'Unable to access channel (core team).'],
    [{ subscriptions: [{ name: 'x' }], is_default_stream: true }, 'Insufficient permission'],
    [{ subscriptions: [{ name: 'x' }], is_web_public: true }, 'Insufficient permission'],
  ];
  for (const [params, msg] of cases) {
    const r = await othello.call('POST', '/users/me/subscriptions', params);
    t.equal(r.status, 400, msg);
    t.equal(r.body.msg, msg);
  }
  t.match((await othello.call('POST', '/users/me/subscriptions', {})).body, { code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'subscriptions' argument" });
  const guest = await polonius.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Venice' }], authorization_errors_fatal: false });
  t.same(guest.body, { result: 'success', msg: '', subscribed: {}, already_subscribed: {}, unauthorized: ['Venice'] });
  const after = (await othello.call('GET', '/users/me/subscriptions', { include_subscribers: true })).body;
  t.same(after, before, 'nothing changed');
  t.equal((await othello.call('GET', '/get_stream_id', { stream: 'x' })).status, 400, 'no channel created');
});

t.test('subscription properties', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  const verona = await streamId(othello, 'Verona');
  const muted = await verifyAction(t, s, othello, {
    registerParams: CAPS,
    action: () => othello.call('POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: verona, property: 'in_home_view', value: false }] }),
    numEvents: 2,
  });
  t.same(muted.events.map((e) => [e.property, e.value]), [['in_home_view', false], ['is_muted', true]]);
  await verifyAction(t, s, othello, {
    registerParams: CAPS,
    action: () => othello.call('POST', '/users/me/subscriptions/properties', {
      subscription_data: [
        { stream_id: verona, property: 'color', value: '#000000' },
        { stream_id: verona, property: 'pin_to_top', value: true },
        { stream_id: verona, property: 'desktop_notifications', value: false },
        { stream_id: verona, property: 'wildcard_mentions_notify', value: true },
      ],
    }),
    numEvents: 4,
  });
  await verifyAction(t, s, othello, {
    registerParams: CAPS,
    action: () => othello.call('PATCH', `/users/me/subscriptions/${verona}`, { property: 'color', value: '#123abc' }),
    numEvents: 1,
  });
  const sub = (await othello.call('GET', '/users/me/subscriptions')).body.subscriptions.find((x: { name: string }) => x.name === 'Verona');
  t.match(sub, { color: '#123abc', pin_to_top: true, is_muted: true, in_home_view: false, desktop_notifications: false, wildcard_mentions_notify: true });

  const venice = await streamId(othello, 'Venice');
  const errors: Array<[unknown, string]> = [
    [[{ property: 'color', value: '#fff' }], 'stream_id key is missing from subscription_data[0]'],
    [[{ stream_id: verona, property: 'color' }], 'value key is missing from subscription_data[0]'],
    [[{ stream_id: verona, property: 'nope', value: true }], 'Unknown subscription property: nope'],
    [[{ stream_id: 9999, property: 'color', value: '#fff' }], 'Invalid channel ID'],
    [[{ stream_id: venice, property: 'color', value: '#fff' }], `Not subscribed to channel ID ${venice}`],
    [[{ stream_id: verona, property: 'color', value: 'red' }], 'color is not a valid hex color code'],
    [[{ stream_id: verona, property: 'is_muted', value: 'yes' }], 'is_muted is not a boolean'],
  ];
  for (const [data, msg] of errors) {
    const r = await othello.call('POST', '/users/me/subscriptions/properties', { subscription_data: data });
    t.equal(r.body.msg, msg);
  }
  const unchanged = (await othello.call('GET', '/users/me/subscriptions')).body.subscriptions.find((x: { name: string }) => x.name === 'Verona');
  t.same(unchanged, sub, 'state unchanged after errors');
});

t.test('GET /users/{user_id}/subscriptions/{stream_id}', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const core = await streamId(hamlet, 'core team');
  t.same((await othello.call('GET', `/users/${hamlet.userId}/subscriptions/${await streamId(othello, 'Venice')}`)).body, { result: 'success', msg: '', is_subscribed: false });
  t.same((await othello.call('GET', `/users/${hamlet.userId}/subscriptions/${core}`)).body, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  t.same((await othello.call('GET', `/users/9999/subscriptions/${core}`)).body, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  t.same((await hamlet.call('GET', `/users/${hamlet.userId}/subscriptions/${core}`)).body.is_subscribed, true);
});
