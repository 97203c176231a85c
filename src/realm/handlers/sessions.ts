/**
 * Web-session commands (Django's session login/logout as Zulip uses them: zerver/views/auth.py
 * `login_page` → `do_login`, `logout_view`; zerver/views/user_settings.py `json_change_settings`
 * for the password). The API layer verifies passwords (argon2, off the actor) and makes session
 * ids; these handlers see only the id's SHA-256 and a finished password hash, so they stay pure.
 *
 * - `create_session`: the user must exist, be active and not a bot, and the organization must not
 *   be deactivated (the same checks as the login form, re-checked against the current state).
 *   Expired and surplus sessions of the same user are pruned in the same step.
 * - `end_session`: logout; ending an unknown session is a success (the cookie is gone either way).
 * - `change_password`: the new hash, and every other session of the user ended (the current one,
 *   `keepIdHash`, survives, as `update_session_auth_hash` keeps it). No client event: Zulip sends
 *   none for a password change.
 */
import { fail, ok, Errors } from '../../errors.js';
import type { RealmRecord } from '../../domain/records.js';
import { endUserSessions, sessionsToPrune } from '../../domain/sessions.js';
import type { Handler } from '../decision.js';

/** Log a user in: store a session known by `idHash` until `expiresAt`. */
export interface CreateSession {
  type: 'create_session';
  userId: number;
  /** SHA-256 (hex) of the new session id. */
  idHash: string;
  /** Lifetime in seconds from now. */
  lifetimeSeconds: number;
}

/** Log out: delete the session known by `idHash`. */
export interface EndSession {
  type: 'end_session';
  idHash: string;
}

/** Replace `actorId`'s password hash and end their other sessions. */
export interface ChangePassword {
  type: 'change_password';
  actorId: number;
  /** argon2id PHC string of the new password (checked for strength by the caller). */
  passwordHash: string;
  /** The session making the change (kept), or null from the API-key path (all sessions end). */
  keepIdHash: string | null;
}

export type SessionCommand = CreateSession | EndSession | ChangePassword;

/** Replies of the session commands (merged into `CommandReplies`). */
export interface SessionReplies {
  create_session: { expiresAt: number };
  end_session: { ended: boolean };
  change_password: { sessionsEnded: number };
}

export const createSession: Handler<CreateSession, { expiresAt: number }> = (state, cmd, ctx) => {
  if (state.settings.deactivated) return fail(Errors.realmDeactivated());
  const user = state.users.get(cmd.userId);
  if (user === undefined || user.isBot) return fail(Errors.authenticationFailed());
  if (!user.isActive) return fail(Errors.userDeactivated());
  if (state.sessions?.has(cmd.idHash)) return fail(Errors.badRequest('Session already exists'));
  const now = ctx.now();
  const records: RealmRecord[] = [];
  const pruned = sessionsToPrune(state, user.id, now);
  if (pruned.length > 0) records.push({ type: 'sessions_ended', v: 1, idHashes: pruned });
  const expiresAt = Math.floor(now) + cmd.lifetimeSeconds;
  records.push({ type: 'session_created', v: 1, session: { idHash: cmd.idHash, userId: user.id, createdAt: Math.floor(now), expiresAt } });
  return ok({ records, events: [], reply: { expiresAt } });
};

export const endSession: Handler<EndSession, { ended: boolean }> = (state, cmd) => {
  const known = state.sessions?.has(cmd.idHash) === true;
  return ok({
    records: known ? [{ type: 'sessions_ended', v: 1, idHashes: [cmd.idHash] }] : [],
    events: [],
    reply: { ended: known },
  });
};

export const changePassword: Handler<ChangePassword, { sessionsEnded: number }> = (state, cmd) => {
  const user = state.users.get(cmd.actorId);
  if (user === undefined || !user.isActive) return fail(Errors.insufficientPermission());
  if (user.isBot) return fail(Errors.noBots());
  const ended = endUserSessions(state, user.id, cmd.keepIdHash);
  return ok({
    records: [{ type: 'user_password_changed', v: 1, userId: user.id, passwordHash: cmd.passwordHash }, ...ended],
    events: [],
    reply: { sessionsEnded: ended[0]?.idHashes.length ?? 0 },
  });
};
