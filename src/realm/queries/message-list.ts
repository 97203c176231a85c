/**
 * `GET /messages` as a synchronous query on the realm state (src/README.md: request path;
 * https://zulip.com/api/get-messages, Zulip's `fetch_messages` / `limit_query_to_range` /
 * `post_process_limited_query`).
 *
 * Which messages a viewer may see (Zulip's `get_base_query_for_search`): messages they have a
 * UserMessage row for, if the row's channel is public (viewer not a guest) or currently
 * subscribed (direct messages always); and, in history mode (`includesHistory`: a positive
 * channel term for a channel whose history they may read, or `channels:public` for a
 * non-guest, and no `is` term other than `is:resolved`), also messages of such channels without
 * a row, which get the flags `["read","historical"]`.
 *
 * Planning (src/README.md: persistence): the result is a walk from the anchor over one ascending candidate
 * list — the viewer's UserMessage rows, every message id (history mode), or the smallest list a
 * positive term implies (per channel / direct conversation, per topic, per sender, one id) —
 * testing each candidate until `num_before` / `num_after` matches are found. So
 * `anchor=newest&num_before=50` without a narrow touches about 50 rows; a channel or
 * conversation narrow walks only that recipient's messages.
 */
import type { ZulipError } from '../../errors.js';
import { Flag, MessageBit, type MessageIndex, type UserMessages } from '../../domain/message-index.js';
import type { MessageBody } from '../../domain/records.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { canAccessStreamHistory, channelMessageAccess } from '../../domain/access.js';
import { flagsSuffixOf, messageJsonPrefix } from '../../events/wire/message-json.js';
import { RowCursor } from '../../domain/row-cursor.js';
import {
  LARGER_THAN_MAX_MESSAGE_ID,
  MAX_POSSIBLE_MESSAGE_ID,
  compileNarrow,
  includesHistory,
  type CompiledNarrow,
  type NarrowTerm,
} from '../../domain/narrow.js';
import {
  DenseSequence,
  EMPTY_SEQUENCE,
  lowerBound,
  messageLookupIndex,
  upperBound,
  type IdSequence,
} from '../../domain/recipient-index.js';
import { highlightHtml, highlightTopic } from '../../domain/message-search.js';
import { mutedMessageTest } from '../../domain/narrow-muting.js';

/** Reads a message's stored body (raw Markdown and rendered HTML). */
export type BodyReader = (messageId: number) => MessageBody | undefined;

/** A validated `GET /messages` request. */
export interface MessageListRequest {
  /** Resolved anchor (0 = oldest, `LARGER_THAN_MAX_MESSAGE_ID` = newest), or null for `first_unread`. */
  anchor: number | null;
  includeAnchor: boolean;
  /** Non-negative; `numBefore + numAfter` ≤ 5000 (checked by the caller). */
  numBefore: number;
  numAfter: number;
  /** Cleaned narrow (`cleanNarrow`), or null for none. */
  narrow: NarrowTerm[] | null;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
  /** Highest message id readers may see (`RealmHandle.durableMessageId`); default: every id. */
  visibleUpTo?: number;
}

/** Which message ids a fetch selected, before serialization. */
export interface MessageListResult {
  /** Ascending. */
  ids: number[];
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
  historyLimited: boolean;
  /** The resolved anchor. */
  anchor: number;
}

const ROW_OK = 1;
const HISTORY_OK = 2;
const NO_ROW = -1;

/** A compiled narrow bound to one viewer: the full membership test and the candidate list. */
export class Selection {
  private readonly m: MessageIndex;
  private readonly rows: UserMessages | undefined;
  private readonly rowCursor: RowCursor;
  private readonly chosen = new Map<boolean, { seq: IdSequence; isRows: boolean }>();
  private readonly access = new Map<number, number>();
  private readonly historical = Flag.read | Flag.historical;

