/**
 * Inverted index of message words for `search:` narrows (https://zulip.com/api/get-messages;
 * Zulip answers them with PostgreSQL full-text search on `zerver_message.search_tsvector`,
 * zerver/lib/narrow.py `NarrowBuilder._by_search_tsearch`). For every word a message's raw
 * content or topic contains (`indexableWords`), the ascending list of those message ids.
 *
 * The lists are candidate sets, never answers: a search still checks every candidate with
 * `matchesSearch` on the stored body, so a list may hold stale ids (deleted messages, words of a
 * topic a message was moved away from) but must never miss one. It is kept in the realm state
 * and fed by `evolve` (sends, content edits, topic moves); deleted ids stay until the process
 * restarts (the query walk drops them on the `exists` bit), like `recipient-index.ts`.
 *
 * Nothing is persisted. A state restored from a snapshot starts with the messages it already
 * holds (ids below `backfillBelow`) unindexed; the realm layer feeds their bodies in ascending id
 * order with `backfill` in small time slices after start, and the index is used only once
 * `complete` (until then a search scans, as before). So the two tiers stay ascending with plain
 * appends: `old` (backfilled ids) and `live` (ids evolve saw first), and a word's candidates are
 * old ++ live. Changes evolve sees for an id the backfill has not reached are parked in `pending`
 * and merged when it gets there.
 *
 * Memory: a word found in one message costs a Map entry holding a number; otherwise an `IdList`
 * (4 bytes per posting, doubling capacity). `stats()` reports the estimate.
 */
import { indexableWords } from './message-search.js';
import { ArraySequence, IdList, lowerBound, type IdSequence } from './recipient-index.js';
import type { RealmState } from './realm-state.js';
import type { MessageEdited } from './message-edits.js';

/** One word's postings in one tier: a single id, or a list of at least two. */
type Postings = number | IdList;

function addPosting(tier: Map<string, Postings>, word: string, id: number): void {
  const p = tier.get(word);
  if (p === undefined) tier.set(word, id);
  else if (typeof p === 'number') {
    if (p === id) return;
    const list = new IdList(2);
    list.push(Math.min(p, id));
    list.push(Math.max(p, id));
    tier.set(word, list);
  } else if (id > p.last()) p.push(id);
  else p.insertAll([id]);
}

function removePosting(tier: Map<string, Postings>, word: string, id: number): void {
  const p = tier.get(word);
  if (p === undefined) return;
  if (typeof p === 'number') {
    if (p === id) tier.delete(word);
  } else if (p.removeAll([id]) > 0 && p.length === 0) tier.delete(word);
}

const sizeOf = (p: Postings | undefined): number => (p === undefined ? 0 : typeof p === 'number' ? 1 : p.length);
const sequenceOf = (p: Postings | undefined): IdSequence =>
  p === undefined ? new ArraySequence(new Int32Array(0)) : typeof p === 'number' ? new ArraySequence(Int32Array.of(p)) : p;

/** `a` followed by `b` (every id of `a` below every id of `b`). */
class ConcatSequence implements IdSequence {
  readonly length: number;
  constructor(
    private readonly a: IdSequence,
    private readonly b: IdSequence,
  ) {
    this.length = a.length + b.length;
  }
  get(i: number): number {
    return i < this.a.length ? this.a.get(i) : this.b.get(i - this.a.length);
  }
}

/**
 * A search for all of `words` (lower-cased, at least one) through the index: `source`, the
 * rarest word's ascending ids (its `size` known without walking it), and `test`, whether an id
 * also has every other word (a binary search per word: no list is intersected up front, so a walk
 * that stops after 50 matches costs only what it walks).
 */
export function searchCandidates(
  index: MessageWordIndex,
  words: readonly string[],
): { source: { size: number; sequence(): IdSequence }; test: ((id: number) => boolean) | null } {
  const byCount = [...words].sort((x, y) => index.count(x) - index.count(y));
  const rarest = byCount[0]!;
  const others = byCount.slice(1);
  return {
    source: { size: index.count(rarest), sequence: () => index.candidates(rarest) },
    test: others.length === 0 ? null : (id) => others.every((w) => index.has(w, id)),
  };
}

/** Size figures of the index (`stats`). */
export interface WordIndexStats {
  /** Distinct words. */
  words: number;
  /** (word, message) pairs. */
  postings: number;
  /** Rough heap estimate in bytes: Map entries, word strings, list objects and typed arrays. */
  estimatedBytes: number;
  /** Whether every message is indexed (searches use the index). */
  complete: boolean;
}

/** The inverted word index of one realm's messages. */
export class MessageWordIndex {
  private readonly old = new Map<string, Postings>();
  private readonly live = new Map<string, Postings>();
  /** Words of changes to ids in [cursor, backfillBelow), merged when the backfill reaches them. */
  private readonly pending = new Map<number, Set<string>>();
  /** Next id the backfill indexes. */
  private cursor = 1;

