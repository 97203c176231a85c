/**
 * Compact in-memory index of a realm's messages (src/README.md: persistence). Message ids are dense per realm
 * (1, 2, 3 …), so each attribute is a typed-array `Column` indexed by id; strings are interned
 * ids. Raw Markdown and rendered HTML are NOT here: they live in the LMDB bodies table.
 *
 * Per-user rows (Zulip's UserMessage: which messages a user received, with flags) are two
 * small-chunked columns per user, kept sorted by message id.
 */
import { Column } from './column.js';

/** Zulip's UserMessage flags as bits (https://zulip.com/api/get-message). */
export const Flag = {
  read: 1 << 0,
  starred: 1 << 1,
  collapsed: 1 << 2,
  mentioned: 1 << 3,
  stream_wildcard_mentioned: 1 << 4,
  topic_wildcard_mentioned: 1 << 5,
  group_mentioned: 1 << 6,
  has_alert_word: 1 << 7,
  historical: 1 << 8,
} as const;
export type FlagName = keyof typeof Flag;
const FLAG_NAMES = Object.keys(Flag) as FlagName[];

/** Flag names for a bitmask, in Zulip's order, plus the legacy `wildcard_mentioned` alias. */
export function flagNames(bits: number): string[] {
  const out: string[] = [];
  for (const name of FLAG_NAMES) if (bits & Flag[name]) out.push(name);
  if (bits & (Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned)) out.push('wildcard_mentioned');
  return out;
}

const sharedNames = new Map<number, readonly string[]>();

/**
 * `flagNames(bits)` as one frozen array per bitmask, shared by every caller: for event payloads
 * built per recipient on every send (they are serialized, never changed).
 */
export function sharedFlagNames(bits: number): readonly string[] {
  let names = sharedNames.get(bits);
  if (names === undefined) sharedNames.set(bits, (names = Object.freeze(flagNames(bits))));
  return names;
}

/** Per-message bits. */
export const MessageBit = { exists: 1, isMe: 2, edited: 4, moved: 8, resolveTopicNotice: 16 } as const;

/** One user's received messages: parallel sorted ids and flags. */
export class UserMessages {
  /** Restored columns may be passed in (snapshots); new lists get small-chunked ones. */
  constructor(
    readonly ids: Column = new Column('int32', 8),
    readonly flags: Column = new Column('uint16', 8),
  ) {}

  get length(): number {
    return this.ids.length;
  }

  /** Position of `messageId`, or -1. Binary search: ids are sorted ascending. */
  indexOf(messageId: number): number {
    let lo = 0;
    let hi = this.ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids.get(mid);
      if (v === messageId) return mid;
      if (v < messageId) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Appends a row; `messageId` must exceed every id already present. */
  append(messageId: number, flags: number): void {
    this.flags.set(this.ids.length, flags);
    this.ids.push(messageId);
  }

  /**
   * Inserts a row keeping ids sorted (message moves into a channel with protected history);
   * does nothing when the row exists. O(rows after the position).
   */
  insert(messageId: number, flags: number): void {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids.get(mid) < messageId) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.ids.length && this.ids.get(lo) === messageId) return;
    const n = this.ids.length;
    // Grow by one, then shift the tail up a chunk run at a time.
    this.ids.set(n, 0);
    this.flags.set(n, 0);
    this.ids.copyWithin(lo + 1, lo, n);
    this.flags.copyWithin(lo + 1, lo, n);
    this.flags.set(lo, flags);
    this.ids.set(lo, messageId);
  }

  /**
   * Removes the row for `messageId` if present (users losing access on a move). The columns keep
   * their length: the freed last slot is set to 0 and `length` shrinks via `restoreLength`.
   */
  remove(messageId: number): boolean {
    const at = this.indexOf(messageId);
    if (at < 0) return false;
    const last = this.ids.length - 1;
    this.ids.copyWithin(at, at + 1, last + 1);
    this.flags.copyWithin(at, at + 1, last + 1);
    this.ids.set(last, 0);
    this.flags.set(last, 0);
    this.ids.restoreLength(last);
    this.flags.restoreLength(last);
    return true;
  }

  /**
   * Inserts rows for `messageIds` (ascending, none present yet: Zulip's "historical"
   * UserMessages), all with `flags`, keeping the ids
   * sorted: one merge pass from the end, O(rows after the first insertion point + k). Every row
   * that moves is rewritten with `Column.set`, so the chunks it lands in are marked dirty and the
   * next snapshot persists them (with the new length).
   */
  insertMany(messageIds: readonly number[], flags: number): void {
    let j = messageIds.length - 1;
    if (j < 0) return;
    let i = this.ids.length - 1;
    for (let w = i + j + 1; j >= 0; w--) {
      const newId = messageIds[j]!;
      if (i >= 0 && this.ids.get(i) > newId) {
        this.ids.set(w, this.ids.get(i));
        this.flags.set(w, this.flags.get(i));
        i--;
      } else {
        this.ids.set(w, newId);
        this.flags.set(w, flags);
        j--;
      }
    }
  }

  /** Highest message id, or -1 when empty. */
  maxId(): number {
    return this.ids.length === 0 ? -1 : this.ids.get(this.ids.length - 1);
  }
}

