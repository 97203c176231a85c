/**
 * User administration records (https://zulip.com/api/update-user,
 * https://zulip.com/api/create-user, https://zulip.com/api/get-users): one versioned record,
 * `user_updated`, carries every change an administrator (or the user, through `PATCH /settings`)
 * makes to an account's own attributes — name, role, delivery email, active flag, timezone, email
 * visibility. Absent keys are unchanged. `evolveUserAdmin` is its only mutator (called by
 * `evolve`), deterministic for replay; the snapshot stores `User` objects whole, so it needs no
 * extra snapshot code.
 */
import type { RealmState, RoleCode } from './realm-state.js';
import { invalidateUserNameIndex } from './user-name-index.js';

/** A user's account attributes changed. */
export interface UserUpdated {
  type: 'user_updated';
  v: 1;
  userId: number;
  fullName?: string;
  role?: RoleCode;
  /** New delivery (login) email, already lower-cased and checked unique. */
  email?: string;
  isActive?: boolean;
  timezone?: string;
  emailAddressVisibility?: number;
  /** The complete new map of personal-setting overrides (`User.settings`). */
  settings?: Record<string, string | number | boolean>;
}

export type UserAdminRecord = UserUpdated;

/** Applies a `user_updated` record, keeping the email index in step. */
export function evolveUserAdmin(state: RealmState, r: UserAdminRecord): void {
  const user = state.users.get(r.userId);
  if (user === undefined) throw new Error(`user_updated: unknown user ${r.userId}`);
  if (r.fullName !== undefined) {
    user.fullName = r.fullName;
    invalidateUserNameIndex(state);
  }
  if (r.role !== undefined) user.role = r.role;
  if (r.email !== undefined) {
    state.usersByEmail.delete(user.email.toLowerCase());
    user.email = r.email;
    state.usersByEmail.set(r.email.toLowerCase(), user.id);
  }
  if (r.isActive !== undefined) user.isActive = r.isActive;
  if (r.timezone !== undefined) user.timezone = r.timezone;
  if (r.emailAddressVisibility !== undefined) user.emailAddressVisibility = r.emailAddressVisibility;
  if (r.settings !== undefined) {
    if (Object.keys(r.settings).length === 0) delete user.settings;
    else user.settings = { ...r.settings };
  }
}
