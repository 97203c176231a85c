/**
 * Scheduled message, reminder and delivery handlers (https://zulip.com/api/create-scheduled-message,
 * https://zulip.com/api/create-message-reminder; Zulip's zerver/actions/scheduled_messages.py):
 * validation as a send, Zulip's error strings with the state unchanged, the events, and delivery
 * with a controlled clock (due, not due, late, lost permission, deactivated sender, reminders).
 */
import t from 'tap';
import { decide, field, fingerprint, rejects, run, smallRealm, snapshotCopy, checkReplayAndSnapshot } from '../../support/realm-fixture.js';
import { execute, setupRunner } from '../../../src/realm/apply-command.js';
import { evolve } from '../../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import type { RealmRecord } from '../../../src/domain/records.js';
import { findScheduledMessage } from '../../../src/domain/scheduled-messages.js';
import { systemBot } from '../../../src/domain/system-bots.js';
import { failedNotificationContent, globalTime } from '../../../src/realm/handlers/scheduled-delivery.js';
import type { Command } from '../../../src/realm/commands.js';

const LATER = 1_800_000_000;

function realm() {
  const r = smallRealm();
  const schedule = (over: Partial<Extract<Command, { type: 'create_scheduled_message' }>> = {}) =>
    run(r.state, {
      type: 'create_scheduled_message', senderId: r.ids.member, messageType: 'stream', to: String(r.streams.general),
      topic: 'plans', content: 'hello **later**', deliverAt: LATER, client: 'website', ...over,
    }, r.ctx).scheduled_message_id;
  return { ...r, schedule };
}

t.test('create: validated as a send, stored in wire terms, one add event to the sender', async (t) => {
  const { state, ctx, ids, streams, schedule } = realm();
  const d = decide(state, {
    type: 'create_scheduled_message', senderId: ids.member, messageType: 'stream', to: ` ${streams.general} `,
    topic: '  plans ', content: 'hello **later**', deliverAt: LATER, client: 'website',
  }, ctx);
  if (!d.ok) throw d.error;
  t.same(d.value.events.map((e) => [e.userIds, e.payload]), [[[ids.member], {
    type: 'scheduled_messages', op: 'add', scheduled_messages: [{
      scheduled_message_id: 1, type: 'stream', to: streams.general, topic: 'plans', content: 'hello **later**',
      rendered_content: '<p>hello <strong>later</strong></p>', scheduled_delivery_timestamp: LATER, failed: false,
    }],
  }]]);
  t.equal(state.messages.exists(1), false, 'nothing is sent at schedule time');
  const first = schedule();
  t.equal(findScheduledMessage(state, first)?.readBySender, true, 'website: read by sender');
  const dm = schedule({ messageType: 'private', to: JSON.stringify([ids.other, ids.owner, ids.other]), topic: 'ignored', client: 'ZulipPython' });
  const self = schedule({ messageType: 'private', to: JSON.stringify([ids.member]), client: 'website' });
  t.match(findScheduledMessage(state, dm), { type: 'private', to: [ids.owner, ids.other].sort((a, b) => a - b), topic: '', readBySender: false });
  t.match(findScheduledMessage(state, self), { to: [ids.member], readBySender: false }, 'to oneself: not read by default');
});

t.test('create: errors in Zulip order, state unchanged', async (t) => {
  const { state, ctx, ids, streams } = realm();
  const base = {
    type: 'create_scheduled_message' as const, senderId: ids.member, messageType: 'stream' as const, to: String(streams.general),
    topic: 'plans', content: 'x', deliverAt: LATER, client: 'website',
  };
  rejects(t, state, { ...base, deliverAt: 1_000 }, ctx, 'Scheduled delivery time must be in the future.');
  rejects(t, state, { ...base, deliverAt: 1_000, to: 'nope' }, ctx, 'Scheduled delivery time must be in the future.');
  rejects(t, state, { ...base, to: '[1]' }, ctx, 'Invalid data type for channel ID');
  rejects(t, state, { ...base, messageType: 'private', to: '5' }, ctx, 'Invalid data type for recipients');
  rejects(t, state, { ...base, messageType: 'private', to: '["a@b.c"]' }, ctx, 'Recipient list may only contain user IDs');
  rejects(t, state, { ...base, messageType: 'private', to: '[]' }, ctx, 'Message must have recipients');
  rejects(t, state, { ...base, messageType: 'private', to: '[9999]' }, ctx, 'Invalid user ID 9999');
  rejects(t, state, { ...base, content: '   ' }, ctx, 'Message must not be empty');
  const { topic: _topic, ...noTopic } = base;
  rejects(t, state, noTopic, ctx, 'Missing topic');
  // The same permission error a send gets: `other` is not in the private channel.
  const send = decide(state, { type: 'send_message', senderId: ids.other, messageType: 'stream', to: streams.secret, topic: 'x', content: 'x', client: 'website' }, ctx);
  t.notOk(send.ok);
  if (!send.ok) rejects(t, state, { ...base, senderId: ids.other, to: String(streams.secret) }, ctx, send.error.message);
});