  /** @param backfillBelow ids below it already exist and must be fed to `backfill` (1 = none). */
  constructor(readonly backfillBelow = 1) {}

  /** Whether every message below `backfillBelow` has been backfilled. */
  get complete(): boolean {
    return this.cursor >= this.backfillBelow;
  }

  /** The next id `backfill` expects (≥ `backfillBelow` once complete). */
  get backfillCursor(): number {
    return this.cursor;
  }

  /** Adds `words` for message `id` to the tier (or the pending set) it belongs to. */
  private addWords(id: number, words: Iterable<string>): void {
    if (id >= this.backfillBelow) {
      for (const w of words) addPosting(this.live, w, id);
    } else if (id < this.cursor) {
      for (const w of words) addPosting(this.old, w, id);
    } else {
      let set = this.pending.get(id);
      if (set === undefined) this.pending.set(id, (set = new Set()));
      for (const w of words) set.add(w);
    }
  }

  /** A new message (evolve of `message_sent`): indexes its raw content and topic. */
  messageSent(id: number, content: string, topic: string): void {
    this.addWords(id, indexableWords(topic, indexableWords(content)));
  }

  /**
   * A content edit (evolve of `message_edited` with content): adds the new words and drops the
   * words only the previous content had (`topic`: the message's topic after the edit).
   */
  contentEdited(id: number, prevContent: string, content: string, topic: string): void {
    const now = indexableWords(topic, indexableWords(content));
    this.addWords(id, now);
    // An id the backfill has not reached has no postings yet: it will read the stored body.
    const tier = id >= this.backfillBelow ? this.live : id < this.cursor ? this.old : undefined;
    if (tier === undefined) return;
    for (const w of indexableWords(prevContent)) if (!now.has(w)) removePosting(tier, w, id);
  }

  /**
   * Messages moved to topic `topic` (evolve of `message_edited` with a topic): adds its words.
   * The old topic's words stay (the content may share them; the body check drops them).
   */
  topicChanged(ids: readonly number[], topic: string): void {
    const words = indexableWords(topic);
    if (words.size === 0) return;
    for (const id of ids) this.addWords(id, words);
  }

  /**
   * Backfills message `id` (must equal `backfillCursor`, else throws): `content` is its stored
   * raw content, undefined for an id without a message (deleted, never written); `topic` its
   * topic. Words parked in `pending` for it are added too. Advances the cursor.
   */
  backfill(id: number, content: string | undefined, topic: string): void {
    if (id !== this.cursor || id >= this.backfillBelow) throw new Error(`word index backfill out of order: ${id} (expected ${this.cursor})`);
    const words = this.pending.get(id) ?? new Set<string>();
    this.pending.delete(id);
    if (content !== undefined) indexableWords(topic, indexableWords(content, words));
    for (const w of words) addPosting(this.old, w, id);
    this.cursor = id + 1;
  }

  /** How many message ids have `word` (lower-cased, as `indexableWords` gives it). */
  count(word: string): number {
    return sizeOf(this.old.get(word)) + sizeOf(this.live.get(word));
  }

  /** Whether message `id` is in `word`'s list (binary search). */
  has(word: string, id: number): boolean {
    const tier = id >= this.backfillBelow ? this.live.get(word) : this.old.get(word);
    if (tier === undefined) return false;
    if (typeof tier === 'number') return tier === id;
    const at = lowerBound(tier, id);
    return at < tier.length && tier.get(at) === id;
  }

  /** The ascending candidate ids for `word`. */
  candidates(word: string): IdSequence {
    const old = this.old.get(word);
    const live = this.live.get(word);
    if (old === undefined) return sequenceOf(live);
    if (live === undefined) return sequenceOf(old);
    return new ConcatSequence(sequenceOf(old), sequenceOf(live));
  }

  /** Size figures (walks every word: for reports, not for the request path). */
  stats(): WordIndexStats {
    let postings = 0;
    let bytes = 0;
    const words = new Set<string>();
    for (const tier of [this.old, this.live]) {
      for (const [w, p] of tier) {
        words.add(w);
        // Map entry ~40 B, string header + UTF-16 chars, list object ~60 B + typed array capacity.
        bytes += 40 + 16 + 2 * w.length;
        if (typeof p === 'number') postings += 1;
        else {
          postings += p.length;
          bytes += 60 + 4 * p.capacity;
        }
      }
    }
    return { words: words.size, postings, estimatedBytes: bytes, complete: this.complete };
  }
}

/**
 * The word index part of folding `message_edited` (run after `messageEdited`): a content edit
 * re-indexes the edited message, a topic change adds the new topic's words to every moved id.
 */
export function wordIndexMessageEdited(state: RealmState, r: MessageEdited): void {
  const index = state.wordIndex;
  if (index === undefined) return;
  if (r.content !== undefined) {
    const topic = state.topics.value(state.messages.topic.get(r.messageId));
    index.contentEdited(r.messageId, r.content.prevContent, r.content.content, topic);
  }
  if (r.topic !== undefined) index.topicChanged(r.messageIds, r.topic);
}
