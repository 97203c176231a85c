/**
 * Channels (streams) on the wire and their naming rules (https://zulip.com/api/get-stream-by-id,
 * https://zulip.com/api/get-subscriptions, https://zulip.com/api/update-stream).
 * The one serializer of `Stream` to Zulip's stream object, and of a subscription.
 */
import type { RealmState, Stream, Subscription } from './realm-state.js';
import type { StreamCreated } from './records.js';
import { STREAM_GROUP_SETTINGS } from './realm-state.js';
import { MAX_STREAM_NAME_LENGTH, invalidCharPosition, codePointLength } from './messages.js';

/** Default subscription colors, assigned in order (https://zulip.com/api/get-subscriptions). */
export const STREAM_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

/** The next color for a user: the first palette color they don't use yet, else by recipient id. */
export function pickColor(state: RealmState, userId: number, recipientId: number): string {
  const used = new Set<string>();
  for (const sid of state.userStreams.get(userId) ?? []) {
    const sub = state.subscriptions.get(sid)?.get(userId);
    if (sub) used.add(sub.color);
  }
  return STREAM_COLORS.find((c) => !used.has(c)) ?? STREAM_COLORS[recipientId % STREAM_COLORS.length]!;
}

/**
 * Validates a channel name; returns the stripped name or an error message
 * (https://zulip.com/api/subscribe).
 */
export function checkStreamName(raw: string): { ok: true; name: string } | { ok: false; msg: string } {
  const name = raw.trim();
  if (name === '') return { ok: false, msg: "Channel name can't be empty!" };
  if (codePointLength(name) > MAX_STREAM_NAME_LENGTH) {
    return { ok: false, msg: `Channel name too long (limit: ${MAX_STREAM_NAME_LENGTH} characters).` };
  }
  const pos = invalidCharPosition(name);
  if (pos > 0) return { ok: false, msg: `Invalid character in channel name, at position ${pos}!` };
  return { ok: true, name };
}

/** Channel by name, case-insensitively after stripping. */
export function findStreamByName(state: RealmState, name: string): Stream | undefined {
  const id = state.streamsByName.get(name.trim().toLowerCase());
  return id === undefined ? undefined : state.streams.get(id);
}

/** Zulip's stream object (https://zulip.com/api/get-stream-by-id, at feature level 417). */
export function streamToWire(state: RealmState, stream: Stream): Record<string, unknown> {
  const wire: Record<string, unknown> = {
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
  };
  for (const key of STREAM_GROUP_SETTINGS) wire[key] = stream.groups[key];
  return wire;
}

/**
 * Zulip's subscription object: the stream object plus the user's settings
 * (https://zulip.com/api/get-subscriptions).
 */
export function subscriptionToWire(
  state: RealmState,
  stream: Stream,
  sub: Subscription,
  includeSubscribers: boolean,
): Record<string, unknown> {
  const wire = streamToWire(state, stream);
  Object.assign(wire, {
    color: sub.color,
    is_muted: sub.isMuted,
    in_home_view: !sub.isMuted,
    pin_to_top: sub.pinToTop,
    desktop_notifications: sub.desktopNotifications,
    audible_notifications: sub.audibleNotifications,
    push_notifications: sub.pushNotifications,
    email_notifications: sub.emailNotifications,
    wildcard_mentions_notify: sub.wildcardMentionsNotify,
  });
  if (includeSubscribers) wire.subscribers = [...(state.subscriptions.get(stream.id)?.keys() ?? [])].sort((a, b) => a - b);
  return wire;
}

/** The channel a `stream_created` record describes (used by `evolve`, and by handlers that build events before it). */
export function streamFromRecord(r: StreamCreated): Stream {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    renderedDescription: r.renderedDescription,
    dateCreated: r.dateCreated,
    creatorId: r.creatorId,
    inviteOnly: r.inviteOnly,
    isWebPublic: r.isWebPublic,
    historyPublicToSubscribers: r.historyPublicToSubscribers,
    isArchived: false,
    isDefault: r.isDefault,
    firstMessageId: null,
    messageRetentionDays: r.messageRetentionDays,
    topicsPolicy: r.topicsPolicy,
    folderId: r.folderId,
    recipientId: r.recipientId,
    groups: { ...r.groups },
  };
}

/** A new subscription's settings: the given color, not muted or pinned, notifications inherited (null). */
export function newSubscription(color: string): Subscription {
  return {
    color,
    isMuted: false,
    pinToTop: false,
    desktopNotifications: null,
    audibleNotifications: null,
    pushNotifications: null,
    emailNotifications: null,
    wildcardMentionsNotify: null,
  };
}
