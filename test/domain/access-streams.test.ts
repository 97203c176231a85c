/**
 * The channel access family (src/domain/access/streams.ts; Zulip's zerver/lib/streams.py
 * `access_stream_by_id`, `access_stream_by_name`, `access_stream_for_send_message`,
 * `check_stream_access_for_delete_or_update_requiring_metadata_access`): each function denies
 * what Zulip denies — guests, deactivated users, bots, non-subscribers of a private channel with
 * protected history, other realms' ids — and answers unknown and inaccessible alike.
 */
import t from 'tap';
import { run, smallRealm, type SmallRealm } from '../support/realm-fixture.js';
import {
  accessStreamById,
  accessStreamByName,
  accessStreamForAdminister,
  accessStreamForSend,
  canAccessStreamHistory,
  canAdministerChannel,
  hasContentAccess,
  hasMetadataAccess,
} from '../../src/domain/access.js';
import type { Result } from '../../src/errors.js';

const message = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.message);
const members = (...ids: number[]) => ({ direct_members: ids, direct_subgroups: [] });

/** Sets a channel permission group through the real `update_channel` command (as an administrator). */
function setGroup(realm: SmallRealm, streamId: number, setting: string, value: unknown): void {
  run(realm.state, { type: 'update_channel', actorId: realm.ids.owner, streamId, groups: { [setting]: { new: value } } }, realm.ctx);
}

t.test('accessStreamById: content access, one error for unknown and inaccessible', async (t) => {
  const realm = smallRealm();
  const { state, ids, streams } = realm;
  const user = (id: number) => state.users.get(id)!;
  const by = (id: number, streamId: number, opts = {}) => message(accessStreamById(state, user(id), streamId, opts));

  t.equal(by(ids.other, streams.general), 'ok', 'member, public channel');
  t.equal(by(ids.other, streams.empty), 'ok', 'public channel without subscription');
  t.equal(by(ids.member, streams.secret), 'ok', 'subscriber of a private channel');
  t.equal(by(ids.other, streams.secret), 'Invalid channel ID', 'non-subscriber of a private channel');
  t.equal(by(ids.other, 999), 'Invalid channel ID', 'unknown id: the same error');
  t.equal(by(ids.guest, streams.general), 'Invalid channel ID', 'guest, public channel not subscribed');
  t.equal(by(ids.admin, streams.secret), 'Invalid channel ID', 'administrators have no content access to private channels');
  t.equal(by(ids.admin, streams.secret, { requireContentAccess: false }), 'ok', '... but metadata access');
  t.equal(by(ids.other, streams.secret, { requireContentAccess: false }), 'Invalid channel ID', 'members have no metadata access');
  t.equal(by(ids.guest, streams.general, { requireContentAccess: false }), 'Invalid channel ID', 'guests no metadata access to public channels');
  const access = accessStreamById(state, user(ids.member), streams.secret);
  t.same(access.ok && { id: access.value.stream.id, subscribed: access.value.subscribed }, { id: streams.secret, subscribed: true });
  const unsubscribed = accessStreamById(state, user(ids.other), streams.empty);
  t.equal(unsubscribed.ok && unsubscribed.value.subscribed, false, 'subscribed flag');
});

t.test('deactivated users, bots and archived channels', async (t) => {
  const realm = smallRealm();
  const { state, ctx, ids, streams } = realm;
  const bot = () => state.users.get(ids.bot)!;
  t.equal(message(accessStreamById(state, bot(), streams.secret)), 'Invalid channel ID', 'a bot does not read through its owner');
  t.equal(message(accessStreamById(state, bot(), streams.general)), 'ok', 'a bot is a member for public channels');

  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.member }, ctx);
  const member = state.users.get(ids.member)!;
  t.equal(message(accessStreamById(state, member, streams.general)), 'Invalid channel ID', 'deactivated: by id');
  t.equal(message(accessStreamByName(state, member, 'general')), "Invalid channel name 'general'", 'deactivated: by name');
  t.equal(message(accessStreamForAdminister(state, member, streams.general)), 'Invalid channel ID', 'deactivated: administer');
  t.equal(accessStreamForSend(state, member, state.streams.get(streams.general)!)?.message, "Not authorized to send to channel 'general'");

  t.equal(message(accessStreamById(state, bot(), streams.general)), 'Invalid channel ID', "the owner's bots are deactivated with them");

  run(state, { type: 'archive_channel', actorId: ids.owner, streamId: streams.empty }, ctx);
  const other = state.users.get(ids.other)!;
  t.equal(message(accessStreamById(state, other, streams.empty)), 'Invalid channel ID', 'archived channels are refused by default');
  t.equal(message(accessStreamById(state, other, streams.empty, { requireActive: false })), 'ok', 'unless asked');
});

t.test('accessStreamByName: case-insensitive, its own error wording', async (t) => {
  const { state, ids } = smallRealm();
  const other = state.users.get(ids.other)!;
  const found = accessStreamByName(state, other, 'GENERAL');
  t.equal(found.ok && found.value.stream.name, 'general');
  t.equal(message(accessStreamByName(state, other, 'secret')), "Invalid channel name 'secret'", 'inaccessible');
  t.equal(message(accessStreamByName(state, other, 'nowhere')), "Invalid channel name 'nowhere'", 'unknown: the same error');
});