t.test('edit and delete: the owner only, Zulip checks, update/remove events', async (t) => {
  const { state, ctx, ids, streams, schedule } = realm();
  const id = schedule();
  const edit = { type: 'edit_scheduled_message' as const, senderId: ids.member, scheduledMessageId: id, client: 'website' };
  rejects(t, state, edit, ctx, 'Nothing to change');
  rejects(t, state, { ...edit, messageType: 'private' }, ctx, 'Recipient required when updating type of scheduled message.');
  rejects(t, state, { ...edit, messageType: 'stream', to: String(streams.general) }, ctx, 'Topic required when updating scheduled message type to stream.');
  rejects(t, state, { ...edit, deliverAt: 5 }, ctx, 'Scheduled delivery time must be in the future.');
  rejects(t, state, { ...edit, senderId: ids.other, content: 'mine now' }, ctx, 'Scheduled message does not exist');
  rejects(t, state, { ...edit, scheduledMessageId: 999, content: 'x' }, ctx, 'Scheduled message does not exist');
  rejects(t, state, { ...edit, content: '' }, ctx, 'Message must not be empty');

  const topicOnly = decide(state, { ...edit, topic: 'new plans' }, ctx);
  if (!topicOnly.ok) throw topicOnly.error;
  t.match(field(topicOnly.value.events[0]!, 'scheduled_message'), { scheduled_message_id: id, topic: 'new plans', content: 'hello **later**', type: 'stream' });
  run(state, { ...edit, messageType: 'private', to: JSON.stringify([ids.other]), content: 'now a *DM*', deliverAt: LATER + 60 }, ctx);
  t.match(findScheduledMessage(state, id), {
    type: 'private', to: [ids.other], topic: '', content: 'now a *DM*', rendered: '<p>now a <em>DM</em></p>', deliverAt: LATER + 60,
  });

  rejects(t, state, { type: 'delete_scheduled_message', senderId: ids.owner, scheduledMessageId: id }, ctx, 'Scheduled message does not exist');
  const del = decide(state, { type: 'delete_scheduled_message', senderId: ids.member, scheduledMessageId: id }, ctx);
  if (!del.ok) throw del.error;
  t.same(del.value.events.map((e) => e.payload), [{ type: 'scheduled_messages', op: 'remove', scheduled_message_id: id }]);
  run(state, { type: 'delete_scheduled_message', senderId: ids.member, scheduledMessageId: id }, ctx);
  t.equal(findScheduledMessage(state, id), undefined);
});

