/**
 * The per-channel receiver cache (src/domain/channel-receivers.ts) against the uncached computation
 * it replaced: every channel send must give UserMessage rows and `message` event receivers exactly
 * as walking the subscription map and `users` per send did. A seeded random model mixes the
 * commands that change who receives (subscribe, unsubscribe, (de/re)activation, user and bot
 * creation with default channels, channel creation with subscribers, snapshot restore) and
 * records the cache must survive (subscription properties, read flags) with channel and direct sends, through the real handlers and `evolve`; targeted cases follow.
 */
import t from 'tap';
import { prng } from '../../bench/prng.js';
import { decide, fingerprint, run, smallRealm, snapshotCopy } from '../support/realm-fixture.js';
import { evolve } from '../../src/domain/evolve.js';
import { Flag } from '../../src/domain/message-index.js';
import { receiverIds } from '../../src/domain/channel-receivers.js';
import type { RealmState } from '../../src/domain/realm-state.js';
import type { Command, SendMessage, UpdateSubscriptions } from '../../src/realm/commands.js';
import type { CommandContext } from '../../src/realm/decision.js';

/** The reference: the pre-cache walk (active subscribers in subscription-map order). */
function activeSubscribersUncached(state: RealmState, streamId: number): number[] {
  const out: number[] = [];
  for (const userId of state.subscriptions.get(streamId)?.keys() ?? []) if (state.users.get(userId)?.isActive) out.push(userId);
  return out;
}

/** The reference `receiversOf`: sender first, then the active subscribers. */
const expectedReceivers = (state: RealmState, senderId: number, streamId: number) =>
  [senderId, ...activeSubscribersUncached(state, streamId).filter((id) => id !== senderId)];

/** Every user's rows as `[id, flags]` pairs. */
function rowsOf(state: RealmState): Map<number, Array<[number, number]>> {
  const out = new Map<number, Array<[number, number]>>();
  for (const [userId, um] of state.messages.users) {
    const rows: Array<[number, number]> = [];
    for (let i = 0; i < um.length; i++) rows.push([um.ids.get(i), um.flags.get(i)]);
    if (rows.length > 0) out.set(userId, rows);
  }
  return out;
}

const send = (senderId: number, to: unknown, over: Partial<SendMessage> = {}): SendMessage => ({
  type: 'send_message', senderId, messageType: 'stream', to, topic: 'model', content: 'plain text', client: 'test', ...over,
});
const unsubscribe = (actorId: number, name: string, userId: number): UpdateSubscriptions => ({
  type: 'update_subscriptions', actorId, add: [], remove: [name], principals: [userId], inviteOnly: false,
  isWebPublic: false, isDefault: false, authorizationErrorsFatal: true,
});

/** Decides and folds a command; false (state untouched) when it was rejected. */
function attempt(state: RealmState, cmd: Command, ctx: CommandContext): boolean {
  try {
    run(state, cmd, ctx);
    return true;
  } catch {
    return false;
  }
}