  /** @param visibleUpTo ids above it do not exist for this query (not yet durable) */
  constructor(
    private readonly state: RealmState,
    private readonly viewer: User,
    private readonly narrow: CompiledNarrow,
    private readonly historyMode: boolean,
    private readonly readBody: BodyReader,
    private readonly visibleUpTo: number = MAX_POSSIBLE_MESSAGE_ID,
  ) {
    this.m = state.messages;
    this.rows = state.messages.users.get(viewer.id);
    this.rowCursor = new RowCursor(this.rows);
  }

  /** ROW_OK / HISTORY_OK bits for a recipient, cached per query. */
  private accessOf(recipientId: number): number {
    let bits = this.access.get(recipientId);
    if (bits !== undefined) return bits;
    bits = 0;
    const r = this.state.recipients.get(recipientId);
    if (r?.type === 'direct') bits = ROW_OK;
    else if (r?.type === 'stream') {
      const stream = this.state.streams.get(r.streamId);
      if (stream !== undefined) {
        if (channelMessageAccess(this.state, this.viewer, stream) !== 'none') bits |= ROW_OK;
        if (this.historyMode && canAccessStreamHistory(this.state, this.viewer, stream)) bits |= HISTORY_OK;
      }
    }
    this.access.set(recipientId, bits);
    return bits;
  }

  /** The viewer's row flags for `id`, or NO_ROW. Candidates come in order: looked up near the last one. */
  rowFlags(id: number): number {
    return this.rowCursor.flags(id) ?? NO_ROW;
  }

  /**
   * Whether message `id` is in the result set. `knownFlags`: the row flags when the caller
   * walks the rows, NO_ROW when it knows there is none, undefined to look them up.
   * `firstUnread`: additionally require an unread row that `muted` (if any) does not exclude.
   */
  accepts(id: number, knownFlags?: number, firstUnread?: { muted: ((id: number) => boolean) | null }): boolean {
    const m = this.m;
    if (id <= 0 || id > this.visibleUpTo || (m.bits.get(id) & MessageBit.exists) === 0) return false;
    const rid = m.recipient.get(id);
    const access = this.accessOf(rid);
    let flags: number;
    if ((access & HISTORY_OK) !== 0 && firstUnread === undefined) {
      flags = this.narrow.usesFlags ? (knownFlags ?? this.rowFlags(id)) : 0;
      if (flags === NO_ROW) flags = this.historical;
    } else {
      if ((access & ROW_OK) === 0) return false;
      flags = knownFlags ?? this.rowFlags(id);
      if (flags === NO_ROW) return false;
    }
    if (firstUnread !== undefined) {
      if ((flags & Flag.read) !== 0) return false;
      if (firstUnread.muted?.(id)) return false;
    }
    for (const test of this.narrow.tests) if (!test(id, flags)) return false;
    const bodyTests = this.narrow.bodyTests;
    if (bodyTests.length > 0) {
      const body = this.readBody(id);
      if (body === undefined) return false;
      for (const test of bodyTests) if (!test(id, body)) return false;
    }
    return true;
  }

  /**
   * The candidate list to walk: the smallest of the lists implied by positive terms and the
   * base set (the viewer's rows; every message id in history mode). `rowsOnly` excludes the
   * all-ids base (for `first_unread`, which needs rows).
   */
  candidates(rowsOnly: boolean): { seq: IdSequence; isRows: boolean } {
    let chosen = this.chosen.get(rowsOnly);
    if (chosen === undefined) {
      chosen = this.choose(rowsOnly);
      this.chosen.set(rowsOnly, chosen);
    }
    return chosen;
  }

  private choose(rowsOnly: boolean): { seq: IdSequence; isRows: boolean } {
    let best: { seq: () => IdSequence; size: number; isRows: boolean };
    if (this.historyMode && !rowsOnly) {
      const maxId = Math.max(0, this.m.bits.length - 1);
      best = { seq: () => new DenseSequence(maxId), size: maxId, isRows: false };
    } else if (this.rows === undefined) {
      best = { seq: () => EMPTY_SEQUENCE, size: 0, isRows: false };
    } else {
      const rows = this.rows.ids;
      best = { seq: () => rows, size: rows.length, isRows: true };
    }
    for (const source of this.narrow.sources) {
      if (source.size < best.size) best = { seq: () => source.sequence(), size: source.size, isRows: false };
    }
    return { seq: best.seq(), isRows: best.isRows };
  }

