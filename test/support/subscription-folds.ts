/**
 * Client-side folds of `subscription` events (add / remove / update / peer_add / peer_remove)
 * into a register state, as Zulip's `apply_event` does; used by `verify-action.ts`.
 * parley keeps no row for a past subscription, so a removed subscription moves to
 * `never_subscribed` (a following `stream` `delete` drops it when the user lost access).
 * Lists stay sorted by name.
 */
type Json = Record<string, any>;

const LISTS = ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams'] as const;
const byName = (a: Json, b: Json) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const SUBSCRIPTION_KEYS = [
  'color', 'is_muted', 'in_home_view', 'pin_to_top', 'desktop_notifications', 'audible_notifications',
  'push_notifications', 'email_notifications', 'wildcard_mentions_notify',
];

/** Whether the register was asked for `subscribers` lists (seen on any listed channel). */
function hasSubscriberLists(state: Json): boolean | undefined {
  for (const key of ['subscriptions', 'never_subscribed', 'unsubscribed'] as const) {
    const first = (state[key] as Json[] | undefined)?.[0];
    if (first !== undefined) return 'subscribers' in first;
  }
  return undefined;
}

/** Folds one `subscription` event. */
export function applySubscriptionEvent(state: Json, event: Json, user: { id: number }): void {
  switch (event.op) {
    case 'add': {
      if (!Array.isArray(state.subscriptions)) return;
      const withSubscribers = hasSubscriberLists(state);
      for (const sub of event.subscriptions as Json[]) {
        for (const key of ['never_subscribed', 'unsubscribed'] as const) {
          if (Array.isArray(state[key])) state[key] = state[key].filter((s: Json) => s.stream_id !== sub.stream_id);
        }
        const copy = structuredClone(sub);
        if (withSubscribers === false) delete copy.subscribers;
        state.subscriptions = state.subscriptions.filter((s: Json) => s.stream_id !== sub.stream_id);
        state.subscriptions.push(copy);
        for (const stream of (state.streams as Json[] | undefined) ?? []) {
          if (stream.stream_id === sub.stream_id) stream.subscriber_count = sub.subscriber_count;
        }
      }
      state.subscriptions.sort(byName);
      return;
    }
    case 'remove': {
      for (const { stream_id } of event.subscriptions as Json[]) {
        for (const stream of (state.streams as Json[] | undefined) ?? []) {
          if (stream.stream_id === stream_id) stream.subscriber_count -= 1;
        }
        if (!Array.isArray(state.subscriptions)) continue;
        const sub = (state.subscriptions as Json[]).find((s) => s.stream_id === stream_id);
        if (sub === undefined) continue;
        state.subscriptions = state.subscriptions.filter((s: Json) => s !== sub);
        for (const key of SUBSCRIPTION_KEYS) delete sub[key];
        sub.subscriber_count -= 1;
        if (Array.isArray(sub.subscribers)) sub.subscribers = sub.subscribers.filter((id: number) => id !== user.id);
        if (Array.isArray(state.never_subscribed)) {
          state.never_subscribed.push(sub);
          state.never_subscribed.sort(byName);
        }
      }
      return;
    }
    case 'update': {
      const sub = (state.subscriptions as Json[] | undefined)?.find((s) => s.stream_id === event.stream_id);
      if (sub === undefined) return;
      const wasMuted = sub.is_muted === true;
      sub[event.property] = event.value;
      if (event.property === 'is_muted') sub.in_home_view = !event.value;
      if (event.property === 'in_home_view') sub.is_muted = !event.value;
      // `unread_msgs.count` leaves out muted channels (Zulip re-aggregates it after apply_events).
      const unread = state.unread_msgs as Json | undefined;
      if (unread !== undefined && wasMuted !== sub.is_muted) {
        let n = 0;
        for (const bucket of unread.streams as Json[]) if (bucket.stream_id === event.stream_id) n += bucket.unread_message_ids.length;
        unread.count += sub.is_muted ? -n : n;
      }
      return;
    }
    case 'peer_add':
    case 'peer_remove': {
      const streamIds = new Set(event.stream_ids as number[]);
      const userIds = event.user_ids as number[];
      for (const key of LISTS) {
        const list = state[key] as Json[] | undefined;
        if (list === undefined) continue;
        const withSubscribers = key !== 'streams' && list.some((s) => Array.isArray(s.subscribers));
        for (const stream of list) {
          if (!streamIds.has(stream.stream_id)) continue;
          if (withSubscribers && !Array.isArray(stream.subscribers)) stream.subscribers = [];
          if (Array.isArray(stream.subscribers)) {
            const set = new Set<number>(stream.subscribers);
            for (const id of userIds) event.op === 'peer_add' ? set.add(id) : set.delete(id);
            stream.subscribers = [...set].sort((a, b) => a - b);
          }
          stream.subscriber_count += event.op === 'peer_add' ? userIds.length : -userIds.length;
        }
      }
      return;
    }
    default:
      throw new Error(`applySubscriptionEvent: unknown op ${JSON.stringify(event.op)}`);
  }
}