t.test('delivery: due, not due, late, lost permission, deactivated sender', async (t) => {
  const { state, ctx, ids, streams, schedule } = realm();
  const deliver = (id: number, nowSeconds: number) => {
    const r = execute(state, { type: 'deliver_scheduled_message', scheduledMessageId: id, nowSeconds }, ctx);
    if (!r.ok) throw r.error;
    return r.value;
  };
  const id = schedule();
  t.same(deliver(id, LATER - 1).reply, { outcome: 'skipped' }, 'not due yet');
  const sent = deliver(id, LATER + 5);
  t.equal(sent.reply.outcome, 'delivered');
  const messageId = sent.reply.messageId!;
  t.ok(state.messages.exists(messageId), 'the message exists');
  t.equal(state.messages.sender.get(messageId), ids.member, 'sent as its sender');
  // The normal send path: its events (here the sender's automatic follow too), then the removal.
  t.same(sent.events.slice(-2).map((e) => e.payload.type), ['message', 'scheduled_messages']);
  t.same(sent.events.at(-1)!.payload, { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id });
  t.equal(findScheduledMessage(state, id), undefined, 'delivered: gone from the state');
  t.same(deliver(id, LATER + 10).reply, { outcome: 'skipped' }, 'never sent twice');

  // More than 10 minutes late: failed, kept, the owner told by the Notification Bot.
  const late = schedule();
  const failed = deliver(late, LATER + 601);
  t.equal(failed.reply.outcome, 'failed');
  t.match(findScheduledMessage(state, late), { failed: true, failureMessage: 'Message could not be sent at the scheduled time.' });
  t.match(failed.events[0]!.payload, { type: 'scheduled_messages', op: 'update', scheduled_message: { scheduled_message_id: late, failed: true } });
  const bot = systemBot(state, 'notification')!;
  const notice = failed.records.find((r) => r.type === 'message_sent');
  t.match(notice, { senderId: bot.id, content: failedNotificationContent(LATER, 'Message could not be sent at the scheduled time.').trim() });
  t.equal(globalTime(LATER), '<time:2027-01-15T08:00:00+00:00>');
  t.same(deliver(late, LATER + 700).reply, { outcome: 'skipped' }, 'a failed message is not retried');
  // A failed message needs a new time to be edited; editing clears `failed`.
  const edit = { type: 'edit_scheduled_message' as const, senderId: ids.member, scheduledMessageId: late, client: 'website' };
  rejects(t, state, { ...edit, content: 'again' }, ctx, 'Scheduled delivery time must be in the future.');
  run(state, { ...edit, deliverAt: LATER + 3600 }, ctx);
  t.match(findScheduledMessage(state, late), { failed: false, deliverAt: LATER + 3600 });
  t.notOk('failureMessage' in findScheduledMessage(state, late)!);

  // Permissions are checked again at delivery: unsubscribed from a private channel.
  const secret = schedule({ to: String(streams.secret) });
  run(state, { type: 'update_subscriptions', actorId: ids.member, add: [], remove: ['secret'], inviteOnly: false, isWebPublic: false, isDefault: false, authorizationErrorsFatal: true }, ctx);
  const refused = deliver(secret, LATER);
  t.equal(refused.reply.outcome, 'failed');
  t.match(findScheduledMessage(state, secret)?.failureMessage, /channel/i);

  // A deactivated sender: failed, no notification.
  const orphan = run(state, {
    type: 'create_scheduled_message', senderId: ids.other, messageType: 'stream', to: String(streams.general),
    topic: 'x', content: 'x', deliverAt: LATER, client: 'website',
  }, ctx).scheduled_message_id;
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.other }, ctx);
  const quiet = deliver(orphan, LATER);
  t.equal(quiet.reply.outcome, 'failed');
  t.same(quiet.events, [], 'no event, no notification');
  t.equal(findScheduledMessage(state, orphan)?.failureMessage, 'Account is deactivated');
});

