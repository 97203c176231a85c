/**
 * The personal-feature handlers on a small realm (no server): muted users, alert words, saved
 * snippets, edit typing, own deactivation, API key regeneration and push devices. Every error
 * leaves the state exactly as it was (`rejects`); the records replay to the same state (recovery)
 * and survive a snapshot round trip; an older snapshot without these parts loads with none.
 */
import t from 'tap';
import { decide, field, fingerprint, rejects, smallRealm, snapshotCopy, checkReplayAndSnapshot } from '../../support/realm-fixture.js';
import { evolve } from '../../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import type { RealmRecord } from '../../../src/domain/records.js';
import { setupRunner } from '../../../src/realm/apply-command.js';
import { mutedUsersWire } from '../../../src/domain/muted-users.js';
import { alertWordsOf, containsAlertWord } from '../../../src/domain/alert-words.js';
import { savedSnippetsWire } from '../../../src/domain/saved-snippets.js';
import { pushDevicesOf } from '../../../src/domain/push-devices.js';
import { Flag } from '../../../src/domain/message-index.js';
import { Role } from '../../../src/domain/realm-state.js';

t.test('handlers: records, events, errors, replay, snapshot', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const base = snapshotCopy(state);
  const records: RealmRecord[] = [];
  const exec = setupRunner(state, ctx, records);
  const send = (senderId: number, content: string) =>
    exec({ type: 'send_message', senderId, messageType: 'stream', to: streams.general, topic: 't', content, client: 'test' }).id;

  // --- Muted users ---
  const early = send(ids.other, 'before the mute');
  exec({ type: 'mute_user', actorId: ids.member, mutedUserId: ids.other });
  t.same(mutedUsersWire(state, ids.member).map((m) => m.id), [ids.other]);
  t.ok((state.messages.userFlags(ids.member, early)! & Flag.read) !== 0, 'muting marked the earlier message read');
  const later = send(ids.other, 'after the mute');
  t.ok((state.messages.userFlags(ids.member, later)! & Flag.read) !== 0, 'a new message arrives read for the muter');
  t.equal(state.messages.userFlags(ids.owner, later)! & Flag.read, 0, 'and unread for others');
  rejects(t, state, { type: 'mute_user', actorId: ids.member, mutedUserId: ids.member }, ctx, 'Cannot mute self');
  rejects(t, state, { type: 'mute_user', actorId: ids.member, mutedUserId: ids.other }, ctx, 'User already muted');
  rejects(t, state, { type: 'mute_user', actorId: ids.member, mutedUserId: 999 }, ctx, 'No such user');
  rejects(t, state, { type: 'unmute_user', actorId: ids.member, mutedUserId: ids.admin }, ctx, 'User is not muted');
  // A guest restricted to the users they share something with cannot mute the others.
  // (Set directly for this one check, then restored.)
  const everyone = state.settings.groups['can_access_all_users_group']!;
  state.settings.groups['can_access_all_users_group'] = state.systemGroups.get('role:members')!;
  rejects(t, state, { type: 'mute_user', actorId: ids.guest, mutedUserId: ids.other }, ctx, 'Insufficient permission');
  state.settings.groups['can_access_all_users_group'] = everyone;
  const muteBot = decide(state, { type: 'mute_user', actorId: ids.owner, mutedUserId: ids.bot }, ctx);
  t.ok(muteBot.ok, 'bots can be muted');
  if (muteBot.ok) t.same(muteBot.value.events.map((e) => e.userIds), [[ids.owner]], 'the muted_users event goes to the muter only');
  exec({ type: 'unmute_user', actorId: ids.member, mutedUserId: ids.other });
  exec({ type: 'mute_user', actorId: ids.member, mutedUserId: ids.admin });

  // --- Alert words ---
  t.same(exec({ type: 'change_alert_words', actorId: ids.owner, op: 'add', words: ['Castle', 'castle', 'moat'] }), { alert_words: ['castle', 'moat'] }, 'the last spelling of a repeat wins');
  const unchanged = decide(state, { type: 'change_alert_words', actorId: ids.owner, op: 'add', words: ['CASTLE'] }, ctx);
  t.ok(unchanged.ok && unchanged.value.records.length === 0 && unchanged.value.events.length === 1, 'no change: no record, still the event');
  const alert = send(ids.admin, 'The castle is closed');
  t.ok((state.messages.userFlags(ids.owner, alert)! & Flag.has_alert_word) !== 0, 'has_alert_word for the owner');
  t.equal(state.messages.userFlags(ids.other, alert)! & Flag.has_alert_word, 0, 'not for others');
  exec({ type: 'change_alert_words', actorId: ids.owner, op: 'remove', words: ['MOAT'] });
  t.same(alertWordsOf(state, ids.owner), ['castle']);
  t.ok(containsAlertWord('xcastle', 'castle'), "Zulip's start check passes a match at the second character");
  t.notOk(containsAlertWord('a xcastle', 'castle'), 'but not inside a word further on');
  t.ok(containsAlertWord('(castle)', 'castle') && containsAlertWord('**castle**!', 'castle'));
  t.notOk(containsAlertWord('castles', 'castle') || containsAlertWord('/castle/', 'castle'));

  // --- Saved snippets ---
  t.same(exec({ type: 'create_saved_snippet', actorId: ids.member, title: 'T', content: 'C' }), { saved_snippet_id: 1 });
  t.same(exec({ type: 'create_saved_snippet', actorId: ids.other, title: 'O', content: 'C' }), { saved_snippet_id: 2 });
  exec({ type: 'edit_saved_snippet', actorId: ids.member, id: 1, content: 'D' });
  rejects(t, state, { type: 'edit_saved_snippet', actorId: ids.member, id: 2, title: 'x' }, ctx, 'Saved snippet does not exist.');
  rejects(t, state, { type: 'delete_saved_snippet', actorId: ids.member, id: 2 }, ctx, 'Saved snippet does not exist.');
  exec({ type: 'delete_saved_snippet', actorId: ids.other, id: 2 });
  t.same(savedSnippetsWire(state, ids.member).map((s) => [s.id, s.title, s.content]), [[1, 'T', 'D']]);

  // --- Edit typing ---
  const mine = send(ids.member, 'typing here');
  const typed = decide(state, { type: 'typing_edit_message', senderId: ids.member, messageId: mine, op: 'start' }, ctx);
  t.ok(typed.ok);
  if (typed.ok) {
    t.same(typed.value.records, [], 'nothing persisted');
    t.same([...typed.value.events[0]!.userIds].sort(), [ids.owner, ids.admin, ids.member, ids.other].sort(), "the channel's subscribers");
    t.same(field(typed.value.events[0]!, 'recipient'), { type: 'channel', channel_id: streams.general, topic: 't' });
  }
  rejects(t, state, { type: 'typing_edit_message', senderId: ids.other, messageId: mine, op: 'start' }, ctx, "You don't have permission to edit this message");
  rejects(t, state, { type: 'typing_edit_message', senderId: ids.guest, messageId: mine, op: 'start' }, ctx, 'Invalid message(s)');
  // Past the edit limit: Zulip gives the typing notification no grace buffer.
  const late = { now: () => state.messages.timestamp.get(mine) + 601, randomToken: ctx.randomToken };
  rejects(t, state, { type: 'typing_edit_message', senderId: ids.member, messageId: mine, op: 'start' }, late, 'The time limit for editing this message has passed');

  // --- Push devices ---
  exec({ type: 'add_push_device', actorId: ids.member, kind: 'apns', token: 'aa', appId: 'org.zulip.Zulip' });
  exec({ type: 'add_push_device', actorId: ids.member, kind: 'fcm', token: 'bb', appId: null });
  exec({ type: 'add_push_device', actorId: ids.member, kind: 'apns', token: 'aa', appId: 'org.zulip.Zulip' });
  t.same(pushDevicesOf(state, ids.member).map((d) => d.token), ['aa', 'bb'], 're-registering keeps one entry');
  rejects(t, state, { type: 'remove_push_device', actorId: ids.member, kind: 'fcm', token: 'aa' }, ctx, 'Token does not exist');
  rejects(t, state, { type: 'add_push_device', actorId: ids.bot, kind: 'fcm', token: 'cc', appId: null }, ctx, 'This endpoint does not accept bot requests.');
  exec({ type: 'remove_push_device', actorId: ids.member, kind: 'fcm', token: 'bb' });

  // --- API key ---
  const oldKey = state.users.get(ids.other)!.apiKey;
  exec({ type: 'add_push_device', actorId: ids.other, kind: 'fcm', token: 'dd', appId: null });
  const { api_key: newKey } = exec({ type: 'regenerate_api_key', actorId: ids.other });
  t.not(newKey, oldKey);
  t.equal(state.usersByApiKey.get(oldKey), undefined, 'the old key is forgotten');
  t.equal(state.usersByApiKey.get(newKey), ids.other);
  t.same(pushDevicesOf(state, ids.other), [], "the user's push devices are dropped");
  rejects(t, state, { type: 'regenerate_api_key', actorId: ids.bot }, ctx, 'This endpoint does not accept bot requests.');

  // --- Own deactivation ---
  rejects(t, state, { type: 'deactivate_own_account', actorId: ids.owner }, ctx, 'Cannot deactivate the only organization owner.');
  exec({ type: 'deactivate_own_account', actorId: ids.member });
  t.equal(state.users.get(ids.member)!.isActive, false);
  t.equal(state.users.get(ids.bot)!.isActive, false, "the member's bot is deactivated too");
  rejects(t, state, { type: 'deactivate_own_account', actorId: ids.member }, ctx, 'No such user');

  // Replay and snapshots.
  const { core, columns, restored } = checkReplayAndSnapshot(t, base, records, state);
  const old = structuredClone(core) as unknown as Record<string, unknown>;
  for (const k of ['mutedUsers', 'alertWords', 'savedSnippets', 'pushDevices']) delete old[k];
  const older = fromSnapshot(state.id, old, columns);
  t.same([mutedUsersWire(older, ids.member), alertWordsOf(older, ids.owner), savedSnippetsWire(older, ids.member)], [[], [], []], 'an older snapshot loads with none');
});

