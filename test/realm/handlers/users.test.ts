/** `create_user`, `create_channel` (system setup), `subscribe`, `create_realm` handlers: records, replies, errors. */
import t from 'tap';
import { decide, fingerprint, run, smallRealm } from '../../support/realm-fixture.js';
import type { CreateChannel, CreateUser } from '../../../src/realm/commands.js';

const user = (over: Partial<CreateUser>): CreateUser => ({
  type: 'create_user', email: 'new@example.com', fullName: 'New Person', role: 400, passwordHash: 'h', isBot: false,
  botType: null, botOwnerId: null, timezone: 'Europe/Paris', ...over,
});
const stream = (over: Partial<CreateChannel>): CreateChannel => ({
  type: 'create_channel', actorId: null, name: 'fresh', description: '', inviteOnly: false, isWebPublic: false, isDefault: false, subscriberIds: [], ...over,
});

t.test('create_user', async (t) => {
  const { state, ctx } = smallRealm();
  const result = decide(state, user({ email: ' New@Example.com ' }), ctx);
  if (!result.ok) throw result.error;
  const [record] = result.value.records;
  t.match(record, { type: 'user_created', v: 1, email: 'new@example.com', fullName: 'New Person', role: 400, timezone: 'Europe/Paris', passwordHash: 'h' });
  t.match(result.value.reply.apiKey, /^[A-Za-z0-9]{32}$/);
  t.equal(result.value.reply.userId, state.nextIds.user);

  const before = fingerprint(state);
  const errors: Array<[Partial<CreateUser>, string]> = [
    [{ email: 'member@EXAMPLE.com' }, "Email 'member@EXAMPLE.com' already in use"],
    [{ email: 'not-an-email' }, 'Bad name or username'],
    [{ fullName: 'x' }, 'Name too short!'],
    [{ fullName: 'y'.repeat(101) }, 'Name too long!'],
    [{ fullName: 'Bad*Name' }, 'Invalid characters in name!'],
    [{ fullName: 'Name|12' }, 'Invalid format!'],
    [{ isBot: true, botType: 1, botOwnerId: 999 }, 'No such user'],
  ];
  for (const [over, msg] of errors) {
    const r = decide(state, user(over), ctx);
    t.notOk(r.ok, msg);
    if (!r.ok) t.equal(r.error.message, msg);
  }
  t.equal(fingerprint(state), before, 'state unchanged');
});

t.test('create_channel by the system, and subscribe', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const { streamId } = run(state, stream({ name: '  Fresh Ideas ', description: 'line1\nline2', subscriberIds: [ids.member, ids.other] }), ctx);
  const s = state.streams.get(streamId)!;
  t.match(s, { name: 'Fresh Ideas', description: 'line1 line2', inviteOnly: false, historyPublicToSubscribers: true, firstMessageId: null });
  t.equal(s.renderedDescription, '<p>line1 line2</p>');
  t.same([...state.subscriptions.get(streamId)!.keys()], [ids.member, ids.other]);
  t.not(state.subscriptions.get(streamId)!.get(ids.member)!.color, undefined);
  const priv = run(state, stream({ name: 'hush', inviteOnly: true }), ctx);
  t.equal(state.streams.get(priv.streamId)!.historyPublicToSubscribers, false, 'private default: protected history');

  const before = fingerprint(state);
  const errors: Array<[Partial<CreateChannel>, string]> = [
    // The wording real requests get (Zulip's ChannelExistsError); create_stream said "Channel name '…' is already taken.".
    [{ name: 'fresh ideas' }, "Channel 'fresh ideas' already exists"],
    [{ name: '   ' }, "Channel name can't be empty!"],
    [{ name: 'z'.repeat(61) }, 'Channel name too long (limit: 60 characters).'],
    [{ name: 'a\u0007b' }, 'Invalid character in channel name, at position 2!'],
    [{ description: 'd'.repeat(1025) }, 'description is too long (limit: 1024 characters)'],
    [{ subscriberIds: [999] }, 'No such user'],
  ];
  for (const [over, msg] of errors) {
    const r = decide(state, stream(over), ctx);
    t.notOk(r.ok, msg);
    if (!r.ok) t.equal(r.error.message, msg);
  }
  const badSub = decide(state, { type: 'subscribe', streamId: 999, userIds: [ids.member] }, ctx);
  t.notOk(badSub.ok);
  if (!badSub.ok) t.equal(badSub.error.message, 'Invalid channel ID');
  t.equal(fingerprint(state), before, 'state unchanged');

  const again = decide(state, { type: 'subscribe', streamId, userIds: [ids.member] }, ctx);
  t.ok(again.ok);
  if (again.ok) t.same(again.value.records, [], 'subscribing a subscriber again writes nothing');
});

t.test('create_realm only once', async (t) => {
  const { state, ctx } = smallRealm();
  const r = decide(state, { type: 'create_realm', subdomain: '', name: 'x', description: '' }, ctx);
  t.notOk(r.ok);
  t.equal(state.systemGroups.size, 8, 'the eight system groups');
});
