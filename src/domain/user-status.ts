/**
 * User status (https://zulip.com/api/update-status, https://zulip.com/api/update-status-for-user):
 * per user a status text, an emoji
 * (name, code, reaction type) and `presenceEnabled`, the user setting whose negation is the
 * deprecated `away` flag.
 *
 * `presence_enabled` lives here, with the status, as the single truth for both `away` (seed
 * §4.9: `away` = !presence_enabled) and the `presence_enabled` personal setting (`PATCH
 * /settings`, `user_settings` in `/register`).
 *
 * State shape: `RealmState.userStatus` = user id → `UserStatus`; a user with the default status
 * (no text, no emoji, presence enabled) has no entry.
 */
import type { RealmState } from './realm-state.js';
import type { UserStatusSet } from './records.js';

/** One user's stored status. */
export interface UserStatus {
  /** Stripped, ≤ 60 characters; '' = none. */
  statusText: string;
  /** '' = no emoji. */
  emojiName: string;
  emojiCode: string;
  /** `unicode_emoji` when no emoji (Zulip's default). */
  reactionType: string;
  /** The `presence_enabled` user setting; `away` = !presenceEnabled. */
  presenceEnabled: boolean;
}

/** Zulip's default status (no row). */
export const DEFAULT_USER_STATUS: Readonly<UserStatus> = {
  statusText: '',
  emojiName: '',
  emojiCode: '',
  reactionType: 'unicode_emoji',
  presenceEnabled: true,
};

/** A user's status (the default when none is stored). */
export function userStatusOf(state: RealmState, userId: number): UserStatus {
  return state.userStatus.get(userId) ?? { ...DEFAULT_USER_STATUS };
}

function isDefault(s: UserStatus): boolean {
  return s.statusText === '' && s.emojiName === '' && s.presenceEnabled;
}

/** `evolve` of `user_status_set`: only the keys present change; a status back to default is deleted. */
export function userStatusSet(state: RealmState, r: UserStatusSet): void {
  const next = userStatusOf(state, r.userId);
  if (r.away !== undefined) next.presenceEnabled = !r.away;
  if (r.statusText !== undefined) next.statusText = r.statusText;
  if (r.emojiName !== undefined) {
    next.emojiName = r.emojiName;
    next.emojiCode = r.emojiCode ?? '';
    next.reactionType = r.reactionType ?? 'unicode_emoji';
  }
  if (isDefault(next)) state.userStatus.delete(r.userId);
  else state.userStatus.set(r.userId, next);
}

/** Wire form of one status (`/register` `user_status` entries, `GET /users/{id}/status`): falsy keys omitted. */
export function userStatusWire(s: UserStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!s.presenceEnabled) out.away = true;
  if (s.statusText !== '') out.status_text = s.statusText;
  if (s.emojiName !== '') {
    out.emoji_name = s.emojiName;
    if (s.emojiCode !== '') out.emoji_code = s.emojiCode;
    if (s.reactionType !== '') out.reaction_type = s.reactionType;
  }
  return out;
}

/** `/register` `user_status`: user id (string) → wire status, only users with a non-default status. */
export function userStatusRegister(state: RealmState): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [userId, s] of state.userStatus) {
    const user = state.users.get(userId);
    if (user === undefined || !user.isActive) continue;
    const wire = userStatusWire(s);
    if (Object.keys(wire).length > 0) out[String(userId)] = wire;
  }
  return out;
}

/** Snapshot form (see realm-snapshot.ts; absent in snapshots written before user status: none). */
export type UserStatusCore = Array<[userId: number, status: UserStatus]>;

export function userStatusToCore(state: RealmState): UserStatusCore {
  return [...state.userStatus];
}

/** Restores `state.userStatus` (`undefined` = an older snapshot: every status default). */
export function userStatusFromCore(state: RealmState, core: UserStatusCore | undefined): void {
  for (const [userId, status] of core ?? []) state.userStatus.set(userId, { ...status });
}
