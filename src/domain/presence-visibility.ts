/**
 * Whose presence a user sees (Zulip's zerver/lib/presence.py `get_presence_dict_by_realm` with
 * `requesting_user_profile`, zerver/views/presence.py `update_active_status_backend`, and
 * zerver/actions/user_settings.py for `presence_enabled`):
 * - only users the viewer can access (`can_access_all_users_group`: a restricted guest sees the
 *   users they share a channel or a conversation with);
 * - not users who turned `presence_enabled` off (Zulip stops recording their presence and leaves
 *   them looking offline; parley leaves them out, which clients show the same way).
 */
import { canAccessUser } from './access.js';
import { presenceRows, type PresenceRowSource } from './presence.js';
import type { RealmState, User } from './realm-state.js';
import { userStatusOf } from './user-status.js';

/** Whether `userId` reports presence at all (their `presence_enabled` setting). */
export function presenceEnabled(state: RealmState, userId: number): boolean {
  return userStatusOf(state, userId).presenceEnabled;
}

/** The presence rows `viewer` may see as of `now` (UNIX seconds), changed after `sinceUpdateId`. */
export function visiblePresenceRows(state: RealmState, viewer: User, now: number, sinceUpdateId = -1): PresenceRowSource[] {
  return presenceRows(state, now, sinceUpdateId).filter((row) => presenceEnabled(state, row.userId) && canAccessUser(state, viewer, row.userId));
}
