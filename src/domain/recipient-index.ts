/**
 * Secondary indexes over a realm's message columns, for `GET /messages` narrows (src/README.md: persistence,
 * https://zulip.com/api/get-messages): message ids per recipient (a channel or one direct conversation), per
 * sender and per topic id, plus topic ids by lower-cased name (Zulip matches topics
 * case-insensitively).
 *
 * Pure data, derived from `state.messages` and `state.topics`; nothing here is persisted. The
 * index is built lazily on first use and then kept in sync by appending: message ids only grow,
 * so `sync` indexes every id above its high-water mark. Message moves (the `message_edited` fold)
 * update the lists of already indexed ids in place (`messagesMoved`), so a move costs
 * O(length of the lists it touches), not a rebuild. Lists are candidate sets only: a reader must
 * re-check each id against the columns (a message may since have been deleted, which leaves a
 * stale entry until `rebuild`).
 *
 * Memory: one int32 per message per index (12 bytes per message in all) plus one small typed
 * array per recipient, sender and topic.
 */
import type { RealmState } from './realm-state.js';
import type { MessageIndex } from './message-index.js';
import type { Interner } from './interner.js';
import { MessageBit } from './message-index.js';

/** A random-access ascending sequence of message ids. */
export interface IdSequence {
  readonly length: number;
  /** The id at position `i` (0 ≤ i < length). */
  get(i: number): number;
}

/** A growable ascending list of message ids in one typed array (doubling capacity). */
export class IdList implements IdSequence {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 4) {
    this.data = new Int32Array(capacity);
  }

  get(i: number): number {
    return this.data[i]!;
  }

  /** Appends `id`, which must exceed every id already present. */
  push(id: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = id;
  }

  /** Allocated slots (memory reports). */
  get capacity(): number {
    return this.data.length;
  }

  /** Highest id, or 0 when empty. */
  last(): number {
    return this.length === 0 ? 0 : this.data[this.length - 1]!;
  }

  /** A copy of the ids as a plain typed array (for merging). */
  toArray(): Int32Array {
    return this.data.slice(0, this.length);
  }

  /**
   * Removes every id of `ids` (ascending) that is present; returns how many were removed. The
   * kept runs between removed positions are shifted with `copyWithin`: O(ids.length · log length)
   * searches plus one memmove of the list's tail after the first removed id.
   */
  removeAll(ids: readonly number[]): number {
    const positions: number[] = [];
    for (const id of ids) {
      const at = lowerBound(this, id);
      if (at < this.length && this.data[at] === id && positions[positions.length - 1] !== at) positions.push(at);
    }
    if (positions.length === 0) return 0;
    let w = positions[0]!;
    for (let k = 0; k < positions.length; k++) {
      const from = positions[k]! + 1;
      const to = k + 1 < positions.length ? positions[k + 1]! : this.length;
      this.data.copyWithin(w, from, to);
      w += to - from;
    }
    this.length = w;
    return positions.length;
  }

  /**
   * Inserts the ids of `ids` (ascending) that are not present yet, keeping the list ascending and
   * free of duplicates. Runs are shifted right with `copyWithin`, from the end: O(ids.length ·
   * log length) searches plus one memmove of the list's tail after the first insertion point.
   */
  insertAll(ids: readonly number[]): void {
    const fresh: number[] = [];
    const positions: number[] = [];
    for (const id of ids) {
      const at = lowerBound(this, id);
      if ((at < this.length && this.data[at] === id) || fresh[fresh.length - 1] === id) continue;
      fresh.push(id);
      positions.push(at);
    }
    if (fresh.length === 0) return;
    const total = this.length + fresh.length;
    if (total > this.data.length) {
      let capacity = Math.max(4, this.data.length);
      while (capacity < total) capacity *= 2;
      const bigger = new Int32Array(capacity);
      bigger.set(this.data.subarray(0, this.length));
      this.data = bigger;
    }
    // fresh[0..j] all go before the run [positions[j], end): it moves right by j + 1.
    let end = this.length;
    for (let j = fresh.length - 1; j >= 0; j--) {
      const at = positions[j]!;
      this.data.copyWithin(at + j + 1, at, end);
      this.data[at + j] = fresh[j]!;
      end = at;
    }
    this.length = total;
  }
}

/** An `IdSequence` over a plain typed array. */
export class ArraySequence implements IdSequence {
  constructor(private readonly data: Int32Array) {}
  get length(): number {
    return this.data.length;
  }
  get(i: number): number {
    return this.data[i]!;
  }
}

/** All ids `1..maxId` (every message of the realm, deleted ones included). */
export class DenseSequence implements IdSequence {
  constructor(readonly length: number) {}
  get(i: number): number {
    return i + 1;
  }
}