t.test("other realms' ids are unknown here", async (t) => {
  const mine = smallRealm();
  const theirs = smallRealm();
  const extra = run(theirs.state, { type: 'create_channel', actorId: theirs.ids.owner, name: 'theirs', subscriberIds: [theirs.ids.owner], description: '',
    announce: false, inviteOnly: false, isWebPublic: false, isDefault: false, folderId: null, groups: {} }, theirs.ctx).streamId;
  t.ok(theirs.state.streams.has(extra) && !mine.state.streams.has(extra), 'the id exists only in the other realm');
  const owner = mine.state.users.get(mine.ids.owner)!;
  t.equal(message(accessStreamById(mine.state, owner, extra)), 'Invalid channel ID');
  t.equal(message(accessStreamForAdminister(mine.state, owner, extra)), 'Invalid channel ID', 'even for the owner');
  t.equal(message(accessStreamByName(mine.state, owner, 'theirs')), "Invalid channel name 'theirs'");
});

t.test('content access without subscription (can_subscribe_group / can_add_subscribers_group)', async (t) => {
  const realm = smallRealm();
  const { state, ids, streams } = realm;
  const other = () => state.users.get(ids.other)!;
  const guest = () => state.users.get(ids.guest)!;
  const secret = () => state.streams.get(streams.secret)!;
  t.notOk(hasContentAccess(state, other(), secret()), 'before: no content access');
  setGroup(realm, streams.secret, 'can_subscribe_group', members(ids.other, ids.guest));
  t.ok(hasContentAccess(state, other(), secret()), 'a member of can_subscribe_group has content access');
  t.ok(hasMetadataAccess(state, other(), secret()));
  t.notOk(hasContentAccess(state, guest(), secret()), 'guests never get it through a group');
  t.equal(message(accessStreamById(state, other(), streams.secret)), 'ok');
  t.notOk(canAccessStreamHistory(state, other(), secret()), 'protected history stays protected');
  setGroup(realm, streams.secret, 'can_add_subscribers_group', members(ids.admin));
  t.ok(hasContentAccess(state, state.users.get(ids.admin)!, secret()), 'can_add_subscribers_group grants it too');
});

t.test('accessStreamForAdminister: guests never administer; existence stays hidden', async (t) => {
  const realm = smallRealm();
  const { state, ids, streams } = realm;
  const user = (id: number) => state.users.get(id)!;
  const adm = (id: number, streamId: number) => message(accessStreamForAdminister(state, user(id), streamId));
  t.equal(adm(ids.admin, streams.secret), 'ok', 'realm administrators administer every channel');
  t.equal(adm(ids.other, streams.general), 'You do not have permission to administer this channel.', 'visible but not theirs');
  t.equal(adm(ids.other, streams.secret), 'Invalid channel ID', 'invisible: no oracle');
  setGroup(realm, streams.general, 'can_administer_channel_group', members(ids.other, ids.guest));
  t.equal(adm(ids.other, streams.general), 'ok', 'can_administer_channel_group member');
  run(state, { type: 'subscribe', streamId: streams.general, userIds: [ids.guest] }, realm.ctx);
  t.notOk(canAdministerChannel(state, user(ids.guest), state.streams.get(streams.general)!), 'a guest in the group does not administer');
  t.equal(adm(ids.guest, streams.general), 'You do not have permission to administer this channel.');
  setGroup(realm, streams.secret, 'can_administer_channel_group', members(ids.other));
  t.equal(adm(ids.other, streams.secret), 'ok', 'channel administrators need no subscription');
  t.ok(hasMetadataAccess(state, user(ids.other), state.streams.get(streams.secret)!), 'and have metadata access');
  t.notOk(hasContentAccess(state, user(ids.other), state.streams.get(streams.secret)!), 'but no content access');
});

t.test('accessStreamForSend: can_send_message_group first, then access to post', async (t) => {
  const realm = smallRealm();
  const { state, ids, streams } = realm;
  const send = (id: number, streamId: number) => accessStreamForSend(state, state.users.get(id)!, state.streams.get(streamId)!)?.message ?? 'ok';
  t.equal(send(ids.other, streams.empty), 'ok', 'public channel, not subscribed');
  t.equal(send(ids.guest, streams.general), "Not authorized to send to channel 'general'", 'guest, public channel not subscribed');
  t.equal(send(ids.other, streams.secret), "Not authorized to send to channel 'secret'", 'private channel, not subscribed');
  t.equal(send(ids.admin, streams.secret), "Not authorized to send to channel 'secret'", 'administrators too');
  t.equal(send(ids.bot, streams.secret), 'ok', "a bot posts where its owner is subscribed");
  setGroup(realm, streams.general, 'can_send_message_group', members(ids.owner));
  t.equal(send(ids.other, streams.general), 'You do not have permission to post in this channel.');
  t.equal(send(ids.owner, streams.general), 'ok');
});
