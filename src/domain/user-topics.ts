/**
 * Per-user topic visibility (Zulip's `UserTopic`; https://zulip.com/api/update-user-topic,
 * https://zulip.com/api/update-stream last row):
 * a user's visibility policy for one (channel, topic). Topics compare case-insensitively; the
 * first spelling set is kept for display, as Zulip keeps the row's `topic_name`.
 *
 * State shape: `RealmState.userTopics` = user id → (key → `UserTopic`), key = `userTopicKey`.
 * A policy of INHERIT (0) is never stored: setting it deletes the row.
 */
import type { RealmState } from './realm-state.js';
import type { UserTopicSet } from './records.js';

/** `visibility_policy` values (https://zulip.com/api/update-user-topic). */
export const VisibilityPolicy = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;
export type VisibilityPolicyCode = (typeof VisibilityPolicy)[keyof typeof VisibilityPolicy];

const VISIBILITY_POLICY_CODES: ReadonlySet<number> = new Set(Object.values(VisibilityPolicy));

/** Whether `n` is one of Zulip's `UserTopic.VisibilityPolicy` values (0–3). */
export function isVisibilityPolicy(n: number): n is VisibilityPolicyCode {
  return VISIBILITY_POLICY_CODES.has(n);
}

/** One stored visibility row. */
export interface UserTopic {
  streamId: number;
  /** Topic as first set (display spelling). */
  topicName: string;
  /** UNIX seconds (integer). */
  lastUpdated: number;
  /** 1 muted, 2 unmuted, 3 followed (never 0). */
  visibilityPolicy: VisibilityPolicyCode;
}

/** Map key of a (channel, topic) pair: case-insensitive in the topic. */
export function userTopicKey(streamId: number, topic: string): string {
  return `${streamId}\u0000${topic.toLowerCase()}`;
}

/** The user's row for (channel, topic), if any. */
export function getUserTopic(state: RealmState, userId: number, streamId: number, topic: string): UserTopic | undefined {
  return state.userTopics.get(userId)?.get(userTopicKey(streamId, topic));
}

/** `evolve` of `user_topic_set`: sets (or, for 0, deletes) the row. */
export function userTopicSet(state: RealmState, r: UserTopicSet): void {
  let mine = state.userTopics.get(r.userId);
  if (mine === undefined) state.userTopics.set(r.userId, (mine = new Map()));
  applyToRows(mine, r);
  if (mine.size === 0) state.userTopics.delete(r.userId);
}

/**
 * Applies a `user_topic_set` to one user's rows, in place: 0 deletes; otherwise the row is
 * updated where it is (keeping its first spelling) or appended.
 */
export function applyToRows(rows: Map<string, UserTopic>, r: UserTopicSet): void {
  const key = userTopicKey(r.streamId, r.topic);
  if (r.visibilityPolicy === VisibilityPolicy.inherit) {
    rows.delete(key);
    return;
  }
  const existing = rows.get(key);
  rows.set(key, {
    streamId: r.streamId,
    topicName: existing?.topicName ?? r.topic,
    lastUpdated: r.lastUpdated,
    visibilityPolicy: r.visibilityPolicy,
  });
}

/** A user's rows in wire form (`user_topics` of `/register`), ordered by channel then topic. */
export function userTopicsWire(
  state: RealmState,
  userId: number,
): Array<{ stream_id: number; topic_name: string; last_updated: number; visibility_policy: number }> {
  const rows = [...(state.userTopics.get(userId)?.values() ?? [])].filter((row) => {
    const stream = state.streams.get(row.streamId);
    return stream !== undefined && !stream.isArchived;
  });
  return rows.map((row) => ({
    stream_id: row.streamId,
    topic_name: row.topicName,
    last_updated: row.lastUpdated,
    visibility_policy: row.visibilityPolicy,
  }));
}

/** The legacy `muted_topics` list: `[stream_name, topic, last_updated]` for MUTED rows only. */
export function mutedTopicsWire(state: RealmState, userId: number): Array<[string, string, number]> {
  return mutedTopicsOfRows(state, state.userTopics.get(userId)?.values() ?? []);
}

/** `mutedTopicsWire` over given rows (e.g. the rows a pending change will leave). */
export function mutedTopicsOfRows(state: RealmState, rows: Iterable<UserTopic>): Array<[string, string, number]> {
  const out: Array<[string, string, number]> = [];
  for (const row of rows) {
    if (row.visibilityPolicy !== VisibilityPolicy.muted) continue;
    const stream = state.streams.get(row.streamId);
    if (stream === undefined || stream.isArchived) continue;
    out.push([stream.name, row.topicName, row.lastUpdated]);
  }
  return out;
}

/** Snapshot form: `[userId, rows]` pairs (see realm-snapshot.ts; absent in old snapshots). */
export type UserTopicsCore = Array<[userId: number, rows: UserTopic[]]>;

/** The snapshot form of `state.userTopics`. */
export function userTopicsToCore(state: RealmState): UserTopicsCore {
  return [...state.userTopics].map(([userId, rows]) => [userId, [...rows.values()]]);
}

/** Restores `state.userTopics` from a snapshot (`undefined` = a snapshot from before user topics: none). */
export function userTopicsFromCore(state: RealmState, core: UserTopicsCore | undefined): void {
  for (const [userId, rows] of core ?? []) {
    const mine = new Map<string, UserTopic>();
    for (const row of rows) mine.set(userTopicKey(row.streamId, row.topicName), row);
    state.userTopics.set(userId, mine);
  }
}
