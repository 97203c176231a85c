/**
 * The app's state folding (src/webapp/app/apply-event.ts) on register answers and event shapes
 * as https://zulip.com/api/get-events documents them: unread counts per channel, topic and
 * direct-message conversation; the open narrow's feed (local echo replaced by the server's
 * copy, edits, topic moves, deletions, reactions); users and subscriptions. Runs in Node: the
 * modules touch no DOM until a network call, which none of these make.
 */
import t from 'tap';
import { applyEvents, applyRegister } from '../../src/webapp/app/apply-event.js';
import {
  dmConversations,
  feed,
  me,
  narrow,
  subscriptions,
  topicKey,
  typing,
  unread,
  unreadByDm,
  unreadByStream,
  unreadByTopic,
  users,
} from '../../src/webapp/app/state.js';
import type { Message, RegisterResponse, ServerEvent } from '../../src/webapp/app/types.js';

const HAMLET = 10;
const OTHELLO = 11;
const VERONA = 1;

function register(): RegisterResponse {
  return {
    queue_id: 'q1',
    last_event_id: -1,
    user_id: HAMLET,
    full_name: 'King Hamlet',
    email: 'hamlet@zulip.com',
    subscriptions: [
      { stream_id: VERONA, name: 'Verona', color: '#76ce90' },
      { stream_id: 2, name: 'Denmark', color: '#fae589' },
    ],
    realm_users: [
      { user_id: HAMLET, email: 'hamlet@zulip.com', full_name: 'King Hamlet', is_bot: false },
      { user_id: OTHELLO, email: 'othello@zulip.com', full_name: 'Othello', is_bot: false },
    ],
    unread_msgs: {
      streams: [{ stream_id: VERONA, topic: 'lunch', unread_message_ids: [5, 6] }],
      pms: [{ other_user_id: OTHELLO, unread_message_ids: [7] }],
      huddles: [],
      mentions: [6],
    },
    starred_messages: [],
    recent_private_conversations: [{ user_ids: [OTHELLO], max_message_id: 7 }],
    presences: {},
    user_settings: { color_scheme: 3 },
  };
}

function streamMessage(id: number, topic: string, extra: Partial<Message> = {}): Message {
  return {
    id,
    type: 'stream',
    sender_id: OTHELLO,
    sender_full_name: 'Othello',
    sender_email: 'othello@zulip.com',
    timestamp: 1_700_000_000 + id,
    content: `<p>message ${id}</p>`,
    subject: topic,
    stream_id: VERONA,
    display_recipient: 'Verona',
    reactions: [],
    flags: [],
    ...extra,
  };
}

let nextEventId = 0;
const event = (type: string, fields: Record<string, unknown>): ServerEvent => ({ id: nextEventId++, type, ...fields });

t.beforeEach(() => {
  applyRegister(register());
  narrow.value = [];
  feed.value = [];
});

t.test('register: unread counts per channel, topic and DM conversation', async (t) => {
  t.equal(me.value.userId, HAMLET);
  t.equal(unreadByStream.value.get(VERONA), 2);
  t.equal(unreadByTopic.value.get(topicKey(VERONA, 'LUNCH')), 2, 'topics compare case-insensitively');
  t.equal(unreadByDm.value.get(String(OTHELLO)), 1);
  t.same(dmConversations.value, [{ userIds: [OTHELLO], maxId: 7 }]);
  t.same(
    subscriptions.value.map((s) => s.name),
    ['Denmark', 'Verona'],
    'channels sorted by name',
  );
});

t.test('new messages: unread unless sent read; the open narrow shows them', async (t) => {
  applyEvents([event('message', { message: streamMessage(8, 'lunch'), flags: [] })]);
  t.equal(unreadByStream.value.get(VERONA), 3);
  t.same(
    feed.value.map((m) => m.id),
    [8],
    'all-messages narrow shows it',
  );
  applyEvents([event('message', { message: { ...streamMessage(9, 'lunch'), sender_id: HAMLET }, flags: ['read'] })]);
  t.equal(unreadByStream.value.get(VERONA), 3, 'my own message is read');
  narrow.value = [{ operator: 'channel', operand: 'Denmark' }];
  applyEvents([event('message', { message: streamMessage(10, 'other'), flags: [] })]);
  t.notOk(
    feed.value.some((m) => m.id === 10),
    'a Verona message stays out of a Denmark narrow',
  );
});

