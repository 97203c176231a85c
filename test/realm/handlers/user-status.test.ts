/**
 * `update_user_status` handler (https://zulip.com/api/update-status,
 * https://zulip.com/api/update-status-for-user): records, events, every
 * rule and error message, "state unchanged after error", evolve and snapshot round trip.
 */
import t from 'tap';
import { decide, fingerprint, rejects, run, smallRealm } from '../../support/realm-fixture.js';
import { evolve } from '../../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { userStatusOf, userStatusRegister, userStatusWire } from '../../../src/domain/user-status.js';
import { checkEmoji, emojiCodeByName } from '../../../src/domain/emoji.js';
import type { UpdateUserStatus } from '../../../src/realm/commands.js';

const cmd = (actorId: number, over: Partial<UpdateUserStatus> = {}): UpdateUserStatus => ({
  type: 'update_user_status', actorId, targetId: actorId, ...over,
});

t.test('emoji data: names, aliases, codes', async (t) => {
  t.same(emojiCodeByName('car'), { code: '1f697', type: 'unicode_emoji' });
  t.same(emojiCodeByName('zulip'), { code: 'zulip', type: 'zulip_extra_emoji' });
  t.equal(emojiCodeByName('no_such_emoji_xyz'), null);
  t.equal(checkEmoji('car', '1f697', 'unicode_emoji'), null);
  t.equal(checkEmoji('car', 'ffff', 'unicode_emoji'), 'Invalid emoji code.');
  t.equal(checkEmoji('smile', '1f697', 'unicode_emoji'), 'Invalid emoji name.');
  t.equal(checkEmoji('zulip', 'zulip', 'zulip_extra_emoji'), null);
  t.equal(checkEmoji('zulip', 'x', 'zulip_extra_emoji'), 'Invalid emoji code.');
  t.equal(checkEmoji('car', 'zulip', 'zulip_extra_emoji'), 'Invalid emoji name.');
  t.equal(checkEmoji('party', '1', 'realm_emoji'), 'Invalid custom emoji.');
  t.equal(checkEmoji('car', '1f697', 'other'), 'Invalid emoji type.');
});

