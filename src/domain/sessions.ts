/**
 * Web sessions of a realm (Django's `django_session` table as Zulip uses it: one row per logged-in
 * browser; zerver/lib/sessions.py `delete_user_sessions`, `delete_session`). A session is known by
 * the SHA-256 of its id only (`auth/sessions.ts` makes ids and hashes; the raw id never reaches a
 * record, a snapshot or the state).
 *
 * Records:
 * - `session_created`: a user logged in (`POST /accounts/login/`, or a sign-up that ends logged in);
 * - `sessions_ended`: sessions deleted, listed by hash: logout (one), a password change (all of
 *   the user's but the current one, as Django's `update_session_auth_hash` keeps it), a
 *   deactivation (all of the user's, Zulip's `do_deactivate_user` → `delete_user_sessions`), and
 *   expired or surplus sessions pruned when the same user logs in again.
 *
 * State shape: `RealmState.sessions` = hash → session (optional: states built by hand and snapshots
 * written before sessions lack it: no sessions). Times are UNIX seconds.
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** One stored web session. */
export interface WebSession {
  /** SHA-256 of the session id, lower-case hex. */
  idHash: string;
  userId: number;
  /** UNIX seconds. */
  createdAt: number;
  /** UNIX seconds; the session is refused from then on. */
  expiresAt: number;
}

/** A user logged in from a browser. */
export interface SessionCreated {
  type: 'session_created';
  v: 1;
  session: WebSession;
}

/** Sessions were deleted (logout, password change, deactivation, pruning); unknown hashes are ignored. */
export interface SessionsEnded {
  type: 'sessions_ended';
  v: 1;
  idHashes: string[];
}

export type SessionRecord = SessionCreated | SessionsEnded;

/** Most sessions one user keeps; logging in once more ends the oldest (bounded state). */
export const MAX_SESSIONS_PER_USER = 50;

/**
 * The live session with this hash, or undefined when it does not exist, has expired at
 * `nowSeconds`, or belongs to a user who is gone or deactivated.
 */
export function findSession(state: RealmState, idHash: string, nowSeconds: number): WebSession | undefined {
  const session = state.sessions?.get(idHash);
  if (session === undefined || session.expiresAt <= nowSeconds) return undefined;
  return state.users.get(session.userId)?.isActive === true ? session : undefined;
}

/** A user's sessions, oldest first (insertion order of the map). */
export function sessionsOfUser(state: RealmState, userId: number): WebSession[] {
  const out: WebSession[] = [];
  if (state.sessions === undefined) return out;
  for (const session of state.sessions.values()) if (session.userId === userId) out.push(session);
  return out;
}

/**
 * The record ending every session of `userId` except `keepIdHash` (null: all), or none when there
 * is nothing to end. Used on password change and deactivation.
 */
export function endUserSessions(state: RealmState, userId: number, keepIdHash: string | null = null): SessionsEnded[] {
  const idHashes = sessionsOfUser(state, userId)
    .map((s) => s.idHash)
    .filter((hash) => hash !== keepIdHash);
  return idHashes.length === 0 ? [] : [{ type: 'sessions_ended', v: 1, idHashes }];
}

/**
 * The hashes to prune when `userId` opens one more session at `nowSeconds`: their expired sessions,
 * and the oldest live ones beyond `MAX_SESSIONS_PER_USER - 1`.
 */
export function sessionsToPrune(state: RealmState, userId: number, nowSeconds: number): string[] {
  const mine = sessionsOfUser(state, userId);
  const expired = mine.filter((s) => s.expiresAt <= nowSeconds);
  const live = mine.filter((s) => s.expiresAt > nowSeconds);
  const surplus = Math.max(0, live.length - (MAX_SESSIONS_PER_USER - 1));
  return [...expired, ...live.slice(0, surplus)].map((s) => s.idHash);
}

/** `evolve` of the session records. */
export function evolveSessions(state: RealmState, r: SessionRecord): void {
  switch (r.type) {
    case 'session_created':
      (state.sessions ??= new Map()).set(r.session.idHash, { ...r.session });
      return;
    case 'sessions_ended':
      if (state.sessions === undefined) return;
      for (const hash of r.idHashes) state.sessions.delete(hash);
      return;
    default:
      assertNever(r, 'record type');
  }
}

/** Snapshot form: the sessions in creation order (absent in snapshots written before sessions). */
export type SessionsCore = WebSession[];

export function sessionsToCore(state: RealmState): SessionsCore | undefined {
  return state.sessions === undefined ? undefined : [...state.sessions.values()];
}

/** Restores `state.sessions` (`undefined`/`null` = an older snapshot or no session ever: none). */
export function sessionsFromCore(state: RealmState, core: SessionsCore | null | undefined): void {
  if (core === undefined || core === null) {
    delete state.sessions;
    return;
  }
  state.sessions = new Map(core.map((s) => [s.idHash, { ...s }]));
}
