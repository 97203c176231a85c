/**
 * The access family through real handlers (`decide`): where local copies of a rule disagreed
 * before the family existed, Zulip's rule now holds everywhere — each resolved disagreement has a
 * test here — and the message, user and draft access functions deny what Zulip denies (guest,
 * deactivated user, bot, protected history, other realms' ids). Every rejection leaves the state
 * unchanged (`rejects`).
 */
import t from 'tap';
import { decide, rejects, run, smallRealm, type SmallRealm } from '../support/realm-fixture.js';
import { accessDraft, accessMessage, accessUserById } from '../../src/domain/access.js';
import type { Command } from '../../src/realm/commands.js';
import { systemGroupId } from '../../src/domain/groups.js';
import type { Result } from '../../src/errors.js';

const message = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.message);
const members = (...ids: number[]) => ({ direct_members: ids, direct_subgroups: [] });

function setGroup(realm: SmallRealm, streamId: number, setting: string, value: unknown): void {
  run(realm.state, { type: 'update_channel', actorId: realm.ids.owner, streamId, groups: { [setting]: { new: value } } }, realm.ctx);
}

const send = (realm: SmallRealm, senderId: number, to: unknown, topic = 't') =>
  run(realm.state, { type: 'send_message', senderId, messageType: 'stream', to, topic, content: 'x', client: 'test' }, realm.ctx).id;

t.test('guests never administer a channel, even in can_administer_channel_group', async (t) => {
  // Was: handlers/message-move.ts let a guest in the group move topics; channel-settings.ts did not.
  const realm = smallRealm();
  const { state, ctx, ids, streams } = realm;
  run(state, { type: 'subscribe', streamId: streams.general, userIds: [ids.guest] }, ctx);
  setGroup(realm, streams.general, 'can_administer_channel_group', members(ids.guest, ids.other));
  // Realm-wide, only administrators move topics: channel administration is the remaining route.
  state.settings.groups.can_move_messages_between_topics_group = systemGroupId(state, 'role:administrators');
  const id = send(realm, ids.guest, streams.general, 'guest topic');
  const rename = (actorId: number): Command => ({
    type: 'edit_message', actorId, messageId: id, topic: 'renamed', propagateMode: 'change_one',
    sendNotificationToOldThread: false, sendNotificationToNewThread: false,
  });
  rejects(t, state, rename(ids.guest), ctx, "You don't have permission to edit this message");
  rejects(t, state, { type: 'update_channel', actorId: ids.guest, streamId: streams.general, description: 'd', groups: {} }, ctx,
    'You do not have permission to administer this channel.');
  t.ok(decide(state, rename(ids.other), ctx).ok, 'a member in the same group may move the topic');
});

t.test('content access without subscription (can_subscribe_group): drafts, topic visibility, mark as read', async (t) => {
  // Was: drafts and PATCH /streams used a content rule without the groups; rendering used Zulip's.
  const realm = smallRealm();
  const { state, ctx, ids, streams } = realm;
  const draft: Command = { type: 'create_drafts', actorId: ids.other, drafts: [{ type: 'stream', to: [streams.secret], topic: 't', content: 'hi' }] };
  const mute: Command = { type: 'set_user_topic', userId: ids.other, stream: { id: streams.secret }, topic: 't', visibilityPolicy: 1 };
  const read: Command = { type: 'mark_channel_as_read', userId: ids.other, streamId: streams.secret, topic: null } as Command;
  rejects(t, state, draft, ctx, 'Invalid channel ID');
  rejects(t, state, mute, ctx, 'Invalid channel ID');
  rejects(t, state, read, ctx, 'Invalid channel ID');
  setGroup(realm, streams.secret, 'can_subscribe_group', members(ids.other));
  t.equal(message(decide(state, draft, ctx)), 'ok', 'draft to a private channel one may join');
  t.equal(message(decide(state, mute, ctx)), 'ok', 'topic visibility there');
  t.equal(message(decide(state, read, ctx)), 'ok', 'mark it as read');
  t.equal(message(decide(state, { ...draft, actorId: ids.guest } as Command, ctx)), 'Invalid channel ID', 'never for guests');
});

t.test('metadata access is not content access: administrators outside a private channel', async (t) => {
  // Was: typing and invitations took "may see the channel" (admins included) for content access.
  const realm = smallRealm();
  const { state, ctx, ids, streams } = realm;
  rejects(t, state, { type: 'typing', senderId: ids.admin, op: 'start', messageType: 'stream', streamId: streams.secret, topic: 't' }, ctx, 'Invalid channel ID');
  rejects(t, state, {
    type: 'create_multiuse_invite', actorId: ids.admin, expiresInMinutes: 60, invitedAs: 400, streamIds: [streams.secret], groupIds: [],
    includeRealmDefaultSubscriptions: false, welcomeMessageCustomText: null,
  }, ctx, `Invalid channel ID ${streams.secret}. No invites were sent.`);
  t.equal(message(decide(state, { type: 'typing', senderId: ids.owner, op: 'start', messageType: 'stream', streamId: streams.secret, topic: 't' }, ctx)), 'ok', 'a subscriber may');
  t.equal(message(decide(state, { type: 'update_channel', actorId: ids.admin, streamId: streams.secret, description: 'd', groups: {} }, ctx)), 'ok',
    'administrators still administer it');
});

