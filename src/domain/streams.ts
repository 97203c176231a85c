/**
 * Channels (streams): naming rules, colors and new subscriptions (https://zulip.com/api/subscribe,
 * https://zulip.com/api/update-stream). Their wire objects are built in events/wire/streams.ts.
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
