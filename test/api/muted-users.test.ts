/**
 * Muted users (https://zulip.com/api/mute-user, https://zulip.com/api/unmute-user; Zulip's
 * zerver/views/muted_users.py, zerver/actions/muted_users.py) over HTTP: the `muted_users` event
 * and register state through verifyAction, muting marking the muted sender's unread messages read
 * (with the `update_message_flags` event and the unread counts), new messages of a muted sender
 * arriving read for the muter only, every error with the state unchanged, bots and deactivated
 * users, and the muter's read receipts filter.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const mutes = async (c: Caller) => (await c.call('POST', '/register', { fetch_event_types: ['muted_users'] })).body.muted_users;

const sendStream = async (c: Caller, content: string, topic = 'mute test') =>
  (await c.call('POST', '/messages', { type: 'stream', to: 'Verona', topic, content })).body.id as number;
const sendDirect = async (c: Caller, to: number[], content: string) =>
  (await c.call('POST', '/messages', { type: 'direct', to, content })).body.id as number;
const flagsOf = async (c: Caller, id: number) => (await c.call('GET', `/messages/${id}`)).body.message.flags as string[];

t.test('mute and unmute over HTTP: events, register, read marking, errors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');

  t.same(await mutes(hamlet), [], 'nobody muted at first');
  // Unread messages from othello to hamlet: one direct, one in a channel.
  const dm = await sendDirect(othello, [hamlet.userId], 'psst');
  const channelMsg = await sendStream(othello, 'hello all');
  t.notOk((await flagsOf(hamlet, dm)).includes('read'), 'the direct message is unread before the mute');

  const muted = await verifyAction(t, s, hamlet, {
    eventTypes: ['muted_users', 'update_message_flags', 'message'],
    fetchEventTypes: ['muted_users', 'update_message_flags', 'message'],
    action: () => hamlet.call('POST', `/users/me/muted_users/${othello.userId}`),
    numEvents: 2,
    stateChangeExpected: true,
  });
  t.same(muted.actionResult.body, { result: 'success', msg: '' });
  t.equal(muted.events[0]!.type, 'update_message_flags', 'the read marking comes first, as in Zulip');
  t.equal(muted.events[0]!.flag, 'read');
  t.ok((muted.events[0]!.messages as number[]).includes(dm) && (muted.events[0]!.messages as number[]).includes(channelMsg), 'both unread messages marked read');
  t.equal(muted.events[1]!.type, 'muted_users');
  const list = await mutes(hamlet);
  t.equal(list.length, 1);
  t.equal(list[0].id, othello.userId);
  t.ok(Number.isInteger(list[0].timestamp) && Math.abs(list[0].timestamp - Date.now() / 1000) < 120, 'timestamp: UNIX seconds of the mute');
  t.ok((await flagsOf(hamlet, dm)).includes('read'), 'the direct message is now read');
  t.notOk((await flagsOf(cordelia, channelMsg)).includes('read'), "cordelia's copy is untouched");

  // Errors, each leaving the list as it was.
  const before = await mutes(hamlet);
  t.same((await hamlet.call('POST', `/users/me/muted_users/${hamlet.userId}`)).body, bad('Cannot mute self'));
  t.same((await hamlet.call('POST', `/users/me/muted_users/${othello.userId}`)).body, bad('User already muted'));
  t.same((await hamlet.call('POST', '/users/me/muted_users/9999')).body, bad('No such user'));
  t.same((await hamlet.call('DELETE', '/users/me/muted_users/9999')).body, bad('No such user'));
  t.same((await hamlet.call('DELETE', `/users/me/muted_users/${cordelia.userId}`)).body, bad('User is not muted'));
  t.same(await mutes(hamlet), before, 'errors changed nothing');

  // New messages of the muted sender arrive read for hamlet only (the message event's flags too).
  const arrival = await verifyAction(t, s, hamlet, {
    eventTypes: ['message'],
    fetchEventTypes: ['message', 'update_message_flags'],
    action: () => sendStream(othello, 'another one'),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.ok((arrival.events[0]!.flags as string[]).includes('read'), "the muter's message event says read");
  t.ok((await flagsOf(hamlet, arrival.actionResult)).includes('read'));
  t.notOk((await flagsOf(cordelia, arrival.actionResult)).includes('read'), 'others still get it unread');
  const dm2 = await sendDirect(othello, [hamlet.userId], 'still there?');
  t.ok((await flagsOf(hamlet, dm2)).includes('read'), 'direct messages too');
  const unread = (await hamlet.call('POST', '/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
  t.notOk(JSON.stringify(unread).includes(String(dm2)), 'not in unread_msgs');

  // Unmute: one event, the list empties, new messages are unread again.
  const unmuted = await verifyAction(t, s, hamlet, {
    eventTypes: ['muted_users'],
    action: () => hamlet.call('DELETE', `/users/me/muted_users/${othello.userId}`),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(unmuted.events[0]!.muted_users, []);
  const after = await sendDirect(othello, [hamlet.userId], 'back');
  t.notOk((await flagsOf(hamlet, after)).includes('read'), 'unread again after unmuting');
});

t.test('bots and deactivated users can be muted; a muted sender stays out of read receipts', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const bots = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots as Array<{ user_id: number }>;
  t.ok(bots.length > 0, 'hamlet owns a bot');
  t.same((await hamlet.call('POST', `/users/me/muted_users/${bots[0]!.user_id}`)).body, { result: 'success', msg: '' }, 'a bot');
  const aaron = await s.as('aaron@zulip.com');
  t.equal((await iago.call('DELETE', `/users/${aaron.userId}`)).body.result, 'success');
  t.same((await hamlet.call('POST', `/users/me/muted_users/${aaron.userId}`)).body, { result: 'success', msg: '' }, 'a deactivated user');
  t.same((await mutes(hamlet)).map((m: { id: number }) => m.id), [bots[0]!.user_id, aaron.userId], 'in mute order');

  // Read receipts: othello muted hamlet, so neither sees the other's receipt.
  t.equal((await iago.call('PATCH', '/realm', { enable_read_receipts: true })).body.result, 'success');
  const id = await sendStream(iago, 'read me');
  for (const c of [hamlet, othello]) t.equal((await c.call('POST', '/messages/flags', { messages: [id], op: 'add', flag: 'read' })).body.result, 'success');
  t.same((await iago.call('GET', `/messages/${id}/read_receipts`)).body.user_ids, [hamlet.userId, othello.userId]);
  t.equal((await othello.call('POST', `/users/me/muted_users/${hamlet.userId}`)).body.result, 'success');
  t.same((await hamlet.call('GET', `/messages/${id}/read_receipts`)).body.user_ids, [hamlet.userId], 'the muter is hidden from the muted user');
  t.same((await othello.call('GET', `/messages/${id}/read_receipts`)).body.user_ids, [othello.userId], 'the muted user is hidden from the muter');
  t.same((await iago.call('GET', `/messages/${id}/read_receipts`)).body.user_ids, [hamlet.userId, othello.userId], 'a third user sees both');
});
