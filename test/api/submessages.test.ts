/**
 * Widgets (https://zulip.com/api/send-submessage; Zulip's zerver/lib/widget.py and
 * zerver/views/submessage.py): a `/poll` or `/todo` message carries its `widget` submessage from
 * the send (message event and fetched message), votes / options / tasks go through
 * `POST /submessage` with Zulip's validation, the `submessage` event reaches the message's
 * readers (verifyAction), and refused submessages change nothing.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { widgetContentOf, validatePollData, validateTodoData } from '../../src/domain/widgets.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('widget data parsed as Zulip parses it', async (t) => {
  t.same(widgetContentOf('/poll Lunch?\n- pizza\n* sushi\n\n  salad  '), { widget_type: 'poll', extra_data: { question: 'Lunch?', options: ['pizza', 'sushi', 'salad'] } });
  t.same(widgetContentOf('/poll'), { widget_type: 'poll', extra_data: { question: '', options: [] } });
  t.same(widgetContentOf('/todo Release\n- tag: push the tag\n- announce'), {
    widget_type: 'todo', extra_data: { task_list_title: 'Release', tasks: [{ task: 'tag', desc: 'push the tag' }, { task: 'announce', desc: '' }] },
  });
  t.equal(widgetContentOf('/polls are open'), null);
  t.equal(widgetContentOf('hello /poll'), null);
  t.equal(validatePollData({ type: 'vote', key: '10,1', vote: 1 }, false), null);
  t.equal(validatePollData({ type: 'vote', key: 5, vote: 1 }, false), 'poll data["key"] is not a string');
  t.equal(validatePollData({ type: 'vote', key: 'x', vote: 2 }, false), 'Invalid poll data["vote"]');
  t.equal(validatePollData({ type: 'question', question: 'new?' }, false), "You can't edit a question unless you are the author.");
  t.equal(validatePollData({ type: 'new_option', option: 'tea', idx: 1, extra: 1 }, true), 'Unexpected arguments: extra');
  t.equal(validatePollData({ type: 'bogus' }, true), 'Unknown type for poll data: bogus');
  t.equal(validateTodoData({ type: 'new_task', key: 1, task: 't', desc: '', completed: false }, false), null);
  t.equal(validateTodoData({ type: 'strike', key: 1 }, false), 'todo data["key"] is not a string');
  t.equal(validateTodoData({ type: 'new_task_list_title', title: 'x' }, false), "You can't edit the task list title unless you are the author.");
  t.equal(validateTodoData([], false), 'todo data is not a dict');
});

t.test('polls over HTTP: created at send, voted on, events, errors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');

  const sent = await verifyAction(t, s, othello, {
    eventTypes: ['message'],
    action: () => hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'lunch', content: '/poll Lunch?\npizza\nsushi' }),
    numEvents: 1,
  });
  const id = sent.actionResult.body.id as number;
  const widget = { widget_type: 'poll', extra_data: { question: 'Lunch?', options: ['pizza', 'sushi'] } };
  t.match(sent.events[0]!.message.submessages, [{ msg_type: 'widget', message_id: id, sender_id: hamlet.userId }]);
  t.same(JSON.parse(sent.events[0]!.message.submessages[0].content), widget);
  const fetched = (await othello.call('GET', `/messages/${id}`)).body.message;
  t.same(fetched.submessages, sent.events[0]!.message.submessages, 'fetched messages carry them too');

  const vote = JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 });
  const { events } = await verifyAction(t, s, hamlet, {
    eventTypes: ['submessage'],
    action: () => othello.call('POST', '/submessage', { message_id: id, msg_type: 'widget', content: vote }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.match(events[0], { type: 'submessage', msg_type: 'widget', message_id: id, sender_id: othello.userId, content: vote });
  const after = (await othello.call('GET', `/messages/${id}`)).body.message.submessages;
  t.equal(after.length, 2);
  t.equal(after[1].id, events[0]!.submessage_id);

  const errors: Array<[Record<string, unknown>, string]> = [
    [{ content: 'not json' }, 'Invalid json for submessage'],
    [{ content: JSON.stringify({ type: 'vote', key: 1, vote: 1 }) }, 'poll data["key"] is not a string'],
    [{ content: JSON.stringify({ type: 'question', question: 'mine now' }) }, "You can't edit a question unless you are the author."],
    [{ message_id: 999999 }, 'Invalid message(s)'],
  ];
  for (const [params, msg] of errors) {
    const r = await othello.call('POST', '/submessage', { message_id: id, msg_type: 'widget', content: vote, ...params });
    t.same(r.body, bad(msg), msg);
  }
  // The first submessage of a plain message must come from its sender.
  const plain = (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'lunch', content: 'no widget' })).body.id;
  t.same((await othello.call('POST', '/submessage', { message_id: plain, msg_type: 'widget', content: '{}' })).body, bad('You cannot attach a submessage to this message.'));
  t.equal((await othello.call('GET', `/messages/${id}`)).body.message.submessages.length, 2, 'nothing added by the refused ones');
  t.same((await othello.call('GET', `/messages/${plain}`)).body.message.submessages, []);

  // A to-do list: the author renames it, anyone adds a task.
  const todo = (await hamlet.call('POST', '/messages', { type: 'direct', to: JSON.stringify([othello.userId]), content: '/todo Chores\n- dishes' })).body.id;
  t.equal((await hamlet.call('POST', '/submessage', { message_id: todo, msg_type: 'widget', content: JSON.stringify({ type: 'new_task_list_title', title: 'House' }) })).status, 200);
  t.equal((await othello.call('POST', '/submessage', { message_id: todo, msg_type: 'widget', content: JSON.stringify({ type: 'new_task', key: 1, task: 'laundry', desc: '', completed: false }) })).status, 200);
  t.same((await othello.call('POST', '/submessage', { message_id: todo, msg_type: 'widget', content: JSON.stringify({ type: 'new_task_list_title', title: 'Mine' }) })).body, bad("You can't edit the task list title unless you are the author."));
  t.equal((await hamlet.call('GET', `/messages/${todo}`)).body.message.submessages.length, 3);
});

t.test('a deleted message takes its submessages with it', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const id = (await iago.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'gone', content: '/poll Keep?' })).body.id;
  t.equal(s.server.registry.all()[0]!.state.submessages?.byMessage.get(id)?.length, 1);
  t.equal((await iago.call('DELETE', `/messages/${id}`)).status, 200);
  t.equal(s.server.registry.all()[0]!.state.submessages?.byMessage.get(id), undefined);
});
