/**
 * Custom emoji and avatar handlers (pure rules): Zulip's check order with state unchanged after
 * every error, `can_add_custom_emoji_group`, deactivation by admins or authors, ids never reused,
 * the events, snapshot round trips, and the avatar version / source records.
 */
import t from 'tap';
import { decide, fingerprint, rejects, run, smallRealm } from '../../support/realm-fixture.js';
import { evolve } from '../../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { realmEmojiWire } from '../../../src/domain/realm-emoji.js';
import { avatarUrl, avatarUrlMedium } from '../../../src/domain/users.js';
import { checkAddRealmEmoji, type AddRealmEmoji } from '../../../src/realm/handlers/realm-emoji.js';

const SHA = 'a'.repeat(64);
const add = (actorId: number, name: string, over: Partial<AddRealmEmoji> = {}): AddRealmEmoji => ({
  type: 'add_realm_emoji', actorId, name, contentType: 'image/png', isAnimated: false, sha256: SHA, stillSha256: null, uploadBytes: 1000, ...over,
});

t.test('add: record, event to every active user, ids never reused, snapshot round trip', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const r = decide(state, add(ids.member, 'party'), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.records.map((x) => x.type), ['realm_emoji_added']);
  const event = r.value.events[0]!;
  t.same(event.userIds, [...state.users.values()].filter((u) => u.isActive).map((u) => u.id));
  t.match(event.payload, { type: 'realm_emoji', op: 'update', realm_emoji: { 1: { id: '1', name: 'party', author_id: ids.member, deactivated: false, still_url: null } } });
  for (const rec of r.value.records) evolve(state, rec);
  t.same(realmEmojiWire(state), (event.payload as any).realm_emoji, 'the event carries the state after the change');
  run(state, { type: 'remove_realm_emoji', actorId: ids.member, name: 'party' }, ctx);
  run(state, add(ids.member, 'party'), ctx);
  t.same(Object.keys(realmEmojiWire(state)), ['1', '2'], 'a new id; the old one stays, deactivated');
  t.equal(realmEmojiWire(state)['1']!.deactivated, true);
  run(state, add(ids.admin, 'blink', { contentType: 'image/gif', isAnimated: true, stillSha256: 'b'.repeat(64) }), ctx);
  t.match(realmEmojiWire(state)['3']!.still_url, /^\/user_avatars\/1\/emoji\/images\/still\/[0-9a-f]{8}\.png$/);

  const { core, columns } = toSnapshot(state);
  t.same(realmEmojiWire(fromSnapshot(1, structuredClone(core), columns)), realmEmojiWire(state));
  const { realmEmoji: _dropped, ...oldCore } = core;
  t.same(realmEmojiWire(fromSnapshot(1, structuredClone(oldCore), columns)), {}, 'an older snapshot has none');
});

t.test('errors in Zulip\'s order leave the state unchanged', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, add(ids.member, 'taken'), ctx);
  rejects(t, state, add(ids.member, ''), ctx, 'Emoji name is missing');
  rejects(t, state, add(ids.member, 'end-'), ctx, 'Emoji names must end with either a letter or digit.');
  rejects(t, state, add(ids.member, 'Caps'), ctx, 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.');
  rejects(t, state, add(ids.guest, 'fine'), ctx, 'Not allowed for guest users');
  rejects(t, state, add(ids.other, 'taken'), ctx, 'A custom emoji with this name already exists.');
  rejects(t, state, add(ids.member, 'smile'), ctx, 'Only administrators can override built-in emoji.');
  rejects(t, state, add(ids.member, 'big', { uploadBytes: 5 * 1024 * 1024 + 1 }), ctx, 'Uploaded file is larger than the allowed limit of 5 MiB');
  rejects(t, state, add(ids.member, 'svg', { contentType: 'image/svg+xml' }), ctx, 'Invalid image format');
  t.equal(checkAddRealmEmoji(state, ids.member, 'fine', 0, 10)?.message, 'You must upload exactly one file.');
  t.equal(checkAddRealmEmoji(state, ids.member, 'fine', 2, 10)?.message, 'You must upload exactly one file.');
  t.equal(checkAddRealmEmoji(state, ids.member, 'fine', 1, 10), null);

  rejects(t, state, { type: 'remove_realm_emoji', actorId: ids.other, name: 'taken' }, ctx, 'Must be an organization administrator or emoji author');
  rejects(t, state, { type: 'remove_realm_emoji', actorId: ids.admin, name: 'nope' }, ctx, "Emoji 'nope' does not exist");
  const admin = decide(state, { type: 'remove_realm_emoji', actorId: ids.admin, name: 'taken' }, ctx);
  t.ok(admin.ok, 'an administrator may remove anyone\'s emoji');

  // can_add_custom_emoji_group = administrators (as a realm settings change sets it).
  const before = fingerprint(state);
  state.settings.groups.can_add_custom_emoji_group = state.systemGroups.get('role:administrators')!;
  rejects(t, state, add(ids.member, 'fine'), ctx, 'Insufficient permission');
  t.ok(decide(state, add(ids.admin, 'fine'), ctx).ok);
  t.not(fingerprint(state), before, 'the setting itself changed the state (sanity)');
});

t.test('avatars: version bumps, uploaded and back to gravatar, snapshot', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const user = state.users.get(ids.member)!;
  const v = user.avatarVersion;
  const set = decide(state, { type: 'change_avatar', actorId: ids.member, upload: { sha256: SHA, mediumSha256: 'c'.repeat(64) } }, ctx);
  if (!set.ok) throw set.error;
  for (const rec of set.value.records) evolve(state, rec);
  t.equal(user.avatarVersion, v + 1);
  t.match(set.value.reply.avatar_url, new RegExp(`^/user_avatars/1/[0-9a-f]{40}\\.png\\?version=${v + 1}$`));
  t.equal(avatarUrl(user, true), set.value.reply.avatar_url, 'client_gravatar never nulls an uploaded avatar');
  t.equal(avatarUrlMedium(user), set.value.reply.avatar_url.replace('.png?', '-medium.png?'));
  t.match(set.value.events[0]!.payload, { type: 'realm_user', op: 'update', person: { user_id: ids.member, avatar_source: 'U', avatar_version: v + 1 } });
  const { core, columns } = toSnapshot(state);
  t.same(fromSnapshot(1, structuredClone(core), columns).users.get(ids.member)!.avatar, user.avatar);

  const back = run(state, { type: 'change_avatar', actorId: ids.member, upload: null }, ctx);
  t.match(back.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//);
  t.equal(user.avatar, undefined);
  t.equal(user.avatarVersion, v + 2);
  t.equal(avatarUrl(user, true), null, 'a public gravatar is null again with client_gravatar');
});
