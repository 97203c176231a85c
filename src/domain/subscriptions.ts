/**
 * Subscription rules and the `evolve` steps of subscription records (zulip-behavior.md §3.1–3.6,
 * seed §2.11). Pure: no I/O. Called from `evolve.ts` (the only mutator) and from the
 * subscription handlers. Who may subscribe whom is the access family's (`access/subscriptions.ts`).
 */
import type { RealmState, Subscription } from './realm-state.js';
import type { SubscriptionPropertyChanged, SubscriptionsRemoved } from './records.js';

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

