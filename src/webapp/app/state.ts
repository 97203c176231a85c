/**
 * The app's state as Preact signals: who I am, users, subscriptions, unread messages, presence,
 * the open narrow and its messages. Components read signals; only `apply-event.ts`, `feed.ts`
 * and the action modules write them. Collections are replaced, never mutated in place, so every
 * reader sees a change.
 */
import { computed, signal } from '@preact/signals';
import type { Message, NarrowTerm, Subscription, UnreadPlace, User } from './types.js';

/** The logged-in user. */
export const me = signal({ userId: 0, fullName: '', email: '' });
export const realmName = signal('');
export const users = signal<ReadonlyMap<number, User>>(new Map());
export const subscriptions = signal<readonly Subscription[]>([]);
/** Unread message id → where it lives (from `unread_msgs`, then events). */
export const unread = signal<ReadonlyMap<number, UnreadPlace>>(new Map());
export const mentionedUnread = signal<ReadonlySet<number>>(new Set());
export const starred = signal<ReadonlySet<number>>(new Set());
/** user id → last active / idle time (UNIX seconds), from `presences` (slim) and `presence` events. */
export const presence = signal<ReadonlyMap<number, { active: number; idle: number }>>(new Map());
/** Direct-message conversations, newest first: the peers' ids (sorted) and the newest message id. */
export const dmConversations = signal<ReadonlyArray<{ userIds: number[]; maxId: number }>>([]);
/** Topics seen per channel: stream id → topic → newest message id. */
export const topicsByStream = signal<ReadonlyMap<number, ReadonlyMap<string, number>>>(new Map());

/** The open narrow ([] = all messages) and its loaded messages, oldest first. */
export const narrow = signal<readonly NarrowTerm[]>([]);
export const feed = signal<readonly Message[]>([]);
export const feedState = signal({ loading: false, foundOldest: false, foundNewest: true, error: '' });
/** The message under the keyboard cursor (j/k), or null. */
export const selectedId = signal<number | null>(null);
/** Who is typing where: `stream:<id>:<topic>` or `dm:<ids>` → user ids. */
export const typing = signal<ReadonlyMap<string, ReadonlySet<number>>>(new Map());
/** 'light' | 'dark' (Zulip's `color_scheme`: 1 automatic, 2 dark, 3 light). */
export const theme = signal<'light' | 'dark'>('light');
/** Event stream state shown in the header. */
export const connection = signal<'connecting' | 'live' | 'polling' | 'offline'>('connecting');
/** A transient notice (errors of actions). */
export const notice = signal('');
/** Which panel is open on top of the feed. */
export const panel = signal<'none' | 'settings' | 'inbox'>('none');
/** Phone layout: which side drawer is open. */
export const drawer = signal<'none' | 'left' | 'right'>('none');

/** Unread count per channel id. */
export const unreadByStream = computed(() => {
  const out = new Map<number, number>();
  for (const place of unread.value.values()) if (place.kind === 'stream') out.set(place.streamId, (out.get(place.streamId) ?? 0) + 1);
  return out;
});

/** Unread count per `<stream id>\u0000<topic lower-case>`. */
export const unreadByTopic = computed(() => {
  const out = new Map<string, number>();
  for (const place of unread.value.values()) {
    if (place.kind !== 'stream') continue;
    const key = topicKey(place.streamId, place.topic);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
});

/** Unread count per DM conversation key (`dmKey`). */
export const unreadByDm = computed(() => {
  const out = new Map<string, number>();
  for (const place of unread.value.values()) if (place.kind === 'dm') out.set(place.key, (out.get(place.key) ?? 0) + 1);
  return out;
});

/** Map key of a topic (Zulip compares topics case-insensitively). */
export const topicKey = (streamId: number, topic: string) => `${streamId}\u0000${topic.toLowerCase()}`;

/** Key of a DM conversation: the peers' ids, sorted, comma-joined (my id alone for a self-DM). */
export const dmKey = (userIds: readonly number[]) => [...userIds].sort((a, b) => a - b).join(',');

export function streamById(id: number): Subscription | undefined {
  return subscriptions.value.find((s) => s.stream_id === id);
}

export function streamByName(name: string): Subscription | undefined {
  const lower = name.toLowerCase();
  return subscriptions.value.find((s) => s.name.toLowerCase() === lower);
}

export function userByEmail(email: string): User | undefined {
  const lower = email.toLowerCase();
  for (const u of users.value.values()) if (u.email.toLowerCase() === lower) return u;
  return undefined;
}

/** Display name of a user id ("Unknown user" when not in `realm_users`, e.g. a system bot). */
export function userName(id: number): string {
  return users.value.get(id)?.full_name ?? 'Unknown user';
}

/** Records a topic as seen (sidebar topic list), keeping the newest message id. */
export function noteTopic(streamId: number, topic: string, messageId: number): void {
  const topics = new Map(topicsByStream.value.get(streamId) ?? []);
  const existing = [...topics.keys()].find((t) => t.toLowerCase() === topic.toLowerCase()) ?? topic;
  if ((topics.get(existing) ?? 0) >= messageId) return;
  topics.set(existing, messageId);
  const all = new Map(topicsByStream.value);
  all.set(streamId, topics);
  topicsByStream.value = all;
}