t.test('accessMessage: unknown, inaccessible, deactivated and other-realm ids answer alike', async (t) => {
  const realm = smallRealm();
  const { state, ctx, ids, streams } = realm;
  const early = send(realm, ids.member, streams.secret);
  const pub = send(realm, ids.member, streams.general);
  const user = (id: number) => state.users.get(id)!;
  t.equal(message(accessMessage(state, user(ids.owner), early)), 'ok');
  t.equal(message(accessMessage(state, user(ids.guest), pub)), 'Invalid message(s)', 'guest not subscribed');
  t.equal(message(accessMessage(state, user(ids.admin), early)), 'Invalid message(s)', 'administrator outside a private channel');
  t.equal(message(accessMessage(state, user(ids.member), 9999)), 'Invalid message(s)', 'unknown id');
  run(state, { type: 'subscribe', streamId: streams.secret, userIds: [ids.other] }, ctx);
  t.equal(message(accessMessage(state, user(ids.other), early)), 'Invalid message(s)', 'protected history: earlier message');
  run(state, { type: 'archive_channel', actorId: ids.owner, streamId: streams.general }, ctx);
  t.equal(message(accessMessage(state, user(ids.other), pub)), 'ok', 'archived channels stay readable');
  t.equal(message(accessMessage(state, user(ids.other), pub, { forModification: true })), 'Invalid message(s)', 'but not modifiable');
  rejects(t, state, { type: 'add_reaction', actorId: ids.other, messageId: pub, emojiName: 'smile' }, ctx, 'Invalid message(s)');
  const theirs = smallRealm();
  const theirMessage = send(theirs, theirs.ids.member, theirs.streams.general);
  for (let i = 0; i < 3; i++) send(theirs, theirs.ids.member, theirs.streams.general);
  const foreign = theirMessage + 3;
  t.notOk(state.messages.exists(foreign), 'the id exists only in the other realm');
  t.equal(message(accessMessage(state, user(ids.owner), foreign)), 'Invalid message(s)', "another realm's id");
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.member }, ctx);
  t.equal(message(accessMessage(state, user(ids.member), early)), 'Invalid message(s)', 'deactivated actor');
});

t.test('accessUserById: bots, deactivated users, restricted guests, administration', async (t) => {
  const realm = smallRealm();
  const { state, ctx, ids } = realm;
  const user = (id: number) => state.users.get(id)!;
  const read = (actor: number, target: number, opts: Partial<Parameters<typeof accessUserById>[3]> = {}) =>
    message(accessUserById(state, user(actor), target, { forAdmin: false, ...opts }));
  t.equal(read(ids.other, ids.member), 'ok');
  t.equal(read(ids.other, 9999), 'No such user', 'unknown id');
  t.equal(read(ids.other, ids.bot), 'No such user', 'bots unless allowed');
  t.equal(read(ids.other, ids.bot, { allowBots: true }), 'ok');
  t.equal(read(ids.member, ids.bot, { allowBots: true, forAdmin: true }), 'ok', "a bot's owner administers it");
  t.equal(read(ids.other, ids.bot, { allowBots: true, forAdmin: true }), 'Insufficient permission', 'others do not');
  t.equal(read(ids.other, ids.member, { forAdmin: true }), 'Insufficient permission', 'members administer nobody');
  t.equal(read(ids.admin, ids.member, { forAdmin: true }), 'ok', 'administrators do');
  state.settings.groups.can_access_all_users_group = { direct_members: [], direct_subgroups: [] };
  t.equal(read(ids.guest, ids.other), 'Insufficient permission', 'a restricted guest and a user sharing nothing');
  t.equal(read(ids.guest, ids.guest), 'ok', 'themself');
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.other }, ctx);
  t.equal(read(ids.member, ids.other), 'User is deactivated');
  t.equal(read(ids.member, ids.other, { allowDeactivated: true }), 'ok');
  t.equal(read(ids.other, ids.member), 'No such user', 'a deactivated actor accesses nobody');
});

t.test("accessDraft: only the owner's drafts exist for them", async (t) => {
  const realm = smallRealm();
  const { state, ctx, ids } = realm;
  const [draftId] = run(state, { type: 'create_drafts', actorId: ids.member, drafts: [{ type: '', to: [], topic: '', content: 'mine' }] }, ctx).ids;
  const user = (id: number) => state.users.get(id)!;
  const found = accessDraft(state, user(ids.member), draftId!);
  t.equal(found.ok && found.value.content, 'mine');
  const foreign = accessDraft(state, user(ids.other), draftId!);
  t.equal(message(foreign), 'Draft does not exist');
  t.equal(!foreign.ok && foreign.error.status, 404, 'HTTP 404, as Zulip');
  t.equal(message(accessDraft(state, user(ids.member), 9999)), 'Draft does not exist', 'unknown id: the same error');
  rejects(t, state, { type: 'delete_draft', actorId: ids.other, draftId: draftId! }, ctx, 'Draft does not exist');
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.member }, ctx);
  t.equal(message(accessDraft(state, user(ids.member), draftId!)), 'Draft does not exist', 'deactivated owner');
});
