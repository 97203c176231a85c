/**
 * Presence rules at handler/store level with a pinned clock (https://zulip.com/api/get-presence): the update
 * rules (55 s minimum frequency, connected ≥ active), when a `presence` event is sent (creation,
 * coming back online — not every ping), legacy/slim formats, FL 263 `last_update_id`, offline in
 * `GET /users/{id}/presence`, and the snapshot round trip (old snapshots without presence load).
 */
import t from 'tap';
import { decide, run, smallRealm } from '../support/realm-fixture.js';
import { systemGroupId } from '../../src/domain/group-permissions.js';
import { PresenceStore } from '../../src/domain/presence.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { BACK_ONLINE_AFTER_SECONDS, presencesWire } from '../../src/realm/handlers/presence.js';
import { userPresenceWire } from '../../src/api/presence.js';
import type { CommandContext } from '../../src/realm/decision.js';
import type { UpdatePresence } from '../../src/realm/commands.js';

const T0 = 1_800_000_000;
const clock = (start: number) => {
  const c: { t: number; ctx: CommandContext } = { t: start, ctx: { now: () => c.t, randomToken: () => 'x' } as CommandContext };
  return c;
};
const cmd = (userId: number, status: 'active' | 'idle', over: Partial<UpdatePresence> = {}): UpdatePresence => ({
  type: 'update_presence', userId, status, pingOnly: false, slim: false, ...over,
});

t.test('store update rules', async (t) => {
  const s = new PresenceStore();
  t.equal(s.lastUpdateId, -1);
  let u = s.update(1, 'idle', T0 + 0.7);
  t.ok(u.created);
  t.same(s.get(1), { lastActiveTime: null, lastConnectedTime: T0, lastUpdateId: 0 }, 'first idle report: connected only');
  u = s.update(1, 'active', T0 + 10);
  t.ok(u.changed, 'first active report sets the active time even within 55 s');
  t.same(s.get(1), { lastActiveTime: T0 + 10, lastConnectedTime: T0 + 10, lastUpdateId: 1 }, 'connected bumped to ≥ active');
  u = s.update(1, 'active', T0 + 60);
  t.notOk(u.changed, 'within 55 s nothing moves');
  t.equal(s.lastUpdateId, 1);
  u = s.update(1, 'idle', T0 + 70);
  t.ok(u.changed);
  t.same(s.get(1), { lastActiveTime: T0 + 10, lastConnectedTime: T0 + 70, lastUpdateId: 2 }, 'idle moves only connected');
  u = s.update(1, 'active', T0 + 80);
  t.same(s.get(1), { lastActiveTime: T0 + 80, lastConnectedTime: T0 + 80, lastUpdateId: 3 });
  t.same([...s.list(2)].map(([id]) => id), [1]);
  t.same([...s.list(3)], [], 'nothing after the latest id');
  const back = PresenceStore.fromCore(s.toCore());
  t.same(back.toCore(), s.toCore(), 'core round trip');
  t.same(PresenceStore.fromCore(undefined).toCore(), { lastUpdateId: -1, entries: [] });
});

t.test('update_presence: events only on creation and on coming back online', async (t) => {
  const { state, ids } = smallRealm();
  const c = clock(T0);
  const run = (command: UpdatePresence) => {
    const r = decide(state, command, c.ctx);
    if (!r.ok) throw r.error;
    t.same(r.value.records, [], 'never a record');
    return r.value;
  };
  let d = run(cmd(ids.member, 'active'));
  t.equal(d.events.length, 1, 'creation sends an event');
  const humans = [ids.owner, ids.admin, ids.member, ids.other, ids.guest];
  t.same(d.events[0], {
    userIds: humans,
    payload: {
      type: 'presence', user_id: ids.member, email: 'member@example.com', server_timestamp: T0,
      presence: { website: { client: 'website', status: 'active', timestamp: T0, pushable: false } },
    },
  }, 'to every active human of the realm, legacy entry');
  t.same(d.reply, {
    presences: {
      'member@example.com': {
        aggregated: { client: 'website', status: 'active', timestamp: T0 },
        website: { client: 'website', status: 'active', timestamp: T0, pushable: false },
      },
    },
    server_timestamp: T0,
    presence_last_update_id: 0,
  });
  c.t = T0 + 60;
  d = run(cmd(ids.member, 'active'));
  t.same(d.events, [], 'a regular ping sends nothing');
  t.equal((d.reply as { presence_last_update_id: number }).presence_last_update_id, 1, 'the ping moved the timestamps');
  c.t = T0 + 60 + BACK_ONLINE_AFTER_SECONDS; // exactly the threshold: not yet "back"
  run(cmd(ids.member, 'idle'));
  c.t = T0 + 60 + BACK_ONLINE_AFTER_SECONDS;
  d = run(cmd(ids.member, 'active'));
  t.same(d.events, [], 'not older than the threshold');
  c.t = T0 + 60 + BACK_ONLINE_AFTER_SECONDS * 3;
  d = run(cmd(ids.member, 'idle'));
  t.same(d.events, [], 'idle reports never announce');
  c.t += 1;
  d = run(cmd(ids.member, 'active', { pingOnly: true }));
  t.equal(d.events.length, 1, 'coming back online after the threshold announces');
  t.same(d.reply, {}, 'ping_only: no presences');

  c.t += 1;
  d = run(cmd(ids.other, 'idle', { slim: true }));
  t.equal(d.events.length, 1, 'creation by an idle report announces too');
  const reply = d.reply as { presences: Record<string, unknown>; presence_last_update_id: number };
  t.same(Object.keys(reply.presences).sort(), [String(ids.member), String(ids.other)], 'slim: keyed by user id');
  t.same(reply.presences[String(ids.other)], { active_timestamp: Math.floor(state.users.get(ids.other)!.dateJoined), idle_timestamp: c.t },
    'never active: active time reads as date joined');
  const since = reply.presence_last_update_id;
  c.t += 100;
  d = run(cmd(ids.owner, 'active', { slim: true, lastUpdateId: since }));
  t.same(Object.keys((d.reply as { presences: object }).presences), [String(ids.owner)], 'last_update_id: only later changes');

  const bot = decide(state, cmd(ids.bot, 'active'), c.ctx);
  t.same(bot.ok ? null : bot.error.message, 'This endpoint does not accept bot requests.');
  const gone = decide(state, cmd(999, 'active'), c.ctx);
  t.same(gone.ok ? null : gone.error.message, 'No such user');
});

