/**
 * The verify-action protocol (test/support/verify-action.ts) on the events parley emits today:
 * channel and direct messages, typing notifications, and the absence of any event for a
 * private-channel message seen from outside the channel.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { applyEvent, verifyAction } from '../support/verify-action.js';

t.test('a channel message from someone else', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const { events, actionResult, before, after } = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: true,
    registerParams: { include_subscribers: true, apply_markdown: true },
    action: () => othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'verify', content: 'hello **there**' }),
  });
  const id = actionResult.body.id;
  t.match(events[0], { type: 'message', flags: [], message: { id, type: 'stream', display_recipient: 'Verona', subject: 'verify' } });
  t.equal(after.max_message_id, id);
  t.equal(after.unread_msgs.count, before.unread_msgs.count + 1);
});

t.test('own messages: read or unread for the sender', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  // A new topic: Zulip's default automatic follow adds muted_topics + user_topic before the message.
  const read = await verifyAction(t, s, hamlet, {
    numEvents: 3,
    action: () => hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'mine', content: 'x', read_by_sender: true }),
  });
  t.same(read.events[2]!.flags, ['read']);
  t.same(read.after.unread_msgs, read.before.unread_msgs, 'a read message changes no unread count');
  const unread = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    action: () => hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'mine', content: 'y', read_by_sender: false }),
  });
  t.same(unread.events[0]!.flags, []);
});

t.test('direct messages: one-to-one, to oneself, and a group', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const dm = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => othello.call('POST', '/messages', { type: 'direct', to: JSON.stringify([hamlet.userId]), content: 'psst' }),
  });
  t.match(dm.events[0], { type: 'message', message: { type: 'private', subject: '' } });
  t.ok(dm.after.unread_msgs.pms.some((p: any) => p.other_user_id === othello.userId && p.sender_id === othello.userId));
  t.equal(dm.after.recent_private_conversations[0].max_message_id, dm.actionResult.body.id);

  await verifyAction(t, s, hamlet, {
    numEvents: 1,
    action: () => hamlet.call('POST', '/messages', { type: 'direct', to: JSON.stringify([hamlet.userId]), content: 'note to self', read_by_sender: false }),
  });

  const group = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => othello.call('POST', '/messages', { type: 'private', to: '["hamlet@zulip.com","cordelia@zulip.com"]', content: 'all of us' }),
  });
  t.equal(group.after.unread_msgs.huddles.length, group.before.unread_msgs.huddles.length + 1);
});

t.test('a private channel message gives a non-subscriber no event and no state change', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  for (const outsider of [othello, polonius]) {
    const { events } = await verifyAction(t, s, outsider, {
      numEvents: 0,
      stateChangeExpected: false,
      action: () => hamlet.call('POST', '/messages', { type: 'stream', to: 'core team', topic: 'secret plans', content: 'shh' }),
    });
    t.same(events, [], `${outsider.email}: nothing`);
  }
  // The subscriber does get it.
  await verifyAction(t, s, hamlet, {
    numEvents: 1,
    action: () => hamlet.call('POST', '/messages', { type: 'stream', to: 'core team', topic: 'secret plans', content: 'again', read_by_sender: false }),
  });
});

t.test('the first message of a channel sets its first_message_id', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const { before, after } = await verifyAction(t, s, hamlet, {
    numEvents: 3, // automatic follow of the new topic: muted_topics, user_topic, message
    action: () => hamlet.call('POST', '/messages', { type: 'stream', to: 'Venice', topic: 'first', content: 'first!' }),
  });
  const venice = (state: any) => state.streams.find((x: any) => x.name === 'Venice');
  t.equal(venice(before).first_message_id, null);
  t.type(venice(after).first_message_id, 'number');
});

t.test('typing notifications change no state', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const { events } = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: false,
    action: () => othello.call('POST', '/typing', { op: 'start', to: JSON.stringify([hamlet.userId]) }),
  });
  t.match(events[0], { type: 'typing', op: 'start', sender: { user_id: othello.userId } });
});

t.test('narrower fetch_event_types', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const { before, after } = await verifyAction(t, s, hamlet, {
    eventTypes: ['message'],
    fetchEventTypes: ['message', 'update_message_flags'],
    numEvents: 1,
    action: () => othello.call('POST', '/messages', { type: 'stream', to: 'Scotland', topic: 'narrow', content: 'x' }),
  });
  t.same(Object.keys(before).sort(), ['idle_queue_timeout_secs', 'max_message_id', 'unread_msgs', 'zulip_feature_level', 'zulip_merge_base', 'zulip_version']);
  t.equal(after.unread_msgs.count, before.unread_msgs.count + 1);
});

t.test('applyEvent refuses event types it cannot fold', async (t) => {
  t.throws(() => applyEvent({}, { type: 'no_such_event', id: 0 }, { id: 1 }), /no fold for event type "no_such_event"/);
});
