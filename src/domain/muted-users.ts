/**
 * Muted users (https://zulip.com/api/mute-user; Zulip's `zerver/models/muted_users.py`,
 * `zerver/lib/muted_users.py`): per user, the users they muted and when. A muted sender's new
 * messages reach the muter already read (Zulip's `do_send_messages` marks them read for the
 * users muting the sender); muting marks the sender's existing messages read
 * (`do_mark_muted_user_messages_as_read`).
 *
 * State shape: `RealmState.mutedUsers` = muter id → (muted user id → UNIX seconds, integer, of
 * the mute), in mute order; a user who muted nobody has no entry. Optional: states built by hand
 * and snapshots written before muted users lack it (nobody muted).
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** A user muted another user (`POST /users/me/muted_users/{id}`). */
export interface UserMuted {
  type: 'user_muted';
  v: 1;
  userId: number;
  mutedUserId: number;
  /** UNIX seconds (integer): Zulip's `date_muted`. */
  timestamp: number;
}

/** A user unmuted another user (`DELETE /users/me/muted_users/{id}`). */
export interface UserUnmuted {
  type: 'user_unmuted';
  v: 1;
  userId: number;
  mutedUserId: number;
}

export type MutedUserRecord = UserMuted | UserUnmuted;

/** The users `userId` muted (id → UNIX seconds), empty when none (do not mutate). */
export function mutesOf(state: RealmState, userId: number): ReadonlyMap<number, number> {
  return state.mutedUsers?.get(userId) ?? EMPTY;
}
const EMPTY: ReadonlyMap<number, number> = new Map();

/** Zulip's `get_mute_object` as a test: did `userId` mute `otherId`? */
export function isMuted(state: RealmState, userId: number, otherId: number): boolean {
  return state.mutedUsers?.get(userId)?.has(otherId) ?? false;
}

/** Zulip's `get_muting_users`: every user who muted `senderId` (one pass over the muters). */
export function usersMuting(state: RealmState, senderId: number): Set<number> {
  const out = new Set<number>();
  for (const [userId, muted] of state.mutedUsers ?? []) if (muted.has(senderId)) out.add(userId);
  return out;
}

/** Zulip's `get_user_mutes`: `[{id, timestamp}]` in mute order (register `muted_users`, the event). */
export function mutedUsersWire(state: RealmState, userId: number): Array<{ id: number; timestamp: number }> {
  return [...mutesOf(state, userId)].map(([id, timestamp]) => ({ id, timestamp }));
}

/** `evolve` of the muted-user records. */
export function evolveMutedUsers(state: RealmState, r: MutedUserRecord): void {
  const all = (state.mutedUsers ??= new Map());
  switch (r.type) {
    case 'user_muted': {
      const mine = all.get(r.userId) ?? new Map<number, number>();
      mine.set(r.mutedUserId, r.timestamp);
      all.set(r.userId, mine);
      return;
    }
    case 'user_unmuted': {
      const mine = all.get(r.userId);
      mine?.delete(r.mutedUserId);
      if (mine?.size === 0) all.delete(r.userId);
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** Snapshot form: `[muter, [[muted, timestamp], …]]`. */
export type MutedUsersCore = Array<[userId: number, mutes: Array<[mutedUserId: number, timestamp: number]>]>;

export function mutedUsersToCore(state: RealmState): MutedUsersCore {
  return [...(state.mutedUsers ?? [])].map(([userId, mutes]) => [userId, [...mutes]]);
}

/** Restores `state.mutedUsers` (`undefined` = a snapshot written before muted users: none). */
export function mutedUsersFromCore(state: RealmState, core: MutedUsersCore | undefined): void {
  state.mutedUsers = new Map((core ?? []).map(([userId, mutes]) => [userId, new Map(mutes)]));
}