t.test('the local echo is replaced by the server copy, not duplicated', async (t) => {
  const echo = { ...streamMessage(-1, 'lunch'), sender_id: HAMLET, local_id: '1.0', local_text: 'hi', content: '' };
  feed.value = [echo];
  applyEvents([event('message', { message: { ...streamMessage(11, 'lunch'), sender_id: HAMLET }, flags: ['read'], local_message_id: '1.0' })]);
  t.same(
    feed.value.map((m) => [m.id, m.local_id]),
    [[11, '1.0']],
  );
});

t.test('read flags: counts drop on add, come back on remove with details', async (t) => {
  applyEvents([event('update_message_flags', { op: 'add', flag: 'read', messages: [5, 7], all: false })]);
  t.equal(unreadByStream.value.get(VERONA), 1);
  t.equal(unreadByDm.value.get(String(OTHELLO)), undefined);
  applyEvents([
    event('update_message_flags', {
      op: 'remove',
      flag: 'read',
      messages: [5],
      all: false,
      message_details: { '5': { type: 'stream', stream_id: VERONA, topic: 'lunch' } },
    }),
  ]);
  t.equal(unreadByStream.value.get(VERONA), 2);
  applyEvents([event('update_message_flags', { op: 'add', flag: 'read', messages: [], all: true })]);
  t.equal(unread.value.size, 0, 'mark all as read');
});

t.test('edits, topic moves, deletions and reactions reach the feed', async (t) => {
  feed.value = [streamMessage(5, 'lunch'), streamMessage(6, 'lunch')];
  applyEvents([event('update_message', { message_id: 5, message_ids: [5], rendered_content: '<p>edited</p>', edit_timestamp: 1 })]);
  t.equal(feed.value[0]!.content, '<p>edited</p>');
  applyEvents([event('update_message', { message_id: 5, message_ids: [5, 6], stream_id: VERONA, orig_subject: 'lunch', subject: 'dinner' })]);
  t.same(
    feed.value.map((m) => m.subject),
    ['dinner', 'dinner'],
  );
  t.equal(unreadByTopic.value.get(topicKey(VERONA, 'dinner')), 2, 'unread messages moved with the topic');
  t.equal(unreadByTopic.value.get(topicKey(VERONA, 'lunch')), undefined);

  const reaction = { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: OTHELLO, message_id: 6 };
  applyEvents([event('reaction', { op: 'add', ...reaction })]);
  applyEvents([event('reaction', { op: 'add', ...reaction })]);
  t.equal(feed.value[1]!.reactions.length, 1, 'the same reaction twice counts once');
  applyEvents([event('reaction', { op: 'remove', ...reaction })]);
  t.equal(feed.value[1]!.reactions.length, 0);

  applyEvents([event('delete_message', { message_ids: [5], message_type: 'stream' })]);
  t.same(
    feed.value.map((m) => m.id),
    [6],
  );
  t.notOk(unread.value.has(5), 'a deleted message is no longer unread');
});

t.test('typing, users and subscriptions', async (t) => {
  const sender = { user_id: OTHELLO, email: 'othello@zulip.com' };
  applyEvents([event('typing', { op: 'start', message_type: 'stream', sender, stream_id: VERONA, topic: 'Lunch' })]);
  t.same([...(typing.value.get(`stream:${VERONA}:lunch`) ?? [])], [OTHELLO]);
  applyEvents([event('typing', { op: 'stop', message_type: 'stream', sender, stream_id: VERONA, topic: 'Lunch' })]);
  t.equal(typing.value.size, 0);

  applyEvents([event('realm_user', { op: 'update', person: { user_id: OTHELLO, full_name: 'Othello, the Moor' } })]);
  t.equal(users.value.get(OTHELLO)?.full_name, 'Othello, the Moor');
  applyEvents([event('subscription', { op: 'add', subscriptions: [{ stream_id: 3, name: 'Arden', color: '#ccc' }] })]);
  t.same(
    subscriptions.value.map((s) => s.name),
    ['Arden', 'Denmark', 'Verona'],
  );
  applyEvents([event('subscription', { op: 'remove', subscriptions: [{ stream_id: 2, name: 'Denmark' }] })]);
  t.same(
    subscriptions.value.map((s) => s.name),
    ['Arden', 'Verona'],
  );
});