t.test('no edit-typing events in a channel of more than 100 subscribers', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const exec = setupRunner(state, ctx, []);
  const id = exec({ type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 't', content: 'x', client: 'test' }).id;
  const events = () => {
    const d = decide(state, { type: 'typing_edit_message', senderId: ids.member, messageId: id, op: 'start' }, ctx);
    return d.ok ? d.value.events.length : -1;
  };
  const extra: number[] = [];
  // general has 4 subscribers: 96 more make 100 (still notified), one more makes 101.
  for (let i = 0; i < 97; i++) {
    extra.push(exec({ type: 'create_user', email: `u${i}@example.com`, fullName: `User ${i}`, role: Role.member, passwordHash: null, isBot: false, botType: null, botOwnerId: null, timezone: '' }).userId);
  }
  exec({ type: 'subscribe', streamId: streams.general, userIds: extra.slice(0, 96) });
  t.equal(state.subscriptions.get(streams.general)!.size, 100);
  t.equal(events(), 1, '100 subscribers: notified');
  exec({ type: 'subscribe', streamId: streams.general, userIds: extra.slice(96) });
  t.equal(events(), 0, '101 subscribers: no event');
});

t.test('the only user cannot deactivate themself', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const exec = setupRunner(state, ctx, []);
  for (const id of [ids.admin, ids.member, ids.other, ids.guest]) exec({ type: 'deactivate_user', actorId: ids.owner, userId: id });
  t.equal(state.users.get(ids.owner)!.role, Role.owner);
  const active = [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
  t.same(active, [ids.owner], "the member's bot went with the member");
  rejects(t, state, { type: 'deactivate_own_account', actorId: ids.owner }, ctx, 'Cannot deactivate the only user.');
});
