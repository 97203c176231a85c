/**
 * Client-side folds of the aggregated `unread_msgs` and `starred_messages` of a register state,
 * as Zulip's `apply_event` does for `message`, `update_message_flags`, `delete_message` and
 * message moves (zerver/lib/events.py `apply_unread_message_event`,
 * `remove_message_id_from_unread_mgs`); used by `event-folds.ts`.
 */
type Json = Record<string, any>;

/**
 * Zulip's `remove_message_id_from_unread_mgs` on an aggregated `unread_msgs`: the id leaves its
 * bucket (an emptied bucket goes) and `mentions`; `count` drops for direct messages and unmuted
 * channels, as the aggregation counts them.
 */
export function removeUnreadMessage(unread: Json, state: Json, id: number): void {
  for (const key of ['pms', 'huddles', 'streams'] as const) {
    const buckets = unread[key] as Json[];
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      const at = (bucket.unread_message_ids as number[]).indexOf(id);
      if (at < 0) continue;
      bucket.unread_message_ids.splice(at, 1);
      if (key !== 'streams' || !isStreamMuted(state, bucket.stream_id)) unread.count -= 1;
      if (bucket.unread_message_ids.length === 0) buckets.splice(i, 1);
      break;
    }
  }
  unread.mentions = (unread.mentions as number[]).filter((m) => m !== id);
}

/** Python-style string order (by code point), as Zulip sorts topic buckets. */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

export const ascending = (a: number, b: number) => a - b;

/** Whether the user muted the channel, as far as the state shows (no subscriptions fetched = no). */
export function isStreamMuted(state: Json, streamId: number): boolean {
  const sub = (state.subscriptions as Json[] | undefined)?.find((s) => s.stream_id === streamId);
  return sub?.is_muted === true;
}

/** Adds a new unread message to an aggregated `unread_msgs` (Zulip's `apply_unread_message_event`). */
export function applyUnreadMessage(unread: Json, state: Json, message: Json, flags: string[], user: { id: number }): void {
  const id: number = message.id;
  let counted = true;
  let wildcardCounts = true;
  if (message.type === 'stream') {
    const topic: string = message.subject;
    const lower = topic.toLowerCase();
    const buckets: Json[] = unread.streams;
    let bucket = buckets.find((b) => b.stream_id === message.stream_id && b.topic.toLowerCase() === lower);
    if (bucket === undefined) {
      bucket = { stream_id: message.stream_id, topic, unread_message_ids: [] };
      buckets.push(bucket);
      buckets.sort((a, b) => a.stream_id - b.stream_id || compareCodePoints(a.topic.toLowerCase(), b.topic.toLowerCase()));
    }
    bucket.unread_message_ids.push(id);
    bucket.unread_message_ids.sort(ascending);
    counted = !isStreamMuted(state, message.stream_id);
    wildcardCounts = counted;
  } else {
    const recipients: Json[] = message.display_recipient;
    const others = recipients.filter((r) => r.id !== user.id);
    if (others.length <= 1) {
      const other = others.length === 1 ? others[0]!.id : user.id;
      let bucket = (unread.pms as Json[]).find((b) => b.other_user_id === other);
      if (bucket === undefined) {
        bucket = { other_user_id: other, sender_id: other, unread_message_ids: [] };
        unread.pms.push(bucket);
        unread.pms.sort((a: Json, b: Json) => a.other_user_id - b.other_user_id);
      }
      bucket.unread_message_ids.push(id);
      bucket.unread_message_ids.sort(ascending);
    } else {
      const key = recipients.map((r) => r.id as number).sort(ascending).join(',');
      let bucket = (unread.huddles as Json[]).find((b) => b.user_ids_string === key);
      if (bucket === undefined) {
        bucket = { user_ids_string: key, unread_message_ids: [] };
        unread.huddles.push(bucket);
        unread.huddles.sort((a: Json, b: Json) => compareCodePoints(a.user_ids_string, b.user_ids_string));
      }
      bucket.unread_message_ids.push(id);
      bucket.unread_message_ids.sort(ascending);
    }
  }
  if (counted) unread.count += 1;
  const wildcard = flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned');
  if (flags.includes('mentioned') || (wildcard && wildcardCounts)) {
    if (!unread.mentions.includes(id)) {
      unread.mentions.push(id);
      unread.mentions.sort(ascending);
    }
  }
}

/**
 * Zulip's apply_event for `update_message_flags` (events.py, with `aggregate_unread_data` done on
 * the aggregated form): add/read removes the ids from every `unread_msgs` bucket and from
 * `mentions` (`count` drops for direct messages and channels the user has not muted);
 * `all: true` (mark all as read, sent with `messages: []`) empties `unread_msgs` (parley's
 * addition: Zulip's apply_event ignores `all`, its clients reload); remove/read adds each
 * `message_details` entry (`add_message_to_unread_msgs`); starred adds to / removes from
 * `starred_messages`.
 */
