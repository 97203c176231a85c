/**
 * `send_message` handler: given a small realm, when a send command, expect records/events/reply,
 * or the exact Zulip error with the state unchanged.
 */
import t from 'tap';
import { decide, fingerprint, run, smallRealm } from '../../support/realm-fixture.js';
import { evolve } from '../../../src/domain/evolve.js';
import { Flag } from '../../../src/domain/message-index.js';
import type { SendMessage } from '../../../src/realm/commands.js';

const send = (over: Partial<SendMessage> & { senderId: number }): SendMessage => ({
  type: 'send_message', messageType: 'stream', to: 'general', topic: 'greetings', content: 'hello', client: 'test', ...over,
});

t.test('channel message: record, event, reply, and UserMessage rows', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const result = decide(state, send({ senderId: ids.member, content: '**hi**', client: 'website' }), ctx);
  if (!result.ok) throw result.error;
  const { records, events, reply } = result.value;
  // A human starting a topic follows it (Zulip's default automatic follow): user_topic_set first.
  t.same(records.map((x) => x.type), ['user_topic_set', 'message_sent']);
  const r = records[1]!;
  t.match(r, { type: 'message_sent', v: 1, id: 1, senderId: ids.member, topic: 'greetings', content: '**hi**', client: 'website', readBySender: true, isMeMessage: false });
  t.equal((r as { rendered: string }).rendered, '<p><strong>hi</strong></p>');
  t.same(reply, { id: 1, automatic_new_visibility_policy: 3 });
  t.same(events.map((e) => e.payload.type), ['muted_topics', 'user_topic', 'message']);
  t.same([...events[2]!.userIds].sort(), [ids.owner, ids.admin, ids.member, ids.other].sort());
  for (const record of records) evolve(state, record);
  t.equal(state.messages.userFlags(ids.member, 1), Flag.read, 'sender row read (website client)');
  t.equal(state.messages.userFlags(ids.other, 1), 0, 'subscriber row unread');
  t.equal(state.messages.userFlags(ids.guest, 1), undefined, 'no row for non-subscriber');
  t.equal(state.streams.get(streams.general)!.firstMessageId, 1);
});

t.test('to forms: name, id, JSON list of one, case-insensitive name', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  for (const to of ['general', streams.general, [streams.general], ['GENERAL']]) {
    const result = decide(state, send({ senderId: ids.member, to }), ctx);
    t.ok(result.ok, `to=${JSON.stringify(to)}`);
  }
});

t.test('topic normalization', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const topicOf = (topic: string) => {
    const r = decide(state, send({ senderId: ids.member, topic }), ctx);
    if (!r.ok) throw r.error;
    return (r.value.records[0] as { topic: string }).topic;
  };
  t.equal(topicOf('  padded  '), 'padded');
  t.equal(topicOf('(no topic)'), '', '(no topic) is the empty topic');
  t.equal(topicOf('general chat'), '', 'the display name is the empty topic');
  t.equal(topicOf(''), '', 'empty allowed by default');
  t.equal(topicOf('x'.repeat(61)), 'x'.repeat(57) + '...');
  t.equal(topicOf('x'.repeat(60)), 'x'.repeat(60));
  t.equal(topicOf('😀'.repeat(61)), '😀'.repeat(57) + '...', 'counted in code points');
});

t.test('content normalization and truncation', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const contentOf = (content: string) => {
    const r = decide(state, send({ senderId: ids.member, content }), ctx);
    if (!r.ok) throw r.error;
    return (r.value.records.find((x) => x.type === 'message_sent') as { content: string }).content;
  };
  t.equal(contentOf('\n\n  hi  \n\t'), '  hi');
  const long = contentOf('a'.repeat(10001));
  t.equal(long.length, 10000);
  t.ok(long.endsWith('\n[message truncated]'));
  t.equal(contentOf('a'.repeat(10000)), 'a'.repeat(10000));
});

t.test('direct messages: emails, ids, CSV, shared recipient both directions', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const dm = (senderId: number, to: unknown) => send({ senderId, messageType: 'private', to, topic: undefined });
  const first = decide(state, dm(ids.member, ['other@example.com']), ctx);
  if (!first.ok) throw first.error;
  const r1 = first.value.records[0] as { recipientId: number; newDirectUserIds?: number[]; topic: string };
  t.same(r1.newDirectUserIds, [ids.member, ids.other].sort((a, b) => a - b));
  t.equal(r1.topic, '');
  for (const r of first.value.records) evolve(state, r);
  const back = decide(state, dm(ids.other, [ids.member]), ctx);
  if (!back.ok) throw back.error;
  const r2 = back.value.records[0] as { recipientId: number; newDirectUserIds?: number[] };
  t.equal(r2.recipientId, r1.recipientId, 'FL 327: one recipient id per conversation');
  t.equal(r2.newDirectUserIds, undefined);
  t.ok(decide(state, dm(ids.member, 'other@example.com, admin@example.com'), ctx).ok, 'CSV emails');
  t.ok(decide(state, dm(ids.member, 'OTHER@example.com'), ctx).ok, 'case-insensitive email');
  t.ok(decide(state, dm(ids.member, [ids.member]), ctx).ok, 'DM to self');
  t.ok(decide(state, dm(ids.member, 'user4@chat.example.com'), ctx).ok, 'fake API email');
});