  /** Up to `limit` accepted ids below `beforeId` (exclusive), newest first. */
  collectBefore(beforeId: number, limit: number): number[] {
    const out: number[] = [];
    if (limit <= 0) return out;
    const { seq, isRows } = this.candidates(false);
    const flags = isRows ? this.rows!.flags : null;
    for (let i = lowerBound(seq, beforeId) - 1; i >= 0 && out.length < limit; i--) {
      const id = seq.get(i);
      if (this.accepts(id, flags === null ? undefined : flags.get(i))) out.push(id);
    }
    return out;
  }

  /** Up to `limit` accepted ids above `afterId` (exclusive), oldest first. */
  collectAfter(afterId: number, limit: number): number[] {
    const out: number[] = [];
    if (limit <= 0) return out;
    const { seq, isRows } = this.candidates(false);
    const flags = isRows ? this.rows!.flags : null;
    for (let i = upperBound(seq, afterId); i < seq.length && out.length < limit; i++) {
      const id = seq.get(i);
      if (this.accepts(id, flags === null ? undefined : flags.get(i))) out.push(id);
    }
    return out;
  }

  /**
   * Zulip's `find_first_unread_anchor`: the oldest unread message (a row without `read`)
   * matching the narrow, skipping muted topics, and muted channels (but not their unmuted or
   * followed topics) unless the narrow names a channel (Zulip's `exclude_muting_conditions`,
   * `domain/narrow-muting.ts`); `LARGER_THAN_MAX_MESSAGE_ID` when none.
   */
  firstUnread(): number {
    const rid = this.narrow.channelRecipientId;
    const channel = rid === null ? undefined : this.state.recipients.get(rid);
    const opts = { muted: mutedMessageTest(this.state, this.viewer, channel?.type === 'stream' ? channel.streamId : null) };
    const { seq, isRows } = this.candidates(true);
    if (isRows) {
      const flags = this.rows!.flags;
      for (let i = 0; i < seq.length; i++) {
        const f = flags.get(i);
        if ((f & Flag.read) === 0 && this.accepts(seq.get(i), f, opts)) return seq.get(i);
      }
    } else {
      for (let i = 0; i < seq.length; i++) if (this.accepts(seq.get(i), undefined, opts)) return seq.get(i);
    }
    return LARGER_THAN_MAX_MESSAGE_ID;
  }
}

/**
 * Selects the messages of one `GET /messages` request (https://zulip.com/api/get-messages).
 *
 * Range semantics (Zulip's `limit_query_to_range` + `post_process_limited_query`, no
 * first-visible-message limit): anchor 0 is "oldest", ≥ 10^16 "newest" (then `num_after` is
 * ignored). Up to `num_before` matches with id < anchor and up to `num_after` with id > anchor;
 * the anchor message itself if it matches and `include_anchor` (or when neither side is asked
 * for). `found_oldest` = anchor 0 or fewer than `num_before` found before; `found_newest` =
 * newest anchor or fewer than `num_after` found after; `history_limited` is always false.
 *
 * Returns the ids or a BAD_NARROW error from compiling the narrow.
 */