/** The empty sequence. */
export const EMPTY_SEQUENCE: IdSequence = new ArraySequence(new Int32Array(0));

/** First position `i` with `seq.get(i) >= id` (`seq.length` when none). Binary search. */
export function lowerBound(seq: IdSequence, id: number): number {
  let lo = 0;
  let hi = seq.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seq.get(mid) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position `i` with `seq.get(i) > id` (`seq.length` when none). */
export function upperBound(seq: IdSequence, id: number): number {
  let lo = 0;
  let hi = seq.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seq.get(mid) <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Ascending union of several ascending lists (duplicates kept once). */
export function mergeSequences(lists: readonly IdList[]): IdSequence {
  if (lists.length === 0) return EMPTY_SEQUENCE;
  if (lists.length === 1) return lists[0]!;
  let total = 0;
  for (const l of lists) total += l.length;
  const out = new Int32Array(total);
  const pos = new Array<number>(lists.length).fill(0);
  let n = 0;
  for (;;) {
    let best = -1;
    let bestId = 0;
    for (let k = 0; k < lists.length; k++) {
      const l = lists[k]!;
      if (pos[k]! < l.length) {
        const v = l.get(pos[k]!);
        if (best < 0 || v < bestId) {
          best = k;
          bestId = v;
        }
      }
    }
    if (best < 0) break;
    pos[best]!++;
    if (n === 0 || out[n - 1] !== bestId) out[n++] = bestId;
  }
  return new ArraySequence(out.subarray(0, n));
}

/** Where a message is filed: its recipient id and interned topic id. */
export interface MessagePlace {
  recipientId: number;
  topicId: number;
}

/** One moved message: its place before and after the move. */
export interface MessageMove {
  id: number;
  from: MessagePlace;
  to: MessagePlace;
}

/** Appends `id` to the array under `key`. */
function addTo(map: Map<number, number[]>, key: number, id: number): void {
  const ids = map.get(key);
  if (ids === undefined) map.set(key, [id]);
  else ids.push(id);
}

function listFor(map: Map<number, IdList>, key: number): IdList {
  let list = map.get(key);
  if (list === undefined) {
    list = new IdList();
    map.set(key, list);
  }
  return list;
}

/**
 * Message ids by recipient, sender and topic, and topic ids by lower-cased name. Get one with
 * `messageLookupIndex(state)`, which syncs it first.
 */
export class MessageLookupIndex {
  /** recipient id → ids of its messages, ascending. */
  readonly byRecipient = new Map<number, IdList>();
  /** sender user id → ids of their messages, ascending. */
  readonly bySender = new Map<number, IdList>();
  /** interned topic id → ids of messages with exactly that topic (any channel), ascending. */
  readonly byTopic = new Map<number, IdList>();
  /** `topic.toLowerCase()` → interned topic ids with that lower-cased form. */
  private readonly topicIdsByLower = new Map<string, number[]>();
  /** Highest message id indexed so far. */
  private highWater = 0;
  /** Number of interned topics already entered into `topicIdsByLower`. */
  private topicsSeen = 0;

  constructor(
    readonly messages: MessageIndex,
    readonly topics: Interner,
  ) {}

  /** Indexes every message id above the high-water mark, and every new interned topic. */
  sync(): void {
    const m = this.messages;
    const end = m.bits.length; // ids are dense: the highest written id + 1
    for (let id = this.highWater + 1; id < end; id++) {
      if ((m.bits.get(id) & MessageBit.exists) === 0) continue;
      listFor(this.byRecipient, m.recipient.get(id)).push(id);
      listFor(this.bySender, m.sender.get(id)).push(id);
      listFor(this.byTopic, m.topic.get(id)).push(id);
    }
    if (end - 1 > this.highWater) this.highWater = end - 1;
    this.syncTopics();
  }

  /** Enters every topic interned since the last call into `topicIdsByLower`. */
  private syncTopics(): void {
    const names = this.topics.toArray();
    for (let tid = this.topicsSeen; tid < names.length; tid++) {
      const lower = names[tid]!.toLowerCase();
      const ids = this.topicIdsByLower.get(lower);
      if (ids === undefined) this.topicIdsByLower.set(lower, [tid]);
      else ids.push(tid);
    }
    this.topicsSeen = names.length;
  }

  /**
   * Refiles moved messages: each id at or below the high-water mark leaves the recipient/topic
   * lists of its old place and joins those of its new one (lists stay ascending, without
   * duplicates; sender lists do not change). Ids above the mark are skipped: `sync` has not seen
   * them yet and will file them where the columns say, so no id is ever indexed twice. New topic
   * spellings are entered into `topicIdsByLower`. Cost: O(length of the touched lists + moves).
   */
  moved(moves: readonly MessageMove[]): void {
    const leaveRecipient = new Map<number, number[]>();
    const joinRecipient = new Map<number, number[]>();
    const leaveTopic = new Map<number, number[]>();
    const joinTopic = new Map<number, number[]>();
    for (const { id, from, to } of moves) {
      if (id > this.highWater) continue;
      if (from.recipientId !== to.recipientId) {
        addTo(leaveRecipient, from.recipientId, id);
        addTo(joinRecipient, to.recipientId, id);
      }
      if (from.topicId !== to.topicId) {
        addTo(leaveTopic, from.topicId, id);
        addTo(joinTopic, to.topicId, id);
      }
    }
    const ascending = (a: number, b: number) => a - b;
    for (const [key, ids] of leaveRecipient) this.byRecipient.get(key)?.removeAll(ids.sort(ascending));
    for (const [key, ids] of leaveTopic) this.byTopic.get(key)?.removeAll(ids.sort(ascending));
    for (const [key, ids] of joinRecipient) listFor(this.byRecipient, key).insertAll(ids.sort(ascending));
    for (const [key, ids] of joinTopic) listFor(this.byTopic, key).insertAll(ids.sort(ascending));
    this.syncTopics();
  }

  /** Drops everything and re-indexes from the columns (drops stale entries of deleted messages). */
  rebuild(): void {
    this.byRecipient.clear();
    this.bySender.clear();
    this.byTopic.clear();
    this.topicIdsByLower.clear();
    this.highWater = 0;
    this.topicsSeen = 0;
    this.sync();
  }

  /** Interned topic ids whose name equals `name` case-insensitively (possibly none). */
  topicIdsMatching(name: string): readonly number[] {
    return this.topicIdsByLower.get(name.toLowerCase()) ?? [];
  }
}

const indexes = new WeakMap<MessageIndex, MessageLookupIndex>();

/**
 * The realm's lookup index, created on first use and synced with the message columns (cost:
 * proportional to the messages sent since the last call; the first call indexes them all).
 */
export function messageLookupIndex(state: RealmState): MessageLookupIndex {
  let index = indexes.get(state.messages);
  if (index === undefined || index.topics !== state.topics) {
    index = new MessageLookupIndex(state.messages, state.topics);
    indexes.set(state.messages, index);
  }
  index.sync();
  return index;
}

/**
 * Tells the realm's lookup index, if one was built, that messages moved (`MessageLookupIndex.moved`;
 * called by the `message_edited` fold after `MessageIndex.relocate`). Does nothing when no index
 * exists yet: the first `messageLookupIndex` reads the relocated columns.
 */
export function messagesMoved(state: RealmState, moves: readonly MessageMove[]): void {
  const index = indexes.get(state.messages);
  if (index === undefined || index.topics !== state.topics) return;
  index.moved(moves);
}

/**
 * Ids of the existing messages of channel recipient `recipientId` whose topic equals `topic`
 * case-insensitively, ascending. Walks only the topic's lookup lists (one per interned spelling),
 * never the channel's whole history.
 */
export function topicMessageIds(state: RealmState, recipientId: number, topic: string): number[] {
  const index = messageLookupIndex(state);
  const m = state.messages;
  const out: number[] = [];
  const spellings = index.topicIdsMatching(topic);
  for (const topicId of spellings) {
    const ids = index.byTopic.get(topicId);
    if (ids === undefined) continue;
    for (let i = 0; i < ids.length; i++) {
      const id = ids.get(i);
      if (m.recipient.get(id) === recipientId && m.exists(id)) out.push(id);
    }
  }
  if (spellings.length > 1) out.sort((a, b) => a - b);
  return out;
}

/**
 * Whether some existing message of channel recipient `recipientId` with topic `topic`
 * (case-insensitive, as {@link topicMessageIds}) satisfies `accept`. Stops at the first one, in
 * no particular order: a send to a long topic asks this on every send (Zulip's
 * `visibility_policy_for_send_message` initiation check) and must not collect the whole topic.
 */
export function someTopicMessage(state: RealmState, recipientId: number, topic: string, accept: (messageId: number) => boolean): boolean {
  const index = messageLookupIndex(state);
  const m = state.messages;
  for (const topicId of index.topicIdsMatching(topic)) {
    const ids = index.byTopic.get(topicId);
    if (ids === undefined) continue;
    for (let i = 0; i < ids.length; i++) {
      const id = ids.get(i);
      if (m.recipient.get(id) === recipientId && m.exists(id) && accept(id)) return true;
    }
  }
  return false;
}
