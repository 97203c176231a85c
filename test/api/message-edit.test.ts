/**
 * `PATCH /messages/{message_id}` (https://zulip.com/api/update-message; Zulip's
 * check_update_message): content
 * edits (re-rendered, sender only, realm switch and time limit), topic moves with propagate_mode,
 * resolving, channel moves with access changes, Notification Bot breadcrumbs, `update_message`
 * events via verifyAction, and every error with the message unchanged afterwards.
 */
import t, { type Test } from 'tap';
import { startTestServer, type Caller, type TestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { fingerprint, decide, smallRealm, run } from '../support/realm-fixture.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const get = async (c: Caller, id: number) => (await c.call('GET', `/messages/${id}`, { allow_empty_topic_name: true })).body;
const send = async (c: Caller, to: string, topic: string, content: string) =>
  (await c.call('POST', '/messages', { type: 'stream', to, topic, content })).body.id as number;
const realmOf = (s: TestServer) => s.server.registry.all()[0]!;

/** Asserts the PATCH fails with `msg` and the message reads the same before and after. */
async function rejects(t: Test, c: Caller, id: number, params: Record<string, unknown>, msg: string, viewer = c) {
  const before = await get(viewer, id);
  const res = await c.call('PATCH', `/messages/${id}`, params);
  t.same(res.body, bad(msg), msg);
  t.equal(res.status, 400);
  t.same(await get(viewer, id), before, `message unchanged after "${msg}"`);
}

t.test('content edits', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = await send(hamlet, 'Verona', 'edits', 'first **version**');

  const edited = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', `/messages/${id}`, { content: 'second *version*' }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.same(edited.actionResult.body, { result: 'success', msg: '', detached_uploads: [] });
  const ev = edited.events[0]!;
  t.match(ev, {
    type: 'update_message', user_id: hamlet.userId, message_id: id, message_ids: [id], rendering_only: false,
    stream_id: 1, stream_name: 'Verona', orig_content: 'first **version**', orig_rendered_content: '<p>first <strong>version</strong></p>',
    content: 'second *version*', rendered_content: '<p>second <em>version</em></p>', prev_rendered_content_version: 1, is_me_message: false,
  });
  t.notOk('subject' in ev, 'no topic fields for a content edit');
  t.notOk('propagate_mode' in ev);
  t.type(ev.edit_timestamp, 'number');

  const m = await get(othello, id);
  t.equal(m.message.content, '<p>second <em>version</em></p>', 're-rendered');
  t.equal(m.raw_content, 'second *version*');
  t.equal(m.message.last_edit_timestamp, ev.edit_timestamp);
  t.notOk('last_moved_timestamp' in m.message, 'a content edit is not a move');
  t.same(m.message.edit_history, [{
    user_id: hamlet.userId, timestamp: ev.edit_timestamp, prev_content: 'first **version**',
    prev_rendered_content: '<p>first <strong>version</strong></p>', prev_rendered_content_version: 1,
  }]);

  // Whitespace-only content becomes "(deleted)"; /me detection.
  await hamlet.call('PATCH', `/messages/${id}`, { content: '   ' });
  t.equal((await get(hamlet, id)).raw_content, '(deleted)');
  await hamlet.call('PATCH', `/messages/${id}`, { content: '/me waves' });
  const me = await get(hamlet, id);
  t.equal(me.message.is_me_message, true);
  t.equal(me.message.edit_history.length, 3, 'newest first, three edits');
  t.equal(me.message.edit_history[0].prev_content, '(deleted)');

  // Errors, message unchanged.
  await rejects(t, othello, id, { content: 'hijack' }, "You don't have permission to edit this message", hamlet);
  await rejects(t, hamlet, id, {}, 'Nothing to change');
  await rejects(t, hamlet, id, { content: 'x', stream_id: 2 }, 'Cannot change message content while changing channel');
  await rejects(t, hamlet, id, { content: 'x', propagate_mode: 'change_all' }, 'Invalid propagate_mode without topic edit');
  await rejects(t, hamlet, id, { propagate_mode: 'sideways', content: 'x' }, 'Invalid propagate_mode');
  await rejects(t, hamlet, 9999, { content: 'x' }, 'Invalid message(s)', hamlet).catch(() => undefined);
  const dm = 5; // hamlet ↔ othello
  await rejects(t, hamlet, dm, { topic: 'x' }, 'Direct messages cannot have topics.');
  await rejects(t, hamlet, dm, { stream_id: 1 }, 'Direct messages cannot be moved to channels.');
  const cordelia = await s.as('cordelia@zulip.com');
  const res = await cordelia.call('PATCH', `/messages/${dm}`, { content: 'x' });
  t.same(res.body, bad('Invalid message(s)'), 'someone else\'s DM is invisible');

  // Time limit (600 s + 20 s grace): age the message.
  const realm = realmOf(s);
  const sent = realm.state.messages.timestamp.get(id);
  realm.state.messages.timestamp.set(id, sent - 610);
  const ok = await hamlet.call('PATCH', `/messages/${id}`, { content: 'within the grace period' });
  t.equal(ok.body.result, 'success', 'within limit + 20 s');
  realm.state.messages.timestamp.set(id, sent - 700);
  await rejects(t, hamlet, id, { content: 'too late' }, 'The time limit for editing this message has passed');
  realm.state.settings.messageContentEditLimitSeconds = null;
  t.equal((await hamlet.call('PATCH', `/messages/${id}`, { content: 'no limit' })).body.result, 'success', 'null = no limit');
  realm.state.settings.allowMessageEditing = false;
  await rejects(t, hamlet, id, { content: 'off' }, 'Your organization has turned off message editing');
  realm.state.settings.allowMessageEditing = true;

  // DM content edit: event to the conversation.
  const dmEdit = await verifyAction(t, s, othello, { action: () => hamlet.call('PATCH', `/messages/${dm}`, { content: 'dm edited' }), numEvents: 1, stateChangeExpected: false });
  t.notOk('stream_id' in dmEdit.events[0]!, 'no channel fields for direct messages');
  t.equal(dmEdit.events[0]!.content, 'dm edited');
});