export function selectMessages(
  state: RealmState,
  viewer: User,
  req: Omit<MessageListRequest, 'applyMarkdown' | 'clientGravatar' | 'allowEmptyTopicName'>,
  readBody: BodyReader,
): (MessageListResult & { narrow: CompiledNarrow }) | ZulipError {
  const index = messageLookupIndex(state);
  const narrow = compileNarrow(state, viewer, index, req.narrow);
  if (!('tests' in narrow)) return narrow;
  const visibleUpTo = Math.min(req.visibleUpTo ?? MAX_POSSIBLE_MESSAGE_ID, MAX_POSSIBLE_MESSAGE_ID);
  const selection = new Selection(state, viewer, narrow, includesHistory(state, viewer, req.narrow), readBody, visibleUpTo);

  const anchor = req.anchor ?? selection.firstUnread();
  const anchoredLeft = anchor === 0;
  const anchoredRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const numBefore = req.numBefore;
  const numAfter = anchoredRight ? 0 : req.numAfter;
  const needBefore = !anchoredLeft && numBefore > 0;
  const needAfter = !anchoredRight && numAfter > 0;

  const before = needBefore ? selection.collectBefore(anchoredRight ? Number.MAX_SAFE_INTEGER : anchor, numBefore) : [];
  const withAnchorRow = !anchoredRight && (req.includeAnchor || (!needBefore && !needAfter));
  const anchorRow = withAnchorRow && selection.accepts(anchor) ? [anchor] : [];
  const after = needAfter ? selection.collectAfter(anchor, numAfter) : [];

  before.reverse();
  return {
    ids: [...before, ...anchorRow, ...after],
    foundAnchor: anchorRow.length === 1,
    foundOldest: anchoredLeft || before.length < numBefore,
    foundNewest: anchoredRight || after.length < numAfter,
    historyLimited: false,
    anchor,
    narrow,
  };
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const EMPTY_ARRAY = Buffer.from('[]');

/** The success body of `GET /messages`, its `messages` already as JSON: UTF-8 chunks of one array. */
export interface MessageListJson {
  messagesJson: Uint8Array[];
  found_anchor: boolean;
  found_oldest: boolean;
  found_newest: boolean;
  history_limited: boolean;
  anchor: number;
}

/**
 * The success body of `GET /messages`: `{messages, found_anchor, found_oldest, found_newest,
 * history_limited, anchor}`, `messages` as JSON text: each message object with `viewer`'s flags
 * (or `["read","historical"]` without a row), from the realm's cached message texts
 * (events/wire/message-json.ts), plus, for `search` narrows,
 * `match_content` / `match_subject` with the query words in `<span class="highlight">`.
 * Returns a BAD_NARROW ZulipError instead when the narrow does not compile.
 */
export function fetchMessageList(
  state: RealmState,
  viewer: User,
  req: MessageListRequest,
  readBody: BodyReader,
): MessageListJson | ZulipError {
  const selected = selectMessages(state, viewer, req, readBody);
  if (!('ids' in selected)) return selected;
  const view = { applyMarkdown: req.applyMarkdown, clientGravatar: req.clientGravatar, allowEmptyTopicName: req.allowEmptyTopicName };
  const search = selected.narrow.search;
  const messagesJson: Uint8Array[] = [];
  const rows = new RowCursor(state.messages.users.get(viewer.id));
  for (const id of selected.ids) {
    // Search narrows add Zulip's highlighted copies (`messages_for_ids` `search_fields`).
    let highlights: Uint8Array | undefined;
    if (search !== null) {
      const body = readBody(id);
      if (body === undefined) continue;
      const topic = state.topics.value(state.messages.topic.get(id));
      highlights = Buffer.from(`,"match_content":${JSON.stringify(highlightHtml(body.rendered, search))},"match_subject":${JSON.stringify(highlightTopic(topic, search))}`);
    }
    const prefix = messageJsonPrefix(state, id, readBody, view);
    if (prefix === undefined) continue;
    messagesJson.push(messagesJson.length === 0 ? OPEN : COMMA, prefix);
    if (highlights !== undefined) messagesJson.push(highlights);
    messagesJson.push(flagsSuffixOf(rows.flags(id)));
  }
  messagesJson.push(messagesJson.length === 0 ? EMPTY_ARRAY : CLOSE);
  return {
    messagesJson,
    found_anchor: selected.foundAnchor,
    found_oldest: selected.foundOldest,
    found_newest: selected.foundNewest,
    history_limited: selected.historyLimited,
    anchor: selected.anchor,
  };
}