t.test('errors are exact and leave the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: 'general', topic: 't', content: 'seed', client: 'x' }, ctx);
  const cases: Array<[string, SendMessage, string, string, Record<string, unknown>?]> = [
    ['missing topic', send({ senderId: ids.member, topic: undefined }), 'BAD_REQUEST', 'Missing topic'],
    ['bad topic char', send({ senderId: ids.member, topic: 'a\u0000b' }), 'BAD_REQUEST', 'Invalid character in topic, at position 2!'],
    ['empty content', send({ senderId: ids.member, content: ' \n ' }), 'BAD_REQUEST', 'Message must not be empty'],
    ['null byte', send({ senderId: ids.member, content: 'a\u0000' }), 'BAD_REQUEST', 'Message must not contain null bytes'],
    ['unknown name', send({ senderId: ids.member, to: 'nope<&>' }), 'STREAM_DOES_NOT_EXIST', "Channel 'nope&lt;&amp;&gt;' does not exist", { stream: 'nope&lt;&amp;&gt;' }],
    ['unknown id', send({ senderId: ids.member, to: 999 }), 'STREAM_DOES_NOT_EXIST', "Channel with ID '999' does not exist", { stream_id: 999 }],
    ['missing to', send({ senderId: ids.member, to: undefined }), 'BAD_REQUEST', 'Missing channel'],
    ['two channels', send({ senderId: ids.member, to: ['a', 'b'] }), 'BAD_REQUEST', 'Expected exactly one channel'],
    ['no channel in list', send({ senderId: ids.member, to: [] }), 'BAD_REQUEST', 'Expected exactly one channel'],
    ['dm bare int', send({ senderId: ids.member, messageType: 'private', to: 5 }), 'BAD_REQUEST', 'Invalid data type for recipients'],
    ['dict to', send({ senderId: ids.member, to: { a: 1 } }), 'BAD_REQUEST', 'Invalid data type for channel'],
    ['long name', send({ senderId: ids.member, to: 'x'.repeat(61) }), 'BAD_REQUEST', 'Channel name too long (limit: 60 characters).'],
    ['private not subscribed', send({ senderId: ids.other, to: streams.secret }), 'BAD_REQUEST', "Not authorized to send to channel 'secret'"],
    ['guest to public', send({ senderId: ids.guest, to: 'general' }), 'BAD_REQUEST', "Not authorized to send to channel 'general'"],
    ['dm no recipients', send({ senderId: ids.member, messageType: 'private', to: [] }), 'BAD_REQUEST', 'Message must have recipients'],
    ['dm bad email', send({ senderId: ids.member, messageType: 'private', to: ['x@nowhere.org'] }), 'BAD_REQUEST', "Invalid email 'x@nowhere.org'"],
    ['dm bad id', send({ senderId: ids.member, messageType: 'private', to: [4242] }), 'BAD_REQUEST', 'Invalid user ID 4242'],
    ['dm mixed', send({ senderId: ids.member, messageType: 'private', to: ['a@b.c', 5] }), 'BAD_REQUEST', 'Recipient lists may contain emails or user IDs, but not both.'],
    ['dm dict', send({ senderId: ids.member, messageType: 'private', to: [{}] }), 'BAD_REQUEST', 'Invalid data type for recipients'],
  ];
  const before = fingerprint(state);
  for (const [name, command, code, msg, data] of cases) {
    const result = decide(state, command, ctx);
    t.notOk(result.ok, name);
    if (result.ok) continue;
    t.equal(result.error.code, code, `${name}: code`);
    t.equal(result.error.message, msg, `${name}: msg`);
    t.equal(result.error.status, 400, `${name}: status`);
    if (data) t.same(result.error.data, data, `${name}: data`);
  }
  t.equal(fingerprint(state), before, 'state unchanged after every error');
});

t.test('a bot may post where its owner may', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  t.ok(decide(state, send({ senderId: ids.bot, to: streams.secret }), ctx).ok, 'owner subscribed to the private channel');
});

t.test('can_send_message_group restricts posting', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  state.streams.get(streams.general)!.groups.can_send_message_group = state.systemGroups.get('role:administrators')!;
  const denied = decide(state, send({ senderId: ids.member }), ctx);
  t.notOk(denied.ok);
  if (!denied.ok) t.equal(denied.error.message, 'You do not have permission to post in this channel.');
  t.ok(decide(state, send({ senderId: ids.admin }), ctx).ok);
});

t.test('deactivated recipient', async (t) => {
  const { state, ctx, ids } = smallRealm();
  state.users.get(ids.other)!.isActive = false;
  const r = decide(state, send({ senderId: ids.member, messageType: 'private', to: [ids.other] }), ctx);
  t.notOk(r.ok);
  if (!r.ok) t.equal(r.error.message, "'other@example.com' is no longer using Zulip.");
});