/** Attributes of a message as stored in the index. */
export interface IndexedMessage {
  id: number;
  senderId: number;
  recipientId: number;
  topicId: number;
  /** UNIX seconds. */
  timestamp: number;
  clientId: number;
  bits: number;
}

export class MessageIndex {
  readonly sender: Column;
  readonly recipient: Column;
  readonly topic: Column;
  readonly timestamp: Column;
  readonly client: Column;
  readonly bits: Column;
  /** user id → received messages. */
  readonly users = new Map<number, UserMessages>();

  /**
   * @param restored columns by snapshot name (see `columns()`), adopted as they are so the
   *   snapshot store keeps tracking their dirty chunks; missing ones start empty.
   */
  constructor(restored: Readonly<Record<string, Column>> = {}) {
    this.sender = restored['msg:sender'] ?? new Column('int32');
    this.recipient = restored['msg:recipient'] ?? new Column('int32');
    this.topic = restored['msg:topic'] ?? new Column('int32');
    this.timestamp = restored['msg:timestamp'] ?? new Column('uint32');
    this.client = restored['msg:client'] ?? new Column('int32');
    this.bits = restored['msg:bits'] ?? new Column('uint8');
  }

  /** Realm-wide columns by snapshot name. */
  columns(): Record<string, Column> {
    return {
      'msg:sender': this.sender,
      'msg:recipient': this.recipient,
      'msg:topic': this.topic,
      'msg:timestamp': this.timestamp,
      'msg:client': this.client,
      'msg:bits': this.bits,
    };
  }

  /** True when a message with this id exists (and is not deleted). */
  exists(id: number): boolean {
    return Number.isInteger(id) && id > 0 && (this.bits.get(id) & MessageBit.exists) !== 0;
  }

  /** The message's attributes, or undefined when it does not exist. */
  get(id: number): IndexedMessage | undefined {
    if (!this.exists(id)) return undefined;
    return {
      id,
      senderId: this.sender.get(id),
      recipientId: this.recipient.get(id),
      topicId: this.topic.get(id),
      timestamp: this.timestamp.get(id),
      clientId: this.client.get(id),
      bits: this.bits.get(id),
    };
  }

  /** Stores a new message's attributes. */
  add(m: IndexedMessage): void {
    this.sender.set(m.id, m.senderId);
    this.recipient.set(m.id, m.recipientId);
    this.topic.set(m.id, m.topicId);
    this.timestamp.set(m.id, m.timestamp);
    this.client.set(m.id, m.clientId);
    this.bits.set(m.id, m.bits | MessageBit.exists);
  }

  /** Marks message `id` deleted: `exists` becomes false; its attributes stay (ids are never reused). */
  markDeleted(id: number): void {
    if (this.exists(id)) this.bits.set(id, this.bits.get(id) & ~MessageBit.exists);
  }

  /** Moves a message to another recipient and/or topic (message edits; `message-edits.ts`). */
  relocate(id: number, recipientId: number, topicId: number): void {
    this.recipient.set(id, recipientId);
    this.topic.set(id, topicId);
  }

  /** Sets (`on`) or clears per-message bits (`MessageBit`) of an existing message. */
  setBits(id: number, bits: number, on: boolean): void {
    const cur = this.bits.get(id);
    this.bits.set(id, on ? cur | bits : cur & ~bits);
  }

  /** The user's rows, created on first use. */
  userMessages(userId: number): UserMessages {
    let um = this.users.get(userId);
    if (um === undefined) {
      um = new UserMessages();
      this.users.set(userId, um);
    }
    return um;
  }

  /** The user's flags for a message, or undefined when the user has no row for it. */
  userFlags(userId: number, messageId: number): number | undefined {
    const um = this.users.get(userId);
    if (um === undefined) return undefined;
    const i = um.indexOf(messageId);
    return i < 0 ? undefined : um.flags.get(i);
  }
}
