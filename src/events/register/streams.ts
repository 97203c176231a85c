/**
 * Channels in `POST /register`: the `subscription` fetch type (`subscriptions`, `unsubscribed`,
 * `never_subscribed`, Zulip's `gather_subscriptions_helper`), `stream` (`streams`,
 * `do_get_streams(include_all=True, include_web_public=True)`) and `default_streams`.
 *
 * Visibility is `domain/access.ts` `hasMetadataAccess` (the one rule parley uses everywhere): a private
 * channel the user is not subscribed to appears nowhere unless the user is an administrator, so
 * the response is no existence oracle. Archived channels appear only for clients declaring the
 * `archived_channels` capability. Lists are sorted by name, as Zulip does.
 */
import type { RealmState, Stream, User } from '../../domain/realm-state.js';
import { hasMetadataAccess } from '../../domain/access.js';
import { streamToWire, subscriptionToWire, type StreamObject, type SubscriptionObject } from '../wire/streams.js';
import { userSetting } from './user-settings.js';

/** Subscription notification settings that are `null` (inherit) unless a client opts in. */
const NOTIFICATION_SETTINGS = ['desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications'] as const;

/** Options the channel sections depend on. */
export interface StreamSectionOptions {
  includeSubscribers: boolean;
  /** Capability `archived_channels`: include archived channels. */
  archivedChannels: boolean;
  /**
   * Capability `notification_settings_null`: keep `null` notification settings. Without it
   * Zulip replaces each `null` by the user's global `enable_stream_<setting>`
   * (`handle_stream_notifications_compatibility`, for clients that crash on null).
   */
  notificationSettingsNull: boolean;
}

function byName(a: Stream, b: Stream): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Channels the user may see, archived ones only when asked for. */
function visibleStreams(state: RealmState, me: User, archived: boolean): Stream[] {
  const out: Stream[] = [];
  for (const stream of state.streams.values()) {
    if (stream.isArchived && !archived) continue;
    if (hasMetadataAccess(state, me, stream)) out.push(stream);
  }
  return out.sort(byName);
}

/** `subscriptions`, `unsubscribed` and `never_subscribed`. */
export function subscriptionSection(state: RealmState, me: User, opts: StreamSectionOptions): Record<string, unknown> {
  const subscriptions: SubscriptionObject[] = [];
  const neverSubscribed: StreamObject[] = [];
  for (const stream of visibleStreams(state, me, opts.archivedChannels)) {
    const sub = state.subscriptions.get(stream.id)?.get(me.id);
    if (sub !== undefined) {
      const wire = subscriptionToWire(state, stream, sub, opts.includeSubscribers);
      if (!opts.notificationSettingsNull) {
        for (const name of NOTIFICATION_SETTINGS) {
          // The user's `enable_stream_*` setting (a boolean) stands in for the inherited value.
          const inherited = userSetting(me, `enable_stream_${name}`);
          if (wire[name] === null && typeof inherited === 'boolean') wire[name] = inherited;
        }
      }
      subscriptions.push(wire);
    } else {
      const wire = streamToWire(state, stream);
      if (opts.includeSubscribers) {
        wire.subscribers = [...(state.subscriptions.get(stream.id)?.keys() ?? [])].sort((a, b) => a - b);
      }
      neverSubscribed.push(wire);
    }
  }
  // parley keeps no row for a past subscription yet, so nothing is "unsubscribed".
  return { subscriptions, unsubscribed: [], never_subscribed: neverSubscribed };
}

/** `streams`: every channel the user can see (all of them for administrators). */
export function streamSection(state: RealmState, me: User, archivedChannels: boolean): StreamObject[] {
  return visibleStreams(state, me, archivedChannels).map((stream) => streamToWire(state, stream));
}

/** `realm_default_streams`: ids of the default channels (FL 330: ids, not objects); [] for guests. */
export function defaultStreamIds(state: RealmState, me: User, isGuest: boolean): number[] {
  if (isGuest) return [];
  const ids: number[] = [];
  for (const stream of state.streams.values()) {
    if (stream.isDefault && !stream.isArchived && hasMetadataAccess(state, me, stream)) ids.push(stream.id);
  }
  return ids.sort((a, b) => a - b);
}
