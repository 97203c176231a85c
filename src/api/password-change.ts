/**
 * Changing one's own password through `PATCH /settings` (Zulip's zerver/views/user_settings.py
 * `json_change_settings`, the `new_password` branch), checked in Zulip's order:
 * 1. `old_password` verified like a login (`auth.ts` `authenticateByPassword`, so failures count
 *    toward the per-username login limit): wrong or missing → 400 "Wrong password!"; limited → 400
 *    "You're making too many attempts! Try again in N seconds.";
 * 2. `new_password` against `check_password_strength` → 400 "New password is too weak!";
 * 3. the new argon2 hash recorded and every other session of the user ended; the session making
 *    the change survives (Django's `update_session_auth_hash`). From `/api/v1` (no session) every
 *    web session ends.
 */
import { Errors, ZulipError } from '../errors.js';
import { hashPassword } from '../auth/passwords.js';
import { isPasswordStrongEnough } from '../auth/password-strength.js';
import type { User } from '../domain/realm-state.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import { authenticateByPassword } from './auth.js';

/** What a password change needs from the request. */
export interface PasswordChange {
  readonly realm: RealmHandle;
  readonly user: User;
  /** `old_password`; undefined when not sent. */
  readonly oldPassword: string | undefined;
  readonly newPassword: string;
  /** The session making the change (kept alive), or null on `/api/v1`. */
  readonly sessionIdHash: string | null;
  readonly remoteAddress: string;
}

/** Runs the change; resolves with null on success, else the error (nothing changed). */
export async function changeOwnPassword(change: PasswordChange): Promise<ZulipError | null> {
  const { realm, user } = change;
  if (user.isBot) return Errors.noBots();
  const verified = await authenticateByPassword(realm, user.email, change.oldPassword ?? '', change.remoteAddress);
  if (verified instanceof ZulipError) {
    if (verified.code === 'RATE_LIMIT_HIT') {
      const seconds = Math.ceil(Number(verified.data['retry-after']));
      return Errors.badRequest(`You're making too many attempts! Try again in ${seconds} seconds.`);
    }
    return Errors.wrongOldPassword();
  }
  if (verified.id !== user.id) return Errors.wrongOldPassword();
  if (!isPasswordStrongEnough(change.newPassword)) return Errors.newPasswordTooWeak();
  const result = await realm.execute({
    type: 'change_password',
    actorId: user.id,
    passwordHash: await hashPassword(change.newPassword),
    keepIdHash: change.sessionIdHash,
  });
  return result.ok ? null : result.error;
}