t.test('random model: cached receivers equal the uncached walk after every step', async (t) => {
  const SEED = 17;
  const STEPS = 3000;
  const random = prng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  let { state, ctx, ids } = smallRealm();
  const owner = ids.owner;
  // A default channel: every new user and bot is subscribed on creation.
  const wide = run(state, { type: 'create_channel', actorId: null, name: 'wide', description: '', inviteOnly: false, isWebPublic: false, isDefault: true, subscriberIds: [] }, ctx).streamId;
  let channelCount = 0;
  let userCount = 0;
  /** Expected rows per user, maintained by the reference computation. */
  const expected = rowsOf(state);
  const counts: Record<string, number> = {};
  let mismatches = 0;

  const checkCacheCoherent = (step: number) => {
    for (const streamId of state.streams.keys()) {
      const cached = receiverIds(state, streamId);
      const fresh = activeSubscribersUncached(state, streamId);
      if (JSON.stringify(cached) !== JSON.stringify(fresh)) {
        mismatches++;
        if (mismatches < 5) t.same(cached, fresh, `step ${step}: receivers of channel ${streamId}`);
      }
    }
  };

  for (let step = 0; step < STEPS; step++) {
    const users = [...state.users.values()].filter((u) => u.systemBot === undefined);
    const active = users.filter((u) => u.isActive).map((u) => u.id);
    const inactive = users.filter((u) => !u.isActive).map((u) => u.id);
    const streams = [...state.streams.values()].filter((s) => !s.isArchived);
    const stream = pick(streams);
    const roll = random();
    let kind: string;
    if (roll < 0.12) {
      kind = 'subscribe';
      attempt(state, { type: 'subscribe', streamId: stream.id, userIds: [pick(active)] }, ctx);
    } else if (roll < 0.22) {
      kind = 'unsubscribe';
      const subs = [...(state.subscriptions.get(stream.id)?.keys() ?? [])];
      if (subs.length > 0) attempt(state, unsubscribe(owner, stream.name, pick(subs)), ctx);
    } else if (roll < 0.28) {
      kind = 'deactivate';
      attempt(state, { type: 'deactivate_user', actorId: owner, userId: pick(active) }, ctx);
    } else if (roll < 0.34) {
      kind = 'reactivate';
      if (inactive.length > 0) attempt(state, { type: 'reactivate_user', actorId: owner, userId: pick(inactive) }, ctx);
    } else if (roll < 0.37) {
      kind = 'create_user';
      userCount++;
      attempt(state, { type: 'admin_create_user', actorId: owner, email: `model${userCount}@example.com`, fullName: `Model ${userCount}`, passwordHash: 'x' }, ctx);
    } else if (roll < 0.39) {
      kind = 'add_bot';
      userCount++;
      attempt(state, { type: 'add_bot', actorId: pick(active), fullName: `Bot ${userCount}`, shortName: `model-bot-${userCount}`, botType: 1 }, ctx);
    } else if (roll < 0.41) {
      kind = 'deactivate_bot';
      const bots = users.filter((u) => u.isBot && u.isActive && u.botOwnerId !== null);
      if (bots.length > 0) {
        const bot = pick(bots);
        attempt(state, { type: 'deactivate_bot', actorId: bot.botOwnerId!, botId: bot.id }, ctx);
      }
    } else if (roll < 0.43) {
      kind = 'create_channel';
      channelCount++;
      const subscriberIds = active.filter(() => random() < 0.5);
      attempt(state, { type: 'create_channel', actorId: null, name: `model ${channelCount}`, description: '', inviteOnly: random() < 0.3, isWebPublic: false, isDefault: false, subscriberIds }, ctx);
    } else if (roll < 0.44) {
      kind = 'snapshot';
      state = snapshotCopy(state);
    } else if (roll < 0.47) {
      // Neutral records (the cache survives them): a subscription property, a read flag.
      kind = 'neutral';
      const userId = pick(active);
      const mine = [...(state.userStreams.get(userId) ?? [])];
      if (mine.length > 0) {
        attempt(state, { type: 'set_subscription_properties', actorId: userId, changes: [{ streamId: pick(mine), property: 'is_muted', value: random() < 0.5 }] }, ctx);
      }
      const rows = expected.get(userId);
      if (rows !== undefined && rows.length > 0) {
        const row = pick(rows);
        if (attempt(state, { type: 'update_message_flags', userId, op: 'add', flag: 'read', messages: [row[0]] }, ctx)) row[1] |= Flag.read;
      }
    } else if (roll < 0.9) {
      kind = 'send_channel';
      const senderId = pick(active);
      const readBySender = random() < 0.5;
      const result = decide(state, send(senderId, stream.id, { readBySender }), ctx);
      if (result.ok) {
        const message = result.value.events.find((e) => e.payload.type === 'message')!;
        const want = expectedReceivers(state, senderId, stream.id);
        if (JSON.stringify(message.userIds) !== JSON.stringify(want)) {
          mismatches++;
          if (mismatches < 5) t.same(message.userIds, want, `step ${step}: event receivers`);
        }
        const id = (result.value.reply as { id: number }).id;
        for (const userId of want) {
          const flags = userId === senderId && readBySender ? Flag.read : 0;
          let rows = expected.get(userId);
          if (rows === undefined) expected.set(userId, (rows = []));
          rows.push([id, flags]);
        }
        for (const record of result.value.records) evolve(state, record);
      }
    } else {
      kind = 'send_direct';
      const senderId = pick(active);
      const to = [pick(active)];
      const result = decide(state, send(senderId, to, { messageType: 'private', topic: undefined, readBySender: true }), ctx);
      if (result.ok) {
        const id = (result.value.reply as { id: number }).id;
        for (const userId of new Set([senderId, ...to])) {
          let rows = expected.get(userId);
          if (rows === undefined) expected.set(userId, (rows = []));
          rows.push([id, userId === senderId ? Flag.read : 0]);
        }
        for (const record of result.value.records) evolve(state, record);
      }
    }
    counts[kind] = (counts[kind] ?? 0) + 1;
    checkCacheCoherent(step);
    if (step % 100 === 99 || kind === 'snapshot') {
      const actual = rowsOf(state);
      if (JSON.stringify([...actual].sort()) !== JSON.stringify([...expected].sort())) {
        mismatches++;
        if (mismatches < 5) t.same([...actual].sort(), [...expected].sort(), `step ${step}: UserMessage rows`);
      }
    }
  }
  t.equal(mismatches, 0, `no mismatch in ${STEPS} steps (seed ${SEED})`);
  t.same([...rowsOf(state)].sort(), [...expected].sort(), 'final UserMessage rows equal the reference');
  // The model must have exercised what it claims to: sends reaching the default channel's users,
  // deactivations, restores.
  t.ok(state.subscriptions.get(wide)!.size > 3, 'the default channel gained subscribers');
  t.ok(state.messages.users.size > 10, 'many users hold rows');
  for (const kind of ['subscribe', 'unsubscribe', 'deactivate', 'reactivate', 'create_user', 'add_bot', 'deactivate_bot', 'create_channel', 'snapshot', 'neutral', 'send_channel', 'send_direct']) {
    t.ok((counts[kind] ?? 0) > 0, `${kind} ran (${counts[kind] ?? 0} times)`);
  }
});