export function applyUpdateMessageFlags(state: Json, event: Json, user: { id: number }): void {
  // Every listed id has a row now (starring creates "historical" rows), and `max_message_id` is
  // the user's highest row: a client model must raise it (Zulip's apply_event does not).
  if (typeof state.max_message_id === 'number') state.max_message_id = Math.max(state.max_message_id, ...event.messages);
  const unread = state.unread_msgs as Json | undefined;
  if (unread !== undefined && event.flag === 'read' && event.op === 'add') {
    if (event.all === true) {
      Object.assign(unread, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
    }
    const gone = new Set<number>(event.messages);
    for (const key of ['pms', 'streams', 'huddles']) {
      unread[key] = (unread[key] as Json[]).filter((bucket) => {
        const before = bucket.unread_message_ids.length;
        bucket.unread_message_ids = (bucket.unread_message_ids as number[]).filter((id) => !gone.has(id));
        const removed = before - bucket.unread_message_ids.length;
        if (key !== 'streams' || !isStreamMuted(state, bucket.stream_id)) unread.count -= removed;
        return bucket.unread_message_ids.length > 0;
      });
    }
    unread.mentions = (unread.mentions as number[]).filter((id) => !gone.has(id));
  }
  if (unread !== undefined && event.flag === 'read' && event.op === 'remove') {
    for (const [key, details] of Object.entries(event.message_details as Record<string, Json>)) {
      const id = Number(key);
      if (details.mentioned === true && !unread.mentions.includes(id)) {
        unread.mentions.push(id);
        unread.mentions.sort(ascending);
      }
      let bucket: Json | undefined;
      if (details.type === 'stream') {
        const lower = (details.topic as string).toLowerCase();
        bucket = (unread.streams as Json[]).find((b) => b.stream_id === details.stream_id && b.topic.toLowerCase() === lower);
        if (bucket === undefined) {
          bucket = { stream_id: details.stream_id, topic: details.topic, unread_message_ids: [] };
          unread.streams.push(bucket);
          unread.streams.sort((a: Json, b: Json) => a.stream_id - b.stream_id || compareCodePoints(a.topic.toLowerCase(), b.topic.toLowerCase()));
        } else if (id < Math.min(...(bucket.unread_message_ids as number[]))) {
          // The bucket is named after its oldest message's topic.
          bucket.topic = details.topic;
        }
        if (details.unmuted_stream_msg) unread.count += 1;
      } else {
        const others = (details.user_ids as number[]).filter((u) => u !== user.id);
        if (others.length <= 1) {
          const other = others.length === 1 ? others[0]! : user.id;
          bucket = (unread.pms as Json[]).find((b) => b.other_user_id === other);
          if (bucket === undefined) {
            bucket = { other_user_id: other, sender_id: other, unread_message_ids: [] };
            unread.pms.push(bucket);
            unread.pms.sort((a: Json, b: Json) => a.other_user_id - b.other_user_id);
          }
        } else {
          const key2 = [...others, user.id].sort(ascending).join(',');
          bucket = (unread.huddles as Json[]).find((b) => b.user_ids_string === key2);
          if (bucket === undefined) {
            bucket = { user_ids_string: key2, unread_message_ids: [] };
            unread.huddles.push(bucket);
            unread.huddles.sort((a: Json, b: Json) => compareCodePoints(a.user_ids_string, b.user_ids_string));
          }
        }
        unread.count += 1;
      }
      if (!bucket.unread_message_ids.includes(id)) {
        bucket.unread_message_ids.push(id);
        bucket.unread_message_ids.sort(ascending);
      }
    }
  }
  const starred = state.starred_messages as number[] | undefined;
  if (starred !== undefined && event.flag === 'starred') {
    // Zulip appends; register lists ascending ids, so the fold keeps them sorted.
    if (event.op === 'add') state.starred_messages = [...new Set([...starred, ...event.messages])].sort(ascending);
    else state.starred_messages = starred.filter((id) => !(event.messages as number[]).includes(id));
  }
}

/** `unread_msgs` after an `update_message` move: the moved ids change bucket (and `count` follows muting). */
export function moveUnreadMessages(unread: Json, state: Json, event: Json): void {
  const buckets: Json[] = unread.streams;
  const moved: number[] = [];
  for (const bucket of buckets) {
    const keep = (bucket.unread_message_ids as number[]).filter((id) => !event.message_ids.includes(id));
    for (const id of bucket.unread_message_ids as number[]) if (!keep.includes(id)) moved.push(id);
    bucket.unread_message_ids = keep;
  }
  unread.streams = buckets.filter((b) => b.unread_message_ids.length > 0);
  if (moved.length === 0) return;
  const streamId: number = event.new_stream_id ?? event.stream_id;
  const topic: string = event.subject ?? event.orig_subject;
  const oldCounted = !isStreamMuted(state, event.stream_id);
  const newCounted = !isStreamMuted(state, streamId);
  unread.count += moved.length * (Number(newCounted) - Number(oldCounted));
  let bucket = (unread.streams as Json[]).find((b) => b.stream_id === streamId && b.topic.toLowerCase() === topic.toLowerCase());
  if (bucket === undefined) {
    bucket = { stream_id: streamId, topic, unread_message_ids: [] };
    unread.streams.push(bucket);
    unread.streams.sort((a: Json, b: Json) => a.stream_id - b.stream_id || compareCodePoints(a.topic.toLowerCase(), b.topic.toLowerCase()));
  }
  bucket.unread_message_ids.push(...moved);
  bucket.unread_message_ids.sort(ascending);
}