t.test('more than 100 users: no presence events', async (t) => {
  const { state, ids } = smallRealm();
  const template = state.users.get(ids.other)!;
  for (let i = 0; i < 100; i++) state.users.set(10_000 + i, { ...template, id: 10_000 + i, email: `u${i}@example.com` });
  const d = decide(state, cmd(ids.member, 'active'), clock(T0).ctx);
  t.ok(d.ok && d.value.events.length === 0);
});

t.test('listing: bots, deactivated users and stale (14 days) rows are left out', async (t) => {
  const { state, ids } = smallRealm();
  state.presence.update(ids.member, 'active', T0);
  state.presence.update(ids.other, 'active', T0 - 15 * 86400);
  state.presence.update(ids.bot, 'active', T0);
  state.presence.update(ids.guest, 'active', T0);
  state.users.get(ids.guest)!.isActive = false;
  t.same(Object.keys(presencesWire(state, state.users.get(ids.admin)!, T0, false)), ['member@example.com']);
  state.users.get(ids.guest)!.isActive = true;
});

t.test('listing respects presence_enabled and can_access_all_users_group', async (t) => {
  const { state, ids, ctx } = smallRealm();
  state.presence.update(ids.member, 'active', T0);
  state.presence.update(ids.other, 'active', T0);
  const admin = state.users.get(ids.admin)!;
  const guest = state.users.get(ids.guest)!;
  t.same(Object.keys(presencesWire(state, admin, T0, false)).sort(), ['member@example.com', 'other@example.com']);
  // presence_enabled off (away): left out of listings and of GET /users/{id}/presence, and its reports are not recorded.
  run(state, { type: 'update_user_status', actorId: ids.other, targetId: ids.other, away: true }, ctx);
  t.same(Object.keys(presencesWire(state, admin, T0, false)), ['member@example.com']);
  t.match(userPresenceWire(state, admin, state.users.get(ids.other), 'other@example.com', T0), { message: 'No presence data for other@example.com' });
  const before = state.presence.get(ids.other);
  const ignored = decide(state, cmd(ids.other, 'active'), clock(T0 + 500).ctx);
  t.ok(ignored.ok && ignored.value.events.length === 0, 'no presence event while presence is disabled');
  t.same(state.presence.get(ids.other), before, 'nothing recorded');
  // A guest restricted by can_access_all_users_group sees only the users they can access.
  state.settings.groups.can_access_all_users_group = systemGroupId(state, 'role:members');
  t.same(Object.keys(presencesWire(state, guest, T0, false)), [], 'the guest shares no channel with member');
  t.match(userPresenceWire(state, guest, state.users.get(ids.member), String(ids.member), T0), { message: 'No such user' });
  const update = decide(state, cmd(ids.member, 'active'), clock(T0 + 10_000).ctx);
  t.ok(update.ok && update.value.events.length === 1 && !update.value.events[0]!.userIds.includes(ids.guest), 'no presence event to the restricted guest');
});

t.test('GET /users/{id}/presence body: offline past the threshold, errors', async (t) => {
  const { state, ids } = smallRealm();
  state.presence.update(ids.member, 'active', T0);
  state.presence.update(ids.member, 'idle', T0 + 100);
  const viewer = state.users.get(ids.other)!;
  t.same(userPresenceWire(state, viewer, state.users.get(ids.member), String(ids.member), T0 + 100), {
    presence: { aggregated: { status: 'idle', timestamp: T0 + 100 }, website: { status: 'idle', timestamp: T0 + 100 } },
  });
  t.same(userPresenceWire(state, viewer, state.users.get(ids.member), 'x', T0 + 100 + 140), {
    presence: { aggregated: { status: 'idle', timestamp: T0 + 100 }, website: { status: 'idle', timestamp: T0 + 100 } },
  }, 'exactly the threshold: not offline');
  t.same(userPresenceWire(state, viewer, state.users.get(ids.member), 'x', T0 + 100 + 141), {
    presence: { aggregated: { status: 'offline', timestamp: T0 + 100 }, website: { status: 'idle', timestamp: T0 + 100 } },
  }, 'past the offline threshold /register reports (140 s)');
  t.match(userPresenceWire(state, viewer, state.users.get(ids.other), 'other@example.com', T0), { message: 'No presence data for other@example.com' });
  t.match(userPresenceWire(state, viewer, state.users.get(ids.bot), 'x', T0), { message: 'Presence is not supported for bot users.' });
  t.match(userPresenceWire(state, viewer, undefined, '77', T0), { message: 'No such user' });
});

t.test('snapshot round trip; a core without presence loads empty', async (t) => {
  const { state, ids } = smallRealm();
  state.presence.update(ids.member, 'active', T0);
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(state.id, structuredClone(core), columns);
  t.same(restored.presence.toCore(), state.presence.toCore());
  const { presence: _p, ...old } = core;
  t.equal(fromSnapshot(state.id, structuredClone(old), columns).presence.lastUpdateId, -1);
});
