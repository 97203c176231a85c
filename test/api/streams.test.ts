/**
 * GET /streams and GET /users/me/subscriptions (https://zulip.com/api/get-subscriptions,
 * https://zulip.com/api/get-streams).
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';

const names = (list: Array<{ name: string }>) => list.map((s) => s.name);

t.test('channel lists by role', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  t.same(names((await hamlet.call('GET', '/streams')).body.streams), ['Denmark', 'Rome', 'Scotland', 'Venice', 'Verona', 'core team']);
  t.same(names((await othello.call('GET', '/streams')).body.streams), ['Denmark', 'Rome', 'Scotland', 'Venice', 'Verona']);
  t.same(names((await polonius.call('GET', '/streams')).body.streams), ['Denmark', 'Scotland', 'Verona'], 'guests see only subscribed');
  const denied = await othello.call('GET', '/streams', { include_all_active: true });
  t.same(denied.body, { result: 'error', msg: 'User not authorized for this query', code: 'BAD_REQUEST' });
  const iago = await s.as('iago@zulip.com');
  t.equal((await iago.call('GET', '/streams', { include_all_active: true })).body.streams.length, 6);
  const verona = (await hamlet.call('GET', '/streams', { include_default: true })).body.streams.find((x: { name: string }) => x.name === 'Verona');
  t.match(verona, { is_default: true, invite_only: false, history_public_to_subscribers: true, is_web_public: false, description: 'The Verona channel.', rendered_description: '<p>The Verona channel.</p>' });
});

t.test('subscriptions', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const subs = await hamlet.call('GET', '/users/me/subscriptions');
  t.same(names(subs.body.subscriptions), ['Denmark', 'Scotland', 'Verona', 'core team']);
  const sub = subs.body.subscriptions[0];
  t.match(sub, { is_muted: false, in_home_view: true, pin_to_top: false, desktop_notifications: null, email_notifications: null });
  t.match(sub.color, /^#[0-9a-f]{6}$/);
  t.notOk('subscribers' in sub);
  const withSubs = await hamlet.call('GET', '/users/me/subscriptions', { include_subscribers: true });
  t.equal(withSubs.body.subscriptions[3].subscribers.length, 3, 'core team has three members');
  t.equal(withSubs.body.subscriptions[0].subscribers.length, 9, 'Denmark has every human');
});

t.test('get_stream_id', async (t) => {
  const s = await startTestServer(t);
  const othello = await s.as('othello@zulip.com');
  t.same((await othello.call('GET', '/get_stream_id', { stream: 'verona' })).body, { result: 'success', msg: '', stream_id: 1 });
  t.same((await othello.call('GET', '/get_stream_id', { stream: 'core team' })).body, { result: 'error', msg: "Invalid channel name 'core team'", code: 'BAD_REQUEST' });
  t.same((await othello.call('GET', '/get_stream_id', { stream: 'nope' })).body, { result: 'error', msg: "Invalid channel name 'nope'", code: 'BAD_REQUEST' });
  t.equal((await othello.call('GET', '/get_stream_id', {})).body.code, 'REQUEST_VARIABLE_MISSING');
  const hamlet = await s.as('hamlet@zulip.com');
  t.equal((await hamlet.call('GET', '/get_stream_id', { stream: 'core team' })).body.stream_id, 6, 'subscribers see it');
});

t.test('topics of a channel', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const a = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Scotland', topic: 'Moors', content: 'x' });
  const b = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Scotland', topic: 'lochs', content: 'x' });
  const c = await othello.call('POST', '/messages', { type: 'stream', to: 'Scotland', topic: 'moors', content: 'y' });
  const d = await othello.call('POST', '/messages', { type: 'stream', to: 'Scotland', topic: '', content: 'z' });
  const r = await hamlet.call('GET', '/users/me/3/topics');
  t.same(r.body.topics, [
    { name: 'general chat', max_id: d.body.id },
    { name: 'moors', max_id: c.body.id },
    { name: 'lochs', max_id: b.body.id },
  ], 'grouped case-insensitively, latest spelling, newest first');
  t.ok(a.body.id < c.body.id);
  const withEmpty = await hamlet.call('GET', '/users/me/3/topics', { allow_empty_topic_name: true });
  t.equal(withEmpty.body.topics[0].name, '');
  const denied = await othello.call('GET', '/users/me/6/topics');
  t.same(denied.body, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  t.same((await hamlet.call('GET', '/users/me/6/topics')).body.topics, [], 'private channel without messages');
});
