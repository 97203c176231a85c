/**
 * Per-channel cache of who receives a message sent to a channel (issue 17: a send to a channel
 * with 1,000 subscribers spent most of its time walking the subscription map, with a `users` Map
 * lookup for `isActive` and a `MessageIndex.users` lookup per subscriber, twice per send).
 *
 * For a stream id it holds the active subscribers' user ids, in the subscription map's key order
 * (the order the uncached walk gave), and, parallel to them, their `UserMessages` objects. Zulip
 * computes the same set per send (zerver/actions/message_send.py `get_recipient_info`: active
 * subscribers of the channel; zerver/lib/message.py `do_send_messages` creates one UserMessage row
 * per recipient). The sender's own row is the caller's business (`evolve`'s `messageSent`).
 *
 * Derived data, never snapshotted: a realm state restored by `fromSnapshot` starts from
 * `emptyRealmState`, so with an empty cache that fills again on the first send.
 *
 * Invalidation, where a stale entry would lose or misdeliver messages, is central and
 * conservative: `evolve` calls {@link forgetChannelReceivers} before applying every record, and it
 * drops the whole cache for every record type that is NOT in {@link RECEIVER_NEUTRAL_RECORDS}, a
 * short allow-list of record types that provably change neither `subscriptions`, a user's
 * `isActive`, the `users` map nor `state.messages` (message sends, flags, reactions, edits,
 * drafts...). A new record type is therefore invalidating until someone lists it, which costs one
 * rebuild (the old per-send walk) and is never wrong. Scattered per-record updates were rejected:
 * one forgotten record kind (a bot deactivation, a channel created with subscribers, a user
 * auto-subscribed on creation) would silently lose messages.
 *
 * Two more guards cover changes outside `evolve`: the rows are tied to the `MessageIndex` they came
 * from (a restored index, or a test replacing `state.messages`, rebuilds them); and rows are only
 * created from `evolve` (`receiverRows`), never from `decide` (`receiverIds`), because creating a
 * user's `UserMessages` is a visible state change (snapshot owners) that a rejected command must
 * not make.
 */
import type { MessageIndex, UserMessages } from './message-index.js';
import type { RealmState } from './realm-state.js';
import type { RealmRecord } from './records.js';

/** One channel's receivers (see {@link ChannelReceivers}). */
export interface ChannelReceiverEntry {
  /** Active subscribers' user ids, in subscription-map key order. */
  readonly userIds: readonly number[];
  /** Parallel to `userIds`: their rows, once an `evolve` asked for them. */
  rows: UserMessages[] | null;
  /** The index `rows` belong to. */
  rowsOf: MessageIndex | null;
}

/** The cache of one realm state: stream id → receivers. Owned by `RealmState.channelReceivers`. */
export class ChannelReceivers {
  private readonly byStream = new Map<number, ChannelReceiverEntry>();

  /** Drops every channel's entry. */
  clear(): void {
    this.byStream.clear();
  }

  /** Number of channels with an entry (for tests). */
  get size(): number {
    return this.byStream.size;
  }

  /** The entry of `streamId`, built from the state when absent. */
  entry(state: RealmState, streamId: number): ChannelReceiverEntry {
    let entry = this.byStream.get(streamId);
    if (entry === undefined) {
      entry = { userIds: activeSubscribers(state, streamId), rows: null, rowsOf: null };
      this.byStream.set(streamId, entry);
    }
    return entry;
  }
}

/** The uncached computation: active subscribers of `streamId` in subscription-map order ([] for no map). */
function activeSubscribers(state: RealmState, streamId: number): number[] {
  const out: number[] = [];
  const subs = state.subscriptions.get(streamId);
  if (subs === undefined) return out;
  for (const userId of subs.keys()) if (state.users.get(userId)?.isActive) out.push(userId);
  return out;
}

/**
 * The active subscribers of channel `streamId`, in subscription order. Read-only (shared by every
 * caller until the next invalidating record); safe to call from `decide` (it creates no rows).
 */
export function receiverIds(state: RealmState, streamId: number): readonly number[] {
  return state.channelReceivers.entry(state, streamId).userIds;
}

/**
 * The active subscribers of channel `streamId` and, parallel, their `UserMessages` (created on
 * first use, as an append would). For `evolve` only: both arrays are shared, read-only.
 */
export function receiverRows(state: RealmState, streamId: number): { userIds: readonly number[]; rows: readonly UserMessages[] } {
  const entry = state.channelReceivers.entry(state, streamId);
  if (entry.rows === null || entry.rowsOf !== state.messages) {
    const index = state.messages;
    entry.rows = entry.userIds.map((userId) => index.userMessages(userId));
    entry.rowsOf = index;
  }
  return { userIds: entry.userIds, rows: entry.rows };
}

/**
 * Record types that keep every channel's receivers: they add or remove no subscription (a
 * subscription's own properties, such as its color or mute, may change), change no user's
 * `isActive`, add or remove no user, and do not replace `state.messages` (they may add or remove
 * rows inside a `UserMessages`, whose object stays the same). The frequent records of a busy
 * realm (sends, read flags, reactions, edits, topic follows) are here, so the cache survives them.
 * Checked against their `evolve` steps; when in doubt, leave a type out.
 */
export const RECEIVER_NEUTRAL_RECORDS: ReadonlySet<RealmRecord['type']> = new Set<RealmRecord['type']>([
  'message_sent',
  'message_flags_changed',
  'message_edited',
  'messages_deleted',
  'reaction_added',
  'reaction_removed',
  'submessage_added',
  'subscription_property_changed',
  'user_topic_set',
  'user_status_set',
  'drafts_created',
  'draft_edited',
  'draft_deleted',
  'drafts_cleared',
  'scheduled_message_created',
  'scheduled_message_edited',
  'scheduled_message_deleted',
  'scheduled_message_delivered',
  'scheduled_message_failed',
  'session_created',
  'sessions_ended',
  'attachment_uploaded',
  'attachment_deleted',
  'attachment_messages_changed',
]);

/** `evolve`'s invalidation step, run before every record: drops the cache unless the record is neutral. */
export function forgetChannelReceivers(state: RealmState, record: RealmRecord): void {
  if (!RECEIVER_NEUTRAL_RECORDS.has(record.type)) state.channelReceivers.clear();
}
