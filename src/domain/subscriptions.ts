/**
 * Subscription rules and the `evolve` steps of subscription records
 * (https://zulip.com/api/get-subscriptions, https://zulip.com/api/subscribe,
 * https://zulip.com/api/unsubscribe, https://zulip.com/api/update-subscriptions,
 * https://zulip.com/api/update-subscription-settings,
 * https://zulip.com/api/group-setting-values). Pure: no I/O. Called from `evolve.ts` (the only
 * mutator) and from the
 * subscription handlers.
 */
import { Role, type RealmState, type Stream, type Subscription, type User } from './realm-state.js';
import type { SubscriptionPropertyChanged, SubscriptionsRemoved } from './records.js';
import { hasGroupPermission } from './groups.js';
import { isSubscribed } from './access.js';

/** `evolve` of `subscriptions_removed`: drops the subscriptions; UserMessage rows stay (history). */
export function subscriptionsRemoved(state: RealmState, r: SubscriptionsRemoved): void {
  const subs = state.subscriptions.get(r.streamId);
  for (const userId of r.userIds) {
    subs?.delete(userId);
    state.userStreams.get(userId)?.delete(r.streamId);
  }
}

/** Subscription property wire name → `Subscription` field. */
export const SUBSCRIPTION_PROPERTY_FIELDS = {
  color: 'color',
  is_muted: 'isMuted',
  pin_to_top: 'pinToTop',
  desktop_notifications: 'desktopNotifications',
  audible_notifications: 'audibleNotifications',
  push_notifications: 'pushNotifications',
  email_notifications: 'emailNotifications',
  wildcard_mentions_notify: 'wildcardMentionsNotify',
} as const satisfies Record<string, keyof Subscription>;

/** `evolve` of `subscription_property_changed`. */
export function subscriptionPropertyChanged(state: RealmState, r: SubscriptionPropertyChanged): void {
  const sub = state.subscriptions.get(r.streamId)?.get(r.userId);
  const field = SUBSCRIPTION_PROPERTY_FIELDS[r.property as keyof typeof SUBSCRIPTION_PROPERTY_FIELDS];
  if (sub === undefined || field === undefined) return;
  (sub as unknown as Record<string, unknown>)[field] = r.value;
}

/**
 * Whether `user` may subscribe themselves to the existing channel
 * (https://zulip.com/api/group-setting-values `can_subscribe_group`):
 * non-guests join public channels; anyone joins web-public ones; private channels need
 * `can_subscribe_group`, `can_add_subscribers_group` or `can_administer_channel_group` membership,
 * or being a realm administrator.
 */
export function canJoinStream(state: RealmState, user: User, stream: Stream): boolean {
  if (isSubscribed(state, user.id, stream.id)) return true;
  if (stream.isWebPublic) return true;
  if (!stream.inviteOnly && user.role !== Role.guest) return true;
  if (user.role <= Role.admin) return true;
  const g = stream.groups;
  return (
    hasGroupPermission(state, user.id, g.can_subscribe_group) ||
    hasGroupPermission(state, user.id, g.can_add_subscribers_group) ||
    hasGroupPermission(state, user.id, g.can_administer_channel_group)
  );
}

/**
 * Whether `user` may subscribe other users to the existing channel
 * (https://zulip.com/api/group-setting-values): realm
 * administrators; the channel's `can_add_subscribers_group` or `can_administer_channel_group`
 * (no subscription needed); the realm's `can_add_subscribers_group` with content access to the
 * channel (public, or subscribed).
 */
export function canAddSubscribers(state: RealmState, user: User, stream: Stream): boolean {
  if (user.role <= Role.admin) return true;
  const g = stream.groups;
  if (hasGroupPermission(state, user.id, g.can_add_subscribers_group)) return true;
  if (hasGroupPermission(state, user.id, g.can_administer_channel_group)) return true;
  const realmGroup = state.settings.groups.can_add_subscribers_group;
  if (realmGroup === undefined || !hasGroupPermission(state, user.id, realmGroup)) return false;
  if (stream.inviteOnly) return isSubscribed(state, user.id, stream.id);
  return user.role !== Role.guest;
}

/**
 * Whether `user` may unsubscribe other users from the channel (https://zulip.com/api/unsubscribe,
 * https://zulip.com/api/group-setting-values):
 * realm administrators always; otherwise metadata access and membership in the channel's
 * `can_remove_subscribers_group` or `can_administer_channel_group`.
 */
export function canRemoveSubscribers(state: RealmState, user: User, stream: Stream): boolean {
  if (user.role <= Role.admin) return true;
  const visible = stream.isWebPublic || (!stream.inviteOnly && user.role !== Role.guest) || isSubscribed(state, user.id, stream.id);
  if (!visible) return false;
  const g = stream.groups;
  return (
    hasGroupPermission(state, user.id, g.can_remove_subscribers_group) ||
    hasGroupPermission(state, user.id, g.can_administer_channel_group)
  );
}

/**
 * Whether `user` can see `stream` given its subscriber set `subscribers` (possibly not yet in
 * state): `canSeeStream` for a channel being created or re-subscribed in the same command.
 */
export function canSeeWithSubscribers(user: User, stream: Stream, subscribers: ReadonlySet<number>): boolean {
  if (stream.isWebPublic) return true;
  if (!stream.inviteOnly && user.role !== Role.guest) return true;
  if (subscribers.has(user.id)) return true;
  return user.role <= Role.admin;
}