/** Sends to `general` and returns the new message id (throws when rejected). */
function sendGeneral(state: RealmState, ctx: CommandContext, senderId: number): number {
  return run(state, send(senderId, 'general'), ctx).id;
}
const has = (state: RealmState, userId: number, messageId: number) => state.messages.userFlags(userId, messageId) !== undefined;

t.test('a send right after a subscribe reaches the new subscriber', async (t) => {
  const { state, ctx, ids } = smallRealm();
  sendGeneral(state, ctx, ids.member); // fills the cache for general
  run(state, { type: 'subscribe', streamId: [...state.streams.values()].find((s) => s.name === 'general')!.id, userIds: [ids.guest] }, ctx);
  const id = sendGeneral(state, ctx, ids.member);
  t.ok(has(state, ids.guest, id), 'new subscriber has the row');
});

t.test('a send right after an unsubscribe skips the former subscriber', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const first = sendGeneral(state, ctx, ids.member);
  t.ok(has(state, ids.other, first));
  run(state, unsubscribe(ids.owner, 'general', ids.other), ctx);
  const id = sendGeneral(state, ctx, ids.member);
  t.notOk(has(state, ids.other, id), 'unsubscribed user has no row');
  t.ok(has(state, ids.other, first), 'the earlier row stays (history)');
});

t.test('deactivation and reactivation', async (t) => {
  const { state, ctx, ids } = smallRealm();
  sendGeneral(state, ctx, ids.member);
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.other }, ctx);
  const whileInactive = sendGeneral(state, ctx, ids.member);
  t.notOk(has(state, ids.other, whileInactive), 'deactivated subscriber gets no row');
  run(state, { type: 'reactivate_user', actorId: ids.owner, userId: ids.other }, ctx);
  const after = sendGeneral(state, ctx, ids.member);
  t.ok(has(state, ids.other, after), 'reactivated subscriber gets rows again');
});