t.test('reminders: content as Zulip builds it, access, note, delivery by the Notification Bot', async (t) => {
  const { state, ctx, ids, streams } = realm();
  const target = run(state, { type: 'send_message', senderId: ids.other, messageType: 'stream', to: streams.general, topic: 'lunch', content: 'pizza at 1', client: 'website' }, ctx).id;
  const secretMsg = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.secret, topic: 's', content: 'psst', client: 'website' }, ctx).id;
  const base = { type: 'create_reminder' as const, senderId: ids.member, messageId: target, messageContent: 'pizza at 1', deliverAt: LATER, client: 'website' };
  rejects(t, state, { ...base, deliverAt: 10 }, ctx, 'Scheduled delivery time must be in the future.');
  rejects(t, state, { ...base, senderId: ids.guest, messageId: secretMsg }, ctx, 'Invalid message(s)');
  rejects(t, state, { ...base, note: 'n'.repeat(1001) }, ctx, 'Maximum reminder note length: 1000 characters');

  const d = decide(state, { ...base, note: 'bring cash  \n' }, ctx);
  if (!d.ok) throw d.error;
  const reminder = field(d.value.events[0]!, 'reminders') as Array<Record<string, unknown>>;
  t.match(reminder[0], { reminder_id: 1, type: 'private', to: [ids.member], reminder_target_message_id: target, failed: false });
  const other = state.users.get(ids.other)!;
  t.equal(reminder[0]!.content, [
    'You requested a reminder for the following message. Note:\n > bring cash',
    '',
    `@_**${other.fullName}|${other.id}** [said](${state.url}/#narrow/channel/${streams.general}-general/topic/lunch/near/${target}) in #**general>lunch@${target}**:`,
    '```quote\npizza at 1\n```',
  ].join('\n'));
  const id = run(state, { ...base, note: 'bring cash' }, ctx).reminder_id;
  rejects(t, state, { type: 'delete_scheduled_message', senderId: ids.member, scheduledMessageId: id }, ctx, 'Scheduled message does not exist');
  rejects(t, state, { type: 'delete_reminder', senderId: ids.other, reminderId: id }, ctx, 'Reminder does not exist');

  // Delivered by the Notification Bot, with the message's content at delivery time.
  const r = execute(state, { type: 'deliver_scheduled_message', scheduledMessageId: id, nowSeconds: LATER + 3600, targetContent: 'pizza at 2' }, ctx);
  if (!r.ok) throw r.error;
  // This realm had no Notification Bot yet: it is created, then the delivery runs as a follow-up.
  t.equal(r.value.reply.outcome, 'skipped');
  t.equal(findScheduledMessage(state, id), undefined, 'reminders are never too late');
  const bot = systemBot(state, 'notification')!;
  const msg = r.value.records.find((x) => x.type === 'message_sent');
  t.match(msg, { senderId: bot.id, content: /```quote\npizza at 2\n```$/ });
  t.same(r.value.events.at(-1)!.payload, { type: 'reminders', op: 'remove', reminder_id: id });

  const gone = run(state, base, ctx).reminder_id;
  const del = decide(state, { type: 'delete_reminder', senderId: ids.member, reminderId: gone }, ctx);
  t.same(del.ok && del.value.events.map((e) => e.payload), [{ type: 'reminders', op: 'remove', reminder_id: gone }]);
});

t.test('records replay and snapshots: scheduled messages, reminders, the icon, submessages', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const base = snapshotCopy(state);
  const records: RealmRecord[] = [];
  const exec = setupRunner(state, ctx, records);
  const kept = exec({ type: 'create_scheduled_message', senderId: ids.member, messageType: 'stream', to: String(streams.general), topic: 'a', content: 'kept', deliverAt: LATER, client: 'website' }).scheduled_message_id;
  const sent = exec({ type: 'create_scheduled_message', senderId: ids.member, messageType: 'private', to: `[${ids.other}]`, content: 'sent', deliverAt: LATER - 10, client: 'website' }).scheduled_message_id;
  const late = exec({ type: 'create_scheduled_message', senderId: ids.other, messageType: 'stream', to: String(streams.general), topic: 'b', content: 'late', deliverAt: LATER - 5000, client: 'website' }).scheduled_message_id;
  const poll = exec({ type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 'p', content: '/poll Tea?\nyes\nno', client: 'website' }).id;
  exec({ type: 'create_reminder', senderId: ids.other, messageId: poll, messageContent: '/poll Tea?\nyes\nno', deliverAt: LATER, client: 'website' });
  exec({ type: 'deliver_scheduled_message', scheduledMessageId: sent, nowSeconds: LATER });
  exec({ type: 'deliver_scheduled_message', scheduledMessageId: late, nowSeconds: LATER });
  exec({ type: 'add_submessage', actorId: ids.other, messageId: poll, msgType: 'widget', content: '{"type":"vote","key":"canned,0","vote":1}' });
  exec({ type: 'change_realm_icon', actorId: ids.admin, sha256: 'ab'.repeat(32) });
  t.equal(findScheduledMessage(state, kept)?.content, 'kept');
  t.equal(findScheduledMessage(state, sent), undefined);
  t.equal(findScheduledMessage(state, late)?.failed, true);
  t.equal(state.submessages?.byMessage.get(poll)?.length, 2, 'the widget and a vote');

  const { core, columns, restored } = checkReplayAndSnapshot(t, base, records, state);
  t.same(restored.realmIcon, { sha256: 'ab'.repeat(32), version: 2 });
  const old = structuredClone(core) as unknown as Record<string, unknown>;
  delete old.scheduledMessages;
  delete old.realmIcon;
  delete old.submessages;
  const older = fromSnapshot(state.id, old, columns);
  t.same([older.scheduledMessages, older.realmIcon, older.submessages], [undefined, undefined, undefined], 'older snapshots load with none');
});
