/**
 * `DELETE /messages/{message_id}` (https://zulip.com/api/delete-message,
 * https://zulip.com/api/get-events; Zulip's
 * `validate_can_delete_message` / `do_delete_messages` at FL 417): permissions with Zulip's exact
 * strings and "message unchanged after an error", `delete_message` events (bulk and legacy forms,
 * empty topic fallback) and the `first_message_id` update via verifyAction, the deleted message
 * gone from every reader (GET /messages, GET /messages/{id}, matches_narrow, unread counts,
 * starred, recent conversations, max_message_id, topics list), the rules that need realm settings
 * or a clock on a small realm, replay and snapshot, and survival across a restart.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, DEMO_PASSWORD, type Caller, basicCall, loginApiKey } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { checkReplayAndSnapshot, decide, rejects, smallRealm, snapshotCopy } from '../support/realm-fixture.js';
import { startServer } from '../../src/main.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { evolve } from '../../src/domain/evolve.js';
import { systemGroupId } from '../../src/domain/groups.js';
import { canAccessMessage } from '../../src/domain/access.js';
import { scanUserMessages } from '../../src/events/register/messages.js';
import type { RealmRecord } from '../../src/domain/records.js';
import type { CommandContext } from '../../src/realm/decision.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const success = { result: 'success', msg: '' };
const NO_PERMISSION = "You don't have permission to delete this message";
const BULK = { client_capabilities: { bulk_message_deletion: true } };
const VERONA = 1;
const SCOTLAND = 3;
const CORE_TEAM = 6;

const send = async (c: Caller, params: Record<string, unknown>): Promise<number> => {
  const r = await c.call('POST', '/messages', params);
  if (r.status !== 200) throw new Error(`send failed: ${JSON.stringify(r.body)}`);
  return r.body.id;
};
const fetchIds = async (c: Caller, narrow: unknown[] = []): Promise<number[]> => {
  const r = await c.call('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow });
  if (r.status !== 200) throw new Error(`fetch failed: ${JSON.stringify(r.body)}`);
  return r.body.messages.map((m: { id: number }) => m.id);
};

t.test('DELETE /messages/{id} over HTTP', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');

  t.test('own channel message: event to subscribers, gone everywhere', async (t) => {
    const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'doomed', content: 'delete me' });
    t.equal((await hamlet.call('POST', '/messages/flags', { messages: [id], op: 'add', flag: 'starred' })).status, 200, 'starred');
    t.ok((await fetchIds(othello)).includes(id), 'othello sees it first');
    const before = (await othello.call('POST', '/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
    t.ok(before.streams.some((b: any) => b.unread_message_ids.includes(id)), 'unread for othello before');

    const { events, after } = await verifyAction(t, s, othello, {
      action: () => hamlet.call('DELETE', `/messages/${id}`),
      registerParams: BULK,
      numEvents: 1,
      stateChangeExpected: true,
    });
    t.same(events[0], { id: events[0]!.id, type: 'delete_message', message_ids: [id], message_type: 'stream', stream_id: VERONA, topic: 'doomed' });
    t.equal(after.unread_msgs.count, before.count - 1, 'unread count dropped');
    t.notOk(after.unread_msgs.streams.some((b: any) => b.topic === 'doomed'), 'the emptied bucket is gone');

    t.same((await hamlet.call('GET', `/messages/${id}`)).body, bad('Invalid message(s)'), 'GET /messages/{id}: Invalid message(s)');
    t.same((await hamlet.call('DELETE', `/messages/${id}`)).body, bad('Invalid message(s)'), 'deleting again: Invalid message(s)');
    t.notOk((await fetchIds(hamlet)).includes(id), 'absent from GET /messages');
    t.notOk((await fetchIds(hamlet, [{ operator: 'is', operand: 'starred' }])).includes(id), 'absent from is:starred');
    t.same(await fetchIds(othello, [{ operator: 'channel', operand: VERONA }, { operator: 'topic', operand: 'doomed' }]), [], 'absent from its topic');
    const topics = (await hamlet.call('GET', `/users/me/${VERONA}/topics`)).body.topics as Array<{ name: string }>;
    t.notOk(topics.some((x) => x.name === 'doomed'), 'its only-message topic left the topics list');
    const starred = (await hamlet.call('POST', '/register', { fetch_event_types: ['starred_messages'] })).body.starred_messages;
    t.notOk(starred.includes(id), 'not in starred_messages');
    const m = await othello.call('GET', '/messages/matches_narrow', { msg_ids: [id], narrow: [] });
    t.same(m.body.messages, {}, 'matches_narrow leaves it out');
  });

  t.test('legacy clients get message_id events; empty topic fallback name', async (t) => {
    const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: '', content: 'no topic here' });
    const { events } = await verifyAction(t, s, othello, {
      action: () => hamlet.call('DELETE', `/messages/${id}`),
      numEvents: 1,
      stateChangeExpected: true,
    });
    t.same(events[0], { id: events[0]!.id, type: 'delete_message', message_id: id, message_type: 'stream', stream_id: VERONA, topic: 'general chat' });

    const id2 = await send(hamlet, { type: 'stream', to: 'Verona', topic: '', content: 'no topic again' });
    const modern = await verifyAction(t, s, othello, {
      action: () => hamlet.call('DELETE', `/messages/${id2}`),
      registerParams: { client_capabilities: { bulk_message_deletion: true, empty_topic_name: true } },
      numEvents: 1,
    });
    t.equal(modern.events[0]!.topic, '', 'empty_topic_name clients get the empty topic');
  });

  t.test('direct message: rows only, recent conversations and max_message_id re-read', async (t) => {
    const first = await send(hamlet, { type: 'direct', to: JSON.stringify([5]), content: 'first' });
    const last = await send(othello, { type: 'direct', to: JSON.stringify([4]), content: 'last' });
    const { events, before, after } = await verifyAction(t, s, hamlet, {
      action: () => othello.call('DELETE', `/messages/${last}`),
      registerParams: BULK,
      numEvents: 1,
      stateChangeExpected: true,
    });
    t.same(events[0], { id: events[0]!.id, type: 'delete_message', message_ids: [last], message_type: 'private' });
    const conv = (st: any) => st.recent_private_conversations.find((c: any) => c.user_ids.join() === '5');
    t.equal(conv(before).max_message_id, last);
    t.equal(conv(after).max_message_id, first, 'the conversation falls back to the previous message');
    t.ok(after.max_message_id < last, 'max_message_id re-read');
    // A user without a row gets nothing; one who cannot see it gets Invalid message(s).
    t.same((await cordelia.call('DELETE', `/messages/${first}`)).body, bad('Invalid message(s)'));
    t.same((await cordelia.call('GET', `/messages/${first}`)).body, bad('Invalid message(s)'));
    const cordeliaEvents = await verifyAction(t, s, cordelia, { action: () => hamlet.call('DELETE', `/messages/${first}`), registerParams: BULK, stateChangeExpected: false });
    t.same(cordeliaEvents.events, [], 'no event for users without a row');
  });

  t.test('permission errors leave the message unchanged', async (t) => {
    const id = await send(hamlet, { type: 'stream', to: 'Scotland', topic: 'kept', content: 'mine' });
    const snapshot = (await hamlet.call('GET', `/messages/${id}`)).body;
    const { actionResult } = await verifyAction(t, s, hamlet, {
      action: () => othello.call('DELETE', `/messages/${id}`),
      stateChangeExpected: false,
    });
    t.same(actionResult.body, bad(NO_PERMISSION), "a member may not delete someone else's message");
    t.same((await hamlet.call('GET', `/messages/${id}`)).body, snapshot, 'message unchanged');
    t.same((await othello.call('DELETE', '/messages/999999')).body, bad('Invalid message(s)'), 'unknown id');
    // A private channel's message is invisible to non-subscribers.
    const secret = await send(hamlet, { type: 'stream', to: 'core team', topic: 'plans', content: 'secret' });
    t.same((await othello.call('DELETE', `/messages/${secret}`)).body, bad('Invalid message(s)'));
    t.equal((await hamlet.call('GET', `/messages/${secret}`)).status, 200, 'still there');

    // The channel's can_delete_any_message_group lets othello delete it.
    const patch = await iago.call('PATCH', `/streams/${SCOTLAND}`, {
      can_delete_any_message_group: JSON.stringify({ new: { direct_members: [5], direct_subgroups: [] } }),
    });
    t.same(patch.body, success, 'channel setting changed');
    t.same((await othello.call('DELETE', `/messages/${id}`)).body, success, 'channel-level delete-any permission');
    t.same((await hamlet.call('GET', `/messages/${id}`)).body, bad('Invalid message(s)'));
  });

  t.test("administrators delete anyone's message; first_message_id follows", async (t) => {
    const stream = (await hamlet.call('GET', `/streams/${CORE_TEAM}`)).body.stream;
    const firstId = stream.first_message_id as number;
    const later = await send(hamlet, { type: 'stream', to: 'core team', topic: 'next', content: 'second' });
    const { events, after } = await verifyAction(t, s, hamlet, {
      action: () => iago.call('DELETE', `/messages/${firstId}`),
      registerParams: BULK,
      numEvents: 2,
      stateChangeExpected: true,
    });
    t.same(events.map((e) => e.type), ['stream', 'delete_message'], 'first_message_id update, then the deletion');
    t.same(events[0], { id: events[0]!.id, type: 'stream', op: 'update', property: 'first_message_id', value: events[0]!.value, stream_id: CORE_TEAM, name: 'core team' });
    t.ok(events[0]!.value > firstId && events[0]!.value <= later, 'the next message of the channel');
    t.equal(after.subscriptions.find((x: any) => x.stream_id === CORE_TEAM).first_message_id, events[0]!.value);
  });
});

t.test('deletion survives a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-delete-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: DEMO_PASSWORD };
  let key = '';
  const call = (url: string, method: string, path: string, params: Record<string, unknown> = {}) => basicCall(url, 'hamlet@zulip.com', key, method, path, params);
  const first = await startServer(config);
  key = await loginApiKey(first.url, 'hamlet@zulip.com', DEMO_PASSWORD);
  const id = (await call(first.url, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'gone', content: 'bye' })).id as number;
  t.equal((await call(first.url, 'DELETE', `/messages/${id}`)).result, 'success');
  const fetched = (url: string) => call(url, 'GET', '/messages', { anchor: 'newest', num_before: 50, num_after: 0 });
  const before = await fetched(first.url);
  await first.close();
  const second = await startServer(config);
  t.teardown(() => second.close());
  t.same((await call(second.url, 'GET', `/messages/${id}`)).msg, 'Invalid message(s)', 'still deleted after the restart');
  t.same(await fetched(second.url), before, 'same message list after the restart');
  const next = (await call(second.url, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'gone', content: 'again' })).id;
  t.equal(next, id + 1, 'ids are never reused');
});

t.test('handler rules on a small realm', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const base = snapshotCopy(state);
  const records: RealmRecord[] = [];
  const exec = <C extends Parameters<typeof decide>[1]>(cmd: C) => {
    const result = decide(state, cmd, ctx);
    if (!result.ok) throw result.error;
    for (const r of result.value.records) {
      evolve(state, r);
      records.push(r);
    }
    return result.value;
  };
  const sendTo = (senderId: number, to: number | number[], content = 'hello') =>
    exec({
      type: 'send_message', senderId, messageType: Array.isArray(to) ? 'private' : 'stream',
      to: Array.isArray(to) ? to : to, topic: 'topic', content, client: 'test',
    } as any).reply.id as number;
  const del = (actorId: number, messageId: number) => ({ type: 'delete_message' as const, actorId, messageId });
  /** A context whose clock reads `at` (UNIX seconds). */
  const clockAt = (at: number): CommandContext => ({ now: () => at, randomToken: ctx.randomToken });

  const mine = sendTo(ids.member, streams.general);
  const others = sendTo(ids.other, streams.general);
  const dm = sendTo(ids.member, [ids.other]);
  const botMessage = sendTo(ids.bot, streams.general);

  rejects(t, state, del(ids.member, others), ctx, NO_PERMISSION);
  rejects(t, state, del(ids.guest, mine), ctx, 'Invalid message(s)');
  rejects(t, state, del(ids.member, 9999), ctx, 'Invalid message(s)');

  // Time limit (default 600 s, no grace period); null = none.
  const sentAt = state.messages.timestamp.get(mine);
  rejects(t, state, del(ids.member, mine), clockAt(sentAt + 601), 'The time limit for deleting this message has passed');
  t.ok(decide(state, del(ids.member, mine), clockAt(sentAt + 600)).ok, 'exactly at the limit is allowed');
  state.settings.messageContentDeleteLimitSeconds = null;
  t.ok(decide(state, del(ids.member, mine), clockAt(sentAt + 10_000_000)).ok, 'no limit');
  state.settings.messageContentDeleteLimitSeconds = 600;
  t.ok(decide(state, del(ids.admin, others), clockAt(sentAt + 10_000_000)).ok, 'admins: any message, any time');

  // Bot owners may delete their bots' messages.
  t.ok(decide(state, del(ids.member, botMessage), ctx).ok, "the bot's owner");
  rejects(t, state, del(ids.other, botMessage), ctx, NO_PERMISSION);

  // Realm can_delete_own_message_group = nobody: DMs forbidden; channel messages need the
  // channel's can_delete_own_message_group (default nobody).
  const nobody = systemGroupId(state, 'role:nobody');
  const everyone = state.settings.groups.can_delete_own_message_group!;
  state.settings.groups.can_delete_own_message_group = nobody;
  rejects(t, state, del(ids.member, dm), ctx, NO_PERMISSION);
  rejects(t, state, del(ids.member, mine), ctx, NO_PERMISSION);
  exec({ type: 'update_channel', actorId: ids.owner, streamId: streams.general, groups: { can_delete_own_message_group: { new: { direct_members: [ids.member], direct_subgroups: [] } } } });
  t.ok(decide(state, del(ids.member, mine), ctx).ok, "the channel's can_delete_own_message_group");
  rejects(t, state, del(ids.member, dm), ctx, NO_PERMISSION);
  // Realm can_delete_any_message_group = nobody: admins need the channel's setting.
  const admins = state.settings.groups.can_delete_any_message_group!;
  state.settings.groups.can_delete_any_message_group = nobody;
  rejects(t, state, del(ids.admin, others), ctx, NO_PERMISSION);
  state.settings.groups.can_delete_any_message_group = admins;
  state.settings.groups.can_delete_own_message_group = everyone;

  // A successful deletion: one record; events to rows + subscribers; rows and bit gone.
  const decision = exec(del(ids.member, dm));
  t.same(decision.records, [{ type: 'messages_deleted', v: 1, ids: [dm] }]);
  t.same(decision.events.map((e) => [e.userIds, e.payload]), [[[ids.member, ids.other], { type: 'delete_message', message_ids: [dm], message_type: 'private' }]]);
  t.notOk(state.messages.exists(dm));
  t.equal(state.messages.userFlags(ids.other, dm), undefined, 'the row is gone');
  t.notOk(canAccessMessage(state, state.users.get(ids.other)!, dm));
  const scan = scanUserMessages(state, state.users.get(ids.other)!, { unread: true, starred: true, recentConversations: true, allowEmptyTopicName: true });
  t.same(scan.recent_private_conversations, [], 'no conversation left');
  t.notOk(scan.unread_msgs!.pms.length, 'no unread DM left');

  // Reactions go with the message.
  exec({ type: 'add_reaction', actorId: ids.member, messageId: others, emojiName: 'smile' });
  t.ok(state.reactions?.byMessage.has(others), 'reacted');
  const channelDecision = exec(del(ids.other, others));
  t.notOk(state.reactions?.byMessage.has(others), 'reactions deleted with the message');
  t.same(channelDecision.events.at(-1)!.payload, { type: 'delete_message', message_ids: [others], message_type: 'stream', stream_id: streams.general, topic: 'topic' });
  t.same(channelDecision.events.at(-1)!.userIds, [ids.owner, ids.admin, ids.member, ids.other], 'subscribers and row owners');

  // first_message_id: deleting a channel's first message moves it on (null when none is left).
  const firstGeneral = state.streams.get(streams.general)!.firstMessageId!;
  const firstDecision = exec(del(ids.admin, firstGeneral));
  const next = state.streams.get(streams.general)!.firstMessageId;
  t.ok(next !== null && next > firstGeneral, 'moved on to the next message');
  t.same((firstDecision.records[0] as any).firstMessageIds, [{ streamId: streams.general, firstMessageId: next }]);
  const lone = sendTo(ids.owner, streams.secret);
  exec(del(ids.owner, lone));
  t.equal(state.streams.get(streams.secret)!.firstMessageId, null, 'no message left: null');

  // Replay and snapshot.
  const { restored } = checkReplayAndSnapshot(t, base, records, state);
  t.notOk(restored.messages.exists(dm));
});
