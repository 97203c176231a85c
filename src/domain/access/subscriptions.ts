/**
 * Who may subscribe whom (https://zulip.com/api/update-stream channel permission settings; Zulip's zerver/lib/streams.py
 * `filter_stream_authorization_for_adding_subscribers`,
 * `get_streams_to_which_user_cannot_add_subscribers`, `bulk_can_remove_subscribers_from_streams`).
 * Group permissions here have `allow_everyone_group=False` in Zulip: guests never hold them.
 */
import { hasGroupPermission } from '../groups.js';
import { Role, type RealmState, type Stream, type User } from '../realm-state.js';
import { hasContentAccess, hasMetadataAccess } from './streams.js';

const nonGuestIn = (state: RealmState, user: User, value: Stream['groups'][keyof Stream['groups']]) =>
  user.role !== Role.guest && hasGroupPermission(state, user.id, value);

/**
 * Whether `user` may subscribe themselves to the existing channel (`can_subscribe_group`):
 * content access (web-public, subscribed, public for non-guests, `can_subscribe_group` /
 * `can_add_subscribers_group`), or — for private channels they may administer — realm
 * administrators and `can_administer_channel_group` members.
 */
export function canJoinStream(state: RealmState, user: User, stream: Stream): boolean {
  if (hasContentAccess(state, user, stream)) return true;
  return user.role <= Role.admin || nonGuestIn(state, user, stream.groups.can_administer_channel_group);
}

/**
 * Whether `user` may subscribe other users to the existing channel (`can_add_subscribers_group`): realm
 * administrators; the channel's `can_add_subscribers_group` or `can_administer_channel_group`
 * (no subscription needed); the realm's `can_add_subscribers_group` with content access to the
 * channel.
 */
export function canAddSubscribers(state: RealmState, user: User, stream: Stream): boolean {
  if (user.role <= Role.admin) return true;
  if (nonGuestIn(state, user, stream.groups.can_add_subscribers_group)) return true;
  if (nonGuestIn(state, user, stream.groups.can_administer_channel_group)) return true;
  const realmGroup = state.settings.groups.can_add_subscribers_group;
  if (realmGroup === undefined || !nonGuestIn(state, user, realmGroup)) return false;
  return hasContentAccess(state, user, stream);
}

/**
 * Whether `user` may unsubscribe other users from the channel (https://zulip.com/api/unsubscribe;
 * `bulk_can_remove_subscribers_from_streams`): realm administrators always; otherwise
 * `can_administer_channel_group`, or metadata access and `can_remove_subscribers_group`.
 */
export function canRemoveSubscribers(state: RealmState, user: User, stream: Stream): boolean {
  if (user.role <= Role.admin) return true;
  if (nonGuestIn(state, user, stream.groups.can_administer_channel_group)) return true;
  return hasMetadataAccess(state, user, stream) && nonGuestIn(state, user, stream.groups.can_remove_subscribers_group);
}

/**
 * Metadata access for a channel whose subscriber set is `subscribers` (possibly not yet in state:
 * a channel being created or (un)subscribed in the same command) — who gets its events.
 */
export function canSeeWithSubscribers(state: RealmState, user: User, stream: Stream, subscribers: ReadonlySet<number>): boolean {
  return hasMetadataAccess(state, user, stream, subscribers.has(user.id));
}

