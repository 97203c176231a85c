/**
 * Who may add and remove custom emoji (Zulip's zerver/models/users.py `can_add_custom_emoji`,
 * zerver/lib/emoji.py `check_remove_custom_emoji`, zerver/views/realm_emoji.py `upload_emoji`'s
 * `@require_member_or_admin`).
 */
import { Errors, type ZulipError } from '../../errors.js';
import type { RealmState, User } from '../realm-state.js';
import { hasGroupPermission } from '../groups.js';
import { realmGroupSetting } from '../group-permissions.js';
import type { RealmEmoji } from '../realm-emoji.js';
import { isRealmAdmin, requireNonGuest } from './realm-roles.js';

/**
 * Adding a custom emoji: guests never ("Not allowed for guest users"), others when in the realm's
 * `can_add_custom_emoji_group` (default `role:members`), else "Insufficient permission".
 * Returns null when allowed.
 */
export function checkCanAddCustomEmoji(state: RealmState, user: User): ZulipError | null {
  const nonGuest = requireNonGuest(user);
  if (!nonGuest.ok) return nonGuest.error;
  return hasGroupPermission(state, user.id, realmGroupSetting(state, 'can_add_custom_emoji_group')) ? null : Errors.insufficientPermission();
}

/**
 * Removing (deactivating) an active custom emoji: administrators, or its author
 * ("Must be an organization administrator or emoji author"). Returns null when allowed.
 */
export function checkCanRemoveCustomEmoji(user: User, emoji: RealmEmoji): ZulipError | null {
  if (isRealmAdmin(user) || emoji.authorId === user.id) return null;
  return Errors.notEmojiAdmin();
}
