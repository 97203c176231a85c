/**
 * Alert words (https://zulip.com/api/add-alert-words; Zulip's zerver/views/alert_words.py,
 * zerver/lib/alert_words.py, markdown `AlertWordNotificationProcessor`) over HTTP: list, add
 * (cleaned, case-insensitive duplicates skipped), remove, the `alert_words` event and register
 * state through verifyAction, parameter errors with the list unchanged, and the `has_alert_word`
 * flag on delivery (word boundaries, case, the sender's own copy) and after an edit.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const list = async (c: Caller) => (await c.call('GET', '/users/me/alert_words')).body;
const send = async (c: Caller, content: string) =>
  (await c.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'alerts', content })).body.id as number;
const alerted = async (c: Caller, id: number) => ((await c.call('GET', `/messages/${id}`)).body.message.flags as string[]).includes('has_alert_word');

t.test('list, add, remove alert words: events, register, errors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  t.same(await list(hamlet), { result: 'success', msg: '', alert_words: [] });

  const added = await verifyAction(t, s, hamlet, {
    eventTypes: ['alert_words'],
    action: () => hamlet.call('POST', '/users/me/alert_words', { alert_words: ['  ALERT ', '', 'multi-word word', '☃'] }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(added.actionResult.body, { result: 'success', msg: '', alert_words: ['ALERT', 'multi-word word', '☃'] }, 'stripped, blank dropped');
  t.same(added.events[0]!.alert_words, ['ALERT', 'multi-word word', '☃']);

  // A case-insensitive repeat adds nothing, yet Zulip still sends the event.
  const again = await verifyAction(t, s, hamlet, {
    eventTypes: ['alert_words'],
    action: () => hamlet.call('POST', '/users/me/alert_words', { alert_words: ['alert', 'New', 'new'] }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(again.actionResult.body.alert_words, ['ALERT', 'multi-word word', '☃', 'new'], 'the last spelling of a repeated new word');

  const before = await list(hamlet);
  t.same((await hamlet.call('POST', '/users/me/alert_words', {})).body, {
    result: 'error', msg: "Missing 'alert_words' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'alert_words',
  });
  t.same((await hamlet.call('POST', '/users/me/alert_words', { alert_words: ['ok', 'x'.repeat(101)] })).body, {
    result: 'error', msg: 'alert_words[1] is too long (limit: 100 characters)', code: 'BAD_REQUEST',
  });
  t.equal((await hamlet.call('POST', '/users/me/alert_words', { alert_words: '"word"' })).body.result, 'error', 'not a list');
  t.equal((await hamlet.call('DELETE', '/users/me/alert_words', { alert_words: [1] })).body.result, 'error', 'not strings');
  t.same(await list(hamlet), before, 'errors changed nothing');

  const removed = await verifyAction(t, s, hamlet, {
    eventTypes: ['alert_words'],
    action: () => hamlet.call('DELETE', '/users/me/alert_words', { alert_words: ['Multi-Word Word', 'absent'] }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(removed.actionResult.body.alert_words, ['ALERT', '☃', 'new'], 'removed case-insensitively; unknown words ignored');
  const othello = await s.as('othello@zulip.com');
  t.same((await list(othello)).alert_words, [], "another user's list is their own");
});

t.test('has_alert_word on delivery and after an edit', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  t.equal((await hamlet.call('POST', '/users/me/alert_words', { alert_words: ['one', 'two', 'multi word'] })).body.result, 'success');

  const cases: Array<[string, boolean]> = [
    ['one', true],
    ['This one? should alert', true],
    ['Definitely time for two.', true],
    ['Case of ONE, will not stop me', true],
    ['a Multi Word phrase', true],
    ["Don't alert on clone, twofold or seventytwofold", false],
    ["Don't alert on http://t.co/one/ URLs", false],
    ['nothing here', false],
  ];
  for (const [content, expected] of cases) t.equal(await alerted(hamlet, await send(othello, content)), expected, `${JSON.stringify(content)} → ${expected}`);

  const event = await verifyAction(t, s, hamlet, {
    eventTypes: ['message'],
    fetchEventTypes: ['message', 'update_message_flags'],
    action: () => send(othello, 'ping one'),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.ok((event.events[0]!.flags as string[]).includes('has_alert_word'), "the message event's flags");
  t.notOk(await alerted(cordelia, event.actionResult), 'users without the word are not flagged');
  const own = await send(hamlet, 'my own one');
  t.ok(await alerted(hamlet, own), "the sender's own copy is flagged too (Zulip's test_update_alert_words)");

  // An edit re-evaluates the flag.
  t.equal((await hamlet.call('PATCH', `/messages/${own}`, { content: 'nothing to see' })).body.result, 'success');
  t.notOk(await alerted(hamlet, own), 'cleared when the word is edited away');
  t.equal((await hamlet.call('PATCH', `/messages/${own}`, { content: 'back to TWO' })).body.result, 'success');
  t.ok(await alerted(hamlet, own), 'set again when it comes back');
});
