/**
 * A user's password changed (Zulip's zerver/actions/user_settings.py `do_change_password`, from
 * `PATCH /settings` with `old_password`/`new_password`). The record carries the new argon2 hash
 * (PHC string), never the password; the snapshot stores `User` objects whole, so it needs no
 * snapshot code of its own.
 */
import type { RealmState } from './realm-state.js';

/** A user's password hash was replaced. */
export interface UserPasswordChanged {
  type: 'user_password_changed';
  v: 1;
  userId: number;
  /** argon2id PHC string (`$argon2id$v=19$...`). */
  passwordHash: string;
}

/** Applies `user_password_changed`. */
export function userPasswordChanged(state: RealmState, r: UserPasswordChanged): void {
  const user = state.users.get(r.userId);
  if (user === undefined) throw new Error(`user_password_changed: unknown user ${r.userId}`);
  user.passwordHash = r.passwordHash;
}