t.test('update_user_status: record, event to every active user, only supplied keys', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const result = decide(state, cmd(ids.member, { statusText: 'on vacation', emojiName: 'car' }), ctx);
  if (!result.ok) throw result.error;
  const { records, events, reply } = result.value;
  t.same(reply, {});
  t.same(records, [{ type: 'user_status_set', v: 1, userId: ids.member, statusText: 'on vacation', emojiName: 'car', emojiCode: '1f697', reactionType: 'unicode_emoji' }]);
  t.equal(events.length, 1);
  t.same(events[0]!.payload, { type: 'user_status', user_id: ids.member, status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  t.same([...events[0]!.userIds].sort(), [...state.users.keys()].sort(), 'to every active user');
  for (const r of records) evolve(state, r);
  t.same(userStatusWire(userStatusOf(state, ids.member)), { status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });

  // Only supplied keys change.
  const away = decide(state, cmd(ids.member, { away: true }), ctx);
  if (!away.ok) throw away.error;
  t.same(away.value.events[0]!.payload, { type: 'user_status', user_id: ids.member, away: true });
  for (const r of away.value.records) evolve(state, r);
  t.same(userStatusRegister(state), {
    [String(ids.member)]: { away: true, status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' },
  });

  // Alias name with explicit code and type; zulip extra emoji by name.
  run(state, cmd(ids.member, { emojiName: 'c', emojiCode: '00a9', reactionType: 'unicode_emoji' }), ctx);
  t.match(userStatusOf(state, ids.member), { emojiName: 'c', emojiCode: '00a9' }, 'alias of copyright');
  run(state, cmd(ids.member, { emojiName: 'p' }), ctx);
  t.match(userStatusOf(state, ids.member), { emojiName: 'p', emojiCode: '1f17f' }, 'alias looked up by name');
  run(state, cmd(ids.member, { emojiName: 'zulip' }), ctx);
  t.match(userStatusOf(state, ids.member), { emojiName: 'zulip', emojiCode: 'zulip', reactionType: 'zulip_extra_emoji' });
  // Seed §2.1's `service_extra_emoji` is stored and sent as Zulip's `zulip_extra_emoji`.
  const extra = decide(state, cmd(ids.member, { emojiName: 'zulip', emojiCode: 'zulip', reactionType: 'service_extra_emoji' }), ctx);
  if (!extra.ok) throw extra.error;
  t.match(extra.value.events[0]!.payload, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
  rejects(t, state, cmd(ids.member, { emojiName: 'car', emojiCode: '1f697', reactionType: 'service_extra_emoji' }), ctx, 'Invalid emoji code.');

  // Clearing: '' text, '' emoji, away false → back to default (no entry).
  const clear = decide(state, cmd(ids.member, { statusText: '', emojiName: '', away: false }), ctx);
  if (!clear.ok) throw clear.error;
  t.same(clear.value.events[0]!.payload, { type: 'user_status', user_id: ids.member, away: false, status_text: '', emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' });
  for (const r of clear.value.records) evolve(state, r);
  t.equal(state.userStatus.has(ids.member), false);
  t.same(userStatusRegister(state), {});

  // Emoji code/type given with an emoji name passes through (name '' ignores them).
  run(state, cmd(ids.member, { emojiName: '', emojiCode: '1f697' }), ctx);
  t.same(userStatusRegister(state), {});
});

t.test('update_user_status: another user (administrators only)', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const r = decide(state, cmd(ids.admin, { targetId: ids.member, statusText: 'busy' }), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.events[0]!.payload, { type: 'user_status', user_id: ids.member, status_text: 'busy' });
  run(state, cmd(ids.owner, { targetId: ids.member, emojiName: 'smile' }), ctx);
  for (const rec of r.value.records) evolve(state, rec);
  t.match(userStatusOf(state, ids.member), { statusText: 'busy', emojiName: 'smile' });
});

t.test('update_user_status: every error leaves the state unchanged', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, cmd(ids.member, { statusText: 'hello', emojiName: 'car' }), ctx);
  const before = fingerprint(state);
  const errors: Array<[UpdateUserStatus, string]> = [
    [cmd(ids.member), 'Client did not pass any new values.'],
    [cmd(ids.member, { emojiCode: '1f697' }), 'Client did not pass any new values.'],
    [cmd(ids.member, { statusText: 'x', emojiCode: '1f697' }), 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [cmd(ids.member, { away: true, reactionType: 'unicode_emoji' }), 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [cmd(ids.member, { statusText: 'x'.repeat(61) }), 'status_text is too long (limit: 60 characters)'],
    [cmd(ids.member, { emojiName: 'no_such_emoji_xyz' }), "Emoji 'no_such_emoji_xyz' does not exist"],
    [cmd(ids.member, { emojiName: 'no_such_emoji_xyz', emojiCode: '1f697' }), "Emoji 'no_such_emoji_xyz' does not exist"],
    [cmd(ids.member, { emojiName: 'smile', emojiCode: '1f697', reactionType: 'unicode_emoji' }), 'Invalid emoji name.'],
    [cmd(ids.member, { emojiName: 'car', emojiCode: 'ffffff', reactionType: 'unicode_emoji' }), 'Invalid emoji code.'],
    [cmd(ids.member, { emojiName: 'party', emojiCode: '1', reactionType: 'realm_emoji' }), 'Invalid custom emoji.'],
    [cmd(ids.member, { emojiName: 'car', emojiCode: 'zulip', reactionType: 'zulip_extra_emoji' }), 'Invalid emoji name.'],
    [cmd(ids.member, { emojiName: 'car', emojiCode: '1f697', reactionType: 'bogus' }), 'Invalid emoji type.'],
    [cmd(ids.bot, { statusText: 'beep' }), 'This endpoint does not accept bot requests.'],
    [cmd(ids.member, { targetId: ids.other, statusText: 'x' }), 'Insufficient permission'],
    [cmd(ids.guest, { targetId: ids.other, statusText: 'x' }), 'Insufficient permission'],
    [cmd(ids.admin, { targetId: 9999, statusText: 'x' }), 'No such user'],
    [cmd(ids.admin, { targetId: ids.bot, statusText: 'x' }), 'No such user'],
    [cmd(ids.admin, { targetId: ids.member }), 'Client did not pass any new values.'],
  ];
  for (const [c, msg] of errors) {
    const r = decide(state, c, ctx);
    t.notOk(r.ok, msg);
    if (!r.ok) t.equal(r.error.message, msg);
  }
  t.equal(fingerprint(state), before, 'state unchanged after errors');
  t.equal(decide(state, cmd(ids.member, { statusText: 'ü'.repeat(60) }), ctx).ok, true, '60 characters is fine');
});

t.test('user status survives a snapshot; old snapshots load', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, cmd(ids.member, { statusText: 'lunch', away: true }), ctx);
  const { core, columns } = toSnapshot(state);
  const back = fromSnapshot(1, structuredClone(core), columns);
  t.same(userStatusRegister(back), { [String(ids.member)]: { away: true, status_text: 'lunch' } });
  const old = structuredClone(core) as unknown as Record<string, unknown>;
  delete old.userStatus;
  t.same(userStatusRegister(fromSnapshot(1, old, columns)), {}, 'snapshot without userStatus');
});
