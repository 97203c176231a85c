/**
 * Web-session commands (`realm/handlers/sessions.ts`; Django's login/logout and
 * `update_session_auth_hash` as Zulip uses them): who may get a session, logout, password change
 * ending the other sessions, deactivation ending all, pruning, and the snapshot round trip.
 */
import t from 'tap';
import { decide, fingerprint, rejects, run, smallRealm } from '../../support/realm-fixture.js';
import { findSession, MAX_SESSIONS_PER_USER, sessionsOfUser } from '../../../src/domain/sessions.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { pack, unpack } from 'msgpackr';

const DAY = 24 * 3600;
const hash = (n: number) => n.toString(16).padStart(64, '0');
const login = (userId: number, n: number, lifetimeSeconds = 14 * DAY) => ({ type: 'create_session' as const, userId, idHash: hash(n), lifetimeSeconds });

t.test('create_session: active humans only; the session is found by its hash until it expires', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const reply = run(state, login(ids.member, 1), ctx);
  const session = state.sessions?.get(hash(1));
  t.equal(session?.userId, ids.member);
  t.equal(reply.expiresAt, session!.createdAt + 14 * DAY, 'expiry = creation + lifetime');
  t.equal(findSession(state, hash(1), session!.createdAt + 10)?.userId, ids.member);
  t.equal(findSession(state, hash(1), reply.expiresAt), undefined, 'expired at expiresAt');
  t.equal(findSession(state, hash(2), session!.createdAt), undefined, 'unknown hash');

  rejects(t, state, login(ids.bot, 3), ctx, 'Your username or password is incorrect');
  rejects(t, state, login(9999, 3), ctx, 'Your username or password is incorrect');
  rejects(t, state, login(ids.member, 1), ctx, 'Session already exists');
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.other }, ctx);
  rejects(t, state, login(ids.other, 4), ctx, 'Account is deactivated');
});

t.test('end_session: logout deletes one session; an unknown one is a no-op success', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, login(ids.member, 1), ctx);
  run(state, login(ids.member, 2), ctx);
  t.same(run(state, { type: 'end_session', idHash: hash(1) }, ctx), { ended: true });
  t.same(sessionsOfUser(state, ids.member).map((s) => s.idHash), [hash(2)], 'the other session stays');
  const before = fingerprint(state);
  const again = decide(state, { type: 'end_session', idHash: hash(1) }, ctx);
  t.ok(again.ok && again.value.records.length === 0, 'no record for an unknown session');
  t.equal(fingerprint(state), before);
});

t.test('change_password: new hash, the other sessions of the user end, the current one and other users\' stay', async (t) => {
  const { state, ctx, ids } = smallRealm();
  for (const n of [1, 2, 3]) run(state, login(ids.member, n), ctx);
  run(state, login(ids.other, 4), ctx);
  const reply = run(state, { type: 'change_password', actorId: ids.member, passwordHash: '$argon2id$new', keepIdHash: hash(2) }, ctx);
  t.equal(reply.sessionsEnded, 2);
  t.equal(state.users.get(ids.member)!.passwordHash, '$argon2id$new');
  t.same(sessionsOfUser(state, ids.member).map((s) => s.idHash), [hash(2)]);
  t.same(sessionsOfUser(state, ids.other).map((s) => s.idHash), [hash(4)]);
  // From /api/v1 (no session): every web session ends.
  run(state, { type: 'change_password', actorId: ids.member, passwordHash: '$argon2id$newer', keepIdHash: null }, ctx);
  t.same(sessionsOfUser(state, ids.member), []);
  rejects(t, state, { type: 'change_password', actorId: ids.bot, passwordHash: 'x', keepIdHash: null }, ctx, 'This endpoint does not accept bot requests.');
  rejects(t, state, { type: 'change_password', actorId: 9999, passwordHash: 'x', keepIdHash: null }, ctx, 'Insufficient permission');
});

t.test('deactivating a user ends all their sessions (Zulip: delete_user_sessions); reactivation does not revive them', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, login(ids.member, 1), ctx);
  run(state, login(ids.member, 2), ctx);
  run(state, login(ids.other, 3), ctx);
  const r = decide(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.member }, ctx);
  t.ok(r.ok && r.value.records.some((x) => x.type === 'sessions_ended'), 'a sessions_ended record');
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: ids.member }, ctx);
  t.same(sessionsOfUser(state, ids.member), []);
  run(state, { type: 'reactivate_user', actorId: ids.owner, userId: ids.member }, ctx);
  t.equal(findSession(state, hash(1), ctx.now()), undefined, 'an old session does not come back');
  t.equal(sessionsOfUser(state, ids.other).length, 1, 'other users keep theirs');
});

t.test('logging in again prunes expired sessions and keeps at most MAX_SESSIONS_PER_USER', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, login(ids.member, 1, 1), ctx); // expires after 1 s (the fixture clock ticks 1 s per call)
  for (let n = 2; n < 2 + MAX_SESSIONS_PER_USER + 5; n++) run(state, login(ids.member, n), ctx);
  const mine = sessionsOfUser(state, ids.member);
  t.equal(mine.length, MAX_SESSIONS_PER_USER, 'bounded');
  t.notOk(mine.some((s) => s.idHash === hash(1)), 'the expired one went first');
  t.equal(mine.at(-1)!.idHash, hash(1 + MAX_SESSIONS_PER_USER + 5), 'the newest is kept');
});

t.test('sessions and password hashes survive a snapshot round trip; the raw id is never stored', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, login(ids.member, 7), ctx);
  run(state, { type: 'change_password', actorId: ids.admin, passwordHash: '$argon2id$admin', keepIdHash: null }, ctx);
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(state.id, unpack(pack(core)) as object, columns);
  t.same([...restored.sessions!.values()], [...state.sessions!.values()]);
  t.equal(restored.users.get(ids.admin)!.passwordHash, '$argon2id$admin');
  t.equal(fingerprint(restored), fingerprint(state));
});
