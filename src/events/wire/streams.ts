/**
 * Zulip's stream and subscription objects (https://zulip.com/api/get-stream-by-id,
 * https://zulip.com/api/get-subscriptions, at feature level 417; Zulip's
 * zerver/lib/streams.py `stream_to_dict` and zerver/lib/subscription_info.py
 * `build_stream_dict_for_sub`): the one serializer of a `Stream` and of a subscription, typed by
 * the schemas that check them (`StreamSchema`, `SubscriptionSchema`), so a field the schema does
 * not allow, or of the wrong type, fails `tsc`.
 */
import type { Static } from 'typebox';
import type { RealmState, Stream, Subscription } from '../../domain/realm-state.js';
import type { StreamSchema, SubscriptionSchema } from '../register/schemas.js';

/** A stream object (`streams`, `never_subscribed`, `stream` events): `StreamSchema`'s static type. */
export type StreamObject = Static<typeof StreamSchema>;

/** A subscription object (`subscriptions`, `subscription` op `add`): `SubscriptionSchema`'s static type. */
export type SubscriptionObject = Static<typeof SubscriptionSchema>;

/** Zulip's stream object for `stream`; `subscriber_count` is the current number of subscribers. */
export function streamToWire(state: RealmState, stream: Stream): StreamObject {
  return {
    stream_id: stream.id,
    name: stream.name,
    description: stream.description,
    rendered_description: stream.renderedDescription,
    date_created: stream.dateCreated,
    creator_id: stream.creatorId,
    invite_only: stream.inviteOnly,
    is_web_public: stream.isWebPublic,
    history_public_to_subscribers: stream.historyPublicToSubscribers,
    first_message_id: stream.firstMessageId,
    folder_id: stream.folderId,
    is_archived: stream.isArchived,
    is_recently_active: true,
    message_retention_days: stream.messageRetentionDays,
    stream_post_policy: 1,
    is_announcement_only: false,
    stream_weekly_traffic: null,
    topics_policy: stream.topicsPolicy,
    subscriber_count: state.subscriptions.get(stream.id)?.size ?? 0,
    ...stream.groups,
  };
}

/**
 * Zulip's subscription object: the stream object plus the user's settings; `subscribers` (sorted
 * ids) when `includeSubscribers`.
 */
export function subscriptionToWire(state: RealmState, stream: Stream, sub: Subscription, includeSubscribers: boolean): SubscriptionObject {
  const wire: SubscriptionObject = {
    ...streamToWire(state, stream),
    color: sub.color,
    is_muted: sub.isMuted,
    in_home_view: !sub.isMuted,
    pin_to_top: sub.pinToTop,
    desktop_notifications: sub.desktopNotifications,
    audible_notifications: sub.audibleNotifications,
    push_notifications: sub.pushNotifications,
    email_notifications: sub.emailNotifications,
    wildcard_mentions_notify: sub.wildcardMentionsNotify,
  };
  if (includeSubscribers) wire.subscribers = [...(state.subscriptions.get(stream.id)?.keys() ?? [])].sort((a, b) => a - b);
  return wire;
}