t.test('a new user subscribed to a default channel on creation receives the next send', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  run(state, { type: 'add_default_stream', actorId: ids.owner, streamId: streams.general }, ctx);
  sendGeneral(state, ctx, ids.member);
  const { userId } = run(state, { type: 'admin_create_user', actorId: ids.owner, email: 'new@example.com', fullName: 'New User', passwordHash: 'x' }, ctx);
  t.ok(state.subscriptions.get(streams.general)!.has(userId), 'subscribed on creation');
  t.ok(has(state, userId, sendGeneral(state, ctx, ids.member)));
});

t.test('after a snapshot round trip the restored state delivers from its own cache', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  sendGeneral(state, ctx, ids.member);
  const restored = snapshotCopy(state);
  t.equal(restored.channelReceivers.size, 0, 'the cache is not snapshotted');
  t.not(restored.channelReceivers, state.channelReceivers);
  run(restored, { type: 'subscribe', streamId: streams.general, userIds: [ids.guest] }, ctx);
  const id = sendGeneral(restored, ctx, ids.member);
  t.ok(has(restored, ids.guest, id), 'restored state: new subscriber reached');
  t.ok(restored.messages.users.get(ids.member) !== state.messages.users.get(ids.member), 'rows are the restored index\'s');
  t.equal(restored.messages.userFlags(ids.member, id), 0, 'sender row in the restored index');
  t.equal(state.channelReceivers.size, 1, 'the original state keeps its own entry');
});

t.test('the sender always gets a row, subscribed or not; inactive users never', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const id = run(state, send(ids.member, 'empty', { readBySender: true }), ctx).id;
  t.equal(state.messages.userFlags(ids.member, id), Flag.read, 'unsubscribed sender');
  t.same([...state.messages.users].filter(([, um]) => um.indexOf(id) >= 0).map(([userId]) => userId), [ids.member], 'nobody else');
  t.same(receiverIds(state, streams.empty), []);
  t.same(receiverIds(state, streams.general), [ids.owner, ids.admin, ids.member, ids.other]);
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.admin }, ctx);
  t.same(receiverIds(state, streams.general), [ids.owner, ids.member, ids.other]);
});

t.test('deciding a send creates no rows (a rejected or undecided command leaves the state as it was)', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  run(state, { type: 'subscribe', streamId: streams.empty, userIds: [ids.guest] }, ctx);
  const before = fingerprint(state);
  t.equal(state.messages.users.get(ids.guest), undefined, 'guest has no rows yet');
  const result = decide(state, send(ids.member, 'empty'), ctx);
  t.ok(result.ok);
  t.equal(fingerprint(state), before, 'decide changed nothing observable');
  t.equal(state.messages.users.get(ids.guest), undefined, 'no empty UserMessages created by decide');
});

t.test('the cache survives the frequent neutral records and is dropped by the others', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const id = sendGeneral(state, ctx, ids.member); // also a user_topic_set (automatic follow)
  const cached = receiverIds(state, streams.general);
  run(state, { type: 'update_message_flags', userId: ids.other, op: 'add', flag: 'read', messages: [id] }, ctx);
  run(state, { type: 'set_subscription_properties', actorId: ids.other, changes: [{ streamId: streams.general, property: 'color', value: '#000000' }] }, ctx);
  sendGeneral(state, ctx, ids.other);
  t.equal(receiverIds(state, streams.general), cached, 'same entry after sends, flags and subscription properties');
  run(state, { type: 'subscribe', streamId: streams.empty, userIds: [ids.guest] }, ctx);
  t.equal(state.channelReceivers.size, 0, 'any subscription change drops every entry');
  t.not(receiverIds(state, streams.general), cached, 'rebuilt on the next use');
  t.same(receiverIds(state, streams.general), cached, 'with the same receivers');
});