t.test('history endpoint and edit_history visibility', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const id = await send(hamlet, 'Verona', 'hist', 'content before edit');
  const hist = async (params = {}) => (await hamlet.call('GET', `/messages/${id}/history`, params)).body;
  t.same((await hist()).message_history.length, 1, 'unedited: one snapshot');
  const original = (await hist()).message_history[0];
  t.same(Object.keys(original).sort(), ['content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  await hamlet.call('PATCH', `/messages/${id}`, { content: 'content after edit' });
  await hamlet.call('PATCH', `/messages/${id}`, { topic: 'renamed' });
  const h = (await hist()).message_history;
  t.equal(h.length, 3);
  t.same(h[0], { ...original, topic: 'hist' }, 'oldest first: the original');
  t.match(h[1], {
    topic: 'hist', content: 'content after edit', rendered_content: '<p>content after edit</p>', user_id: hamlet.userId,
    prev_content: 'content before edit', prev_rendered_content: '<p>content before edit</p>',
    content_html_diff: '<div><p>content <span class="highlight_text_inserted">after</span> <span class="highlight_text_deleted">before</span> edit</p></div>',
  });
  t.notOk('prev_topic' in h[1]);
  t.same(Object.keys(h[2]).sort(), ['content', 'prev_topic', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  t.match(h[2], { topic: 'renamed', prev_topic: 'hist', content: 'content after edit' });

  // Empty topic display name unless allow_empty_topic_name.
  await hamlet.call('PATCH', `/messages/${id}`, { topic: '' });
  const shown = (await hist()).message_history;
  t.equal(shown[3].topic, 'general chat');
  t.equal((await hist({ allow_empty_topic_name: true })).message_history[3].topic, '');
  t.equal((await hamlet.call('GET', `/messages/${id}`)).body.message.edit_history[0].topic, 'general chat');

  // Inaccessible / unknown message.
  const polonius = await s.as('polonius@zulip.com');
  t.same((await polonius.call('GET', `/messages/5/history`)).body, bad('Invalid message(s)'));
  t.same((await hamlet.call('GET', `/messages/999/history`)).body, bad('Invalid message(s)'));

  // Realm disallows history: the endpoint errors first, message objects drop edit_history.
  const iago = await s.as('iago@zulip.com');
  t.equal((await iago.call('PATCH', '/realm', { allow_edit_history: 'false' })).body.result, 'success');
  t.same((await hamlet.call('GET', `/messages/999/history`)).body, bad('Message edit history is disabled in this organization'));
  const m = (await hamlet.call('GET', `/messages/${id}`)).body.message;
  t.notOk('edit_history' in m, 'no edit_history');
  t.type(m.last_edit_timestamp, 'number', 'timestamps stay');
});

t.test('topic moves, resolving, channel moves and notifications', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const a = await send(hamlet, 'Denmark', 'plans', 'one');
  const b = await send(hamlet, 'Denmark', 'Plans', 'two');
  const c = await send(iago, 'Denmark', 'plans', 'three');
  const topicOf = async (id: number) => (await get(hamlet, id)).message.subject;
  // The Notification Bot is created on its first message (internal_send); create it before verifyAction.
  const warm = await send(hamlet, 'Denmark', 'warm', 'x');
  await hamlet.call('PATCH', `/messages/${warm}`, { topic: 'warm2' });

  // change_one: only the message; a breadcrumb in the new thread by default.
  const one = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', `/messages/${b}`, { topic: 'later' }),
    stateChangeExpected: undefined as unknown as boolean,
  });
  t.same(one.actionResult.body, { result: 'success', msg: '', detached_uploads: [] });
  const update = one.events.find((e) => e.type === 'update_message')!;
  t.match(update, { message_ids: [b], orig_subject: 'Plans', subject: 'later', topic_links: [], propagate_mode: 'change_one', stream_id: 2 });
  t.equal(await topicOf(b), 'later');
  t.equal(await topicOf(a), 'plans');
  const moved = (await get(hamlet, b)).message;
  t.type(moved.last_moved_timestamp, 'number');
  t.notOk('last_edit_timestamp' in moved, 'a move is not a content edit');
  const notice = one.events.find((e) => e.type === 'message')!;
  t.equal(notice.message.sender_email.startsWith('notification-bot'), true, 'Notification Bot');
  t.equal(notice.message.subject, 'later');
  t.equal(notice.message.content.includes('was moved here from'), true);

  // change_later from a: a and c (b already moved); case-insensitive topic match; old thread notified on request.
  const later = await hamlet.call('PATCH', `/messages/${a}`, { topic: 'renamed', propagate_mode: 'change_later', send_notification_to_old_thread: true, send_notification_to_new_thread: false });
  t.equal(later.body.result, 'success');
  t.equal(await topicOf(a), 'renamed');
  t.equal(await topicOf(c), 'renamed');
  const oldThread = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false, narrow: JSON.stringify([['stream', 'Denmark'], ['topic', 'plans']]) });
  t.equal(oldThread.body.messages.length, 1);
  t.equal(oldThread.body.messages[0].content, `This topic was moved to #**Denmark>renamed** by @_**King Hamlet|${hamlet.userId}**.`, 'old-thread notice text');
  const newThread = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false, narrow: JSON.stringify([['stream', 'Denmark'], ['topic', 'later']]) });
  t.match(newThread.body.messages[0].content, new RegExp(`^\\[A message\\]\\(http://[^)]*/#narrow/channel/2-Denmark/topic/later/near/${b}\\) was moved here from #\\*\\*Denmark>Plans\\*\\* by @_\\*\\*King Hamlet\\|${hamlet.userId}\\*\\*\\.$`), 'new-thread notice text');

  // change_all back.
  const all = await hamlet.call('PATCH', `/messages/${c}`, { topic: 'final', propagate_mode: 'change_all', send_notification_to_new_thread: false });
  t.equal(all.body.result, 'success');
  t.equal(await topicOf(a), 'final');
  t.equal(await topicOf(c), 'final');

  // Resolve / unresolve: "✔ " prefix, a notification, not a move.
  const resolveIds = [a, c];
  const resolved = await verifyAction(t, s, iago, {
    action: () => iago.call('PATCH', `/messages/${a}`, { topic: '✔ final', propagate_mode: 'change_all' }),
    stateChangeExpected: undefined as unknown as boolean,
  });
  t.match(resolved.events.find((e) => e.type === 'update_message'), { subject: '✔ final', message_ids: resolveIds });
  const resolveNotice = resolved.events.find((e) => e.type === 'message')!;
  t.match(resolveNotice.message.content, /has marked this topic as resolved\./);
  const lastMoved = (await get(hamlet, c)).message.last_moved_timestamp;
  t.equal(lastMoved, (await get(hamlet, c)).message.edit_history[1].timestamp, 'resolving does not count as a move');
  await iago.call('PATCH', `/messages/${a}`, { topic: 'final', propagate_mode: 'change_all' });
  t.equal(await topicOf(a), 'final');

  // Errors.
  await rejects(t, hamlet, a, { topic: '✔' }, 'General chat cannot be marked as resolved');
  await rejects(t, hamlet, a, { topic: 'bad\u0001topic' }, 'Invalid character in topic, at position 4!');
  await rejects(t, hamlet, a, { stream_id: 999 }, 'Invalid channel ID');
  const polonius = await s.as('polonius@zulip.com');
  // Realm: moving between channels needs members; guests cannot.
  const realm = realmOf(s);
  realm.state.settings.groups.can_move_messages_between_topics_group = realm.state.systemGroups.get('role:administrators')!;
  const othello = await s.as('othello@zulip.com');
  await rejects(t, othello, a, { topic: 'nope' }, "You don't have permission to edit this message");
  realm.state.settings.groups.can_resolve_topics_group = realm.state.systemGroups.get('role:administrators')!;
  await rejects(t, othello, a, { topic: '✔ final' }, "You don't have permission to resolve topics in this channel.");
  t.ok(polonius, 'guest caller exists');

  // Channel move into a private channel: subscribers gain access, others get delete_message.
  const moveRes = await verifyAction(t, s, othello, {
    action: () => iago.call('PATCH', `/messages/${a}`, { stream_id: 6, propagate_mode: 'change_all', send_notification_to_new_thread: false }),
    stateChangeExpected: undefined as unknown as boolean,
  });
  t.same(moveRes.actionResult.body.result, 'success');
  const del = moveRes.events.find((e) => e.type === 'delete_message');
  t.ok(del, 'othello (not in core team) loses access');
  t.same((await othello.call('GET', `/messages/${a}`)).body, bad('Invalid message(s)'));
  const after = (await get(hamlet, a)).message;
  t.equal(after.stream_id, 6);
  t.match(after.edit_history[0], { prev_stream: 2, stream: 6 });
  // Hamlet (core team subscriber) got the update event.
  const hamletMove = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', `/messages/${a}`, { stream_id: 2, propagate_mode: 'change_all', send_notification_to_new_thread: false }),
    stateChangeExpected: undefined as unknown as boolean,
  });
  t.match(hamletMove.events.find((e) => e.type === 'update_message'), { new_stream_id: 2, stream_id: 6, orig_subject: 'final', propagate_mode: 'change_all' });
});

t.test('handler: time limit and stale body leave the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const sent = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 't', content: 'old', client: 'test' }, ctx);
  const body = { content: 'old', rendered: '<p>old</p>' };
  const before = fingerprint(state);
  const late = { now: () => ctx.now() + 10_000, randomToken: ctx.randomToken };
  const r = decide(state, { type: 'edit_message', actorId: ids.member, messageId: sent.id, content: 'new', propagateMode: 'change_one', sendNotificationToOldThread: false, sendNotificationToNewThread: true, body, bodyVersion: 0 }, late);
  t.equal(r.ok ? 'ok' : r.error.message, 'The time limit for editing this message has passed');
  t.equal(fingerprint(state), before, 'state unchanged');
  const stale = decide(state, { type: 'edit_message', actorId: ids.member, messageId: sent.id, content: 'new', propagateMode: 'change_one', sendNotificationToOldThread: false, sendNotificationToNewThread: true, body, bodyVersion: 3 }, ctx);
  t.equal(stale.ok ? 'ok' : stale.error.message, 'Message was edited concurrently; retry');
});
