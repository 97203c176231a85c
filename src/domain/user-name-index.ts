/**
 * Users by lower-cased full name, for `@**Full Name**` mentions (Zulip matches names with
 * `full_name__iexact`). Built lazily on the first lookup and kept for the realm's user map:
 * user creation is noticed by the map's size (users are never removed), renames must call
 * {@link invalidateUserNameIndex} (done by `evolveUserAdmin`). Read-only for callers.
 */
import type { RealmState, User } from './realm-state.js';

interface NameIndex {
  /** `state.users.size` when built. */
  size: number;
  byLowerName: Map<string, User[]>;
}

const indexes = new WeakMap<RealmState['users'], NameIndex>();
const NONE: readonly User[] = [];

/** Users (deactivated ones too) whose full name equals `name` case-insensitively, by ascending id. */
export function usersByLowerName(state: RealmState, name: string): readonly User[] {
  let index = indexes.get(state.users);
  if (index === undefined || index.size !== state.users.size) {
    const byLowerName = new Map<string, User[]>();
    for (const user of state.users.values()) {
      const key = user.fullName.toLowerCase();
      const list = byLowerName.get(key);
      if (list === undefined) byLowerName.set(key, [user]);
      else list.push(user);
    }
    for (const list of byLowerName.values()) if (list.length > 1) list.sort((a, b) => a.id - b.id);
    index = { size: state.users.size, byLowerName };
    indexes.set(state.users, index);
  }
  return index.byLowerName.get(name.toLowerCase()) ?? NONE;
}

/** Forget the index (after a user's full name changed); the next lookup rebuilds it. */
export function invalidateUserNameIndex(state: RealmState): void {
  indexes.delete(state.users);
}
