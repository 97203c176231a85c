/**
 * `GET /messages/{id}/read_receipts` (https://zulip.com/api/get-read-receipts; Zulip's
 * zerver/views/read_receipts.py) and `POST /messages/{id}/typing`
 * (https://zulip.com/api/set-typing-status-for-message-edit; zerver/views/typing.py
 * `send_message_edit_notification_backend`) over HTTP: who is listed (readers with
 * `send_read_receipts`, never the sender), the realm switch, message access; edit-typing events to
 * channel subscribers or conversation members, and its errors.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const receipts = async (c: Caller, id: number) => (await c.call('GET', `/messages/${id}/read_receipts`)).body;
const markRead = async (c: Caller, id: number) => (await c.call('POST', '/messages/flags', { messages: [id], op: 'add', flag: 'read' })).body.result;

t.test('read receipts', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const id = (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'receipts', content: 'read me' })).body.id as number;

  t.same(await receipts(othello, id), bad('Read receipts are disabled in this organization.'), 'off by default');
  const realm = await verifyAction(t, s, iago, {
    eventTypes: ['realm'],
    fetchEventTypes: ['realm'],
    action: () => iago.call('PATCH', '/realm', { enable_read_receipts: true }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(realm.events[0]!.property, 'enable_read_receipts');
  t.same(await receipts(othello, id), { result: 'success', msg: '', user_ids: [] }, 'nobody read it yet (the sender never counts)');

  for (const c of [othello, cordelia]) t.equal(await markRead(c, id), 'success');
  t.same((await receipts(hamlet, id)).user_ids, [othello.userId, cordelia.userId]);
  // cordelia stops sharing receipts.
  t.equal((await cordelia.call('PATCH', '/settings', { send_read_receipts: false })).body.result, 'success');
  t.same((await receipts(hamlet, id)).user_ids, [othello.userId], 'send_read_receipts off hides the reader');
  // Unread again → gone.
  t.equal((await othello.call('POST', '/messages/flags', { messages: [id], op: 'remove', flag: 'read' })).body.result, 'success');
  t.same((await receipts(hamlet, id)).user_ids, []);

  // Access: unknown ids and messages the caller cannot read are the same error.
  t.same(await receipts(hamlet, 99999), bad('Invalid message(s)'));
  const secret = (await iago.call('POST', '/messages', { type: 'stream', to: 'core team', topic: 'x', content: 'private' })).body.id as number;
  t.same(await receipts(othello, secret), bad('Invalid message(s)'), 'a private channel othello is not in');
  const dm = (await hamlet.call('POST', '/messages', { type: 'direct', to: [othello.userId], content: 'between us' })).body.id as number;
  t.same(await receipts(polonius, dm), bad('Invalid message(s)'), 'a direct message the caller is not in');
  t.same((await receipts(othello, dm)).user_ids, [], 'a participant may ask');
  t.equal((await iago.call('PATCH', '/realm', { enable_read_receipts: false })).body.result, 'success');
  t.same(await receipts(othello, secret), bad('Invalid message(s)'), 'access is checked before the realm switch');
});

t.test('edit typing notifications', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const channelMsg = (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'typing', content: 'draft' })).body.id as number;
  const dm = (await hamlet.call('POST', '/messages', { type: 'direct', to: [othello.userId], content: 'hi' })).body.id as number;
  const verona = (await hamlet.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id as number;

  const start = await verifyAction(t, s, othello, {
    eventTypes: ['typing_edit_message'],
    action: () => hamlet.call('POST', `/messages/${channelMsg}/typing`, { op: 'start' }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.same(start.actionResult.body, { result: 'success', msg: '' });
  const { id: _id, ...event } = start.events[0]!;
  t.same(event, { type: 'typing_edit_message', op: 'start', sender_id: hamlet.userId, message_id: channelMsg, recipient: { type: 'channel', channel_id: verona, topic: 'typing' } });

  const direct = await verifyAction(t, s, othello, {
    eventTypes: ['typing_edit_message'],
    action: () => hamlet.call('POST', `/messages/${dm}/typing`, { op: 'stop' }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.same(direct.events[0]!.recipient, { type: 'direct', user_ids: [hamlet.userId, othello.userId].sort((a, b) => a - b) });
  t.equal(direct.events[0]!.op, 'stop');
  // cordelia is not in the direct conversation: nothing arrives for her.
  await verifyAction(t, s, cordelia, {
    eventTypes: ['typing_edit_message'],
    action: () => hamlet.call('POST', `/messages/${dm}/typing`, { op: 'start' }),
    numEvents: 0,
  });

  t.same((await othello.call('POST', `/messages/${channelMsg}/typing`, { op: 'start' })).body, bad("You don't have permission to edit this message"));
  t.same((await hamlet.call('POST', `/messages/${channelMsg}/typing`, { op: 'typing' })).body, bad('Invalid op'));
  t.same((await hamlet.call('POST', `/messages/${channelMsg}/typing`, {})).body, {
    result: 'error', msg: "Missing 'op' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'op',
  });
  t.same((await cordelia.call('POST', `/messages/${dm}/typing`, { op: 'start' })).body, bad('Invalid message(s)'));
  t.equal((await hamlet.call('PATCH', '/settings', { send_stream_typing_notifications: false })).body.result, 'success');
  t.same((await hamlet.call('POST', `/messages/${channelMsg}/typing`, { op: 'start' })).body, bad('User has disabled typing notifications for channel messages'));
  t.equal((await hamlet.call('PATCH', '/settings', { send_private_typing_notifications: false })).body.result, 'success');
  t.same((await hamlet.call('POST', `/messages/${dm}/typing`, { op: 'start' })).body, bad('User has disabled typing notifications for direct messages'));
});
