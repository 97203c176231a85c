/**
 * Personal message flags (https://zulip.com/api/get-message; Zulip's `zerver/actions/message_flags.py` and
 * `UserMessage.flags`): the record of a flag change, its `evolve`, and the helpers the handlers
 * share (which flags the API may name or change, compact id ranges, the `message_details` of an
 * `update_message_flags` remove/read event).
 *
 * Storage (src/README.md: persistence): one `message_flags_changed` record per command, however many rows it
 * touches. The changed rows are written as `[first, last]` message-id ranges over the user's
 * UserMessage rows: every row of the user whose id lies in a range gets the flag set or cleared.
 * The handler builds the ranges so that each row inside a range either changes or already has
 * the target value, so "mark 20 000 messages as read" is one range when no unrelated unread row
 * lies between them (`encodeRanges`). New "historical" rows (messages of channels with shared
 * history the user had no row for) are listed by id.
 */
import { Flag, type UserMessages } from './message-index.js';
import type { RealmState, User } from './realm-state.js';
import { lowerBound } from './recipient-index.js';

/** The flags a user may change through the API (Zulip: API flags minus `NON_EDITABLE_FLAGS`). */
export const EDITABLE_FLAGS = ['read', 'starred', 'collapsed'] as const;
export type EditableFlag = (typeof EDITABLE_FLAGS)[number];

/**
 * Every flag name the API knows (Zulip's `UserMessage.ALL_FLAGS` minus `NON_API_FLAGS`
 * `is_private` and `active_mobile_push_notification`): a name outside it is "Invalid flag",
 * a name inside it but not editable is "Flag not editable". `force_expand` / `force_collapse`
 * are Zulip's retired flags (never set). The deprecated `wildcard_mentioned` is not a flag.
 */
export const API_FLAGS: ReadonlySet<string> = new Set([...Object.keys(Flag), 'force_expand', 'force_collapse']);

/** Zulip's `DEFAULT_HISTORICAL_FLAGS`: the flags of a visible message without a row. */
export const DEFAULT_HISTORICAL_FLAGS = Flag.historical | Flag.read;

/** A user's flag changed on some of their messages (POST /messages/flags, mark-as-read endpoints). */
export interface MessageFlagsChanged {
  type: 'message_flags_changed';
  v: 1;
  userId: number;
  flag: EditableFlag;
  op: 'add' | 'remove';
  /**
   * Flat `[first, last, first, last, …]` message-id ranges (inclusive, ascending, disjoint): the
   * flag is set (`add`) or cleared (`remove`) on every row of the user in them.
   */
  ranges: number[];
  /** New historical rows, ascending message ids, each created with `historicalFlags`. */
  historical?: number[];
  historicalFlags?: number;
}

/** `evolve` of `message_flags_changed`: sets/clears the bit over the ranges, then inserts the historical rows. */
export function messageFlagsChanged(state: RealmState, r: MessageFlagsChanged): void {
  const rows = state.messages.userMessages(r.userId);
  const bit = Flag[r.flag];
  const on = r.op === 'add';
  for (let k = 0; k + 1 < r.ranges.length; k += 2) {
    const last = r.ranges[k + 1]!;
    for (let i = lowerBound(rows.ids, r.ranges[k]!); i < rows.length && rows.ids.get(i) <= last; i++) {
      const before = rows.flags.get(i);
      const after = on ? before | bit : before & ~bit;
      if (after !== before) rows.flags.set(i, after);
    }
  }
  if (r.historical !== undefined && r.historical.length > 0) rows.insertMany(r.historical, r.historicalFlags ?? DEFAULT_HISTORICAL_FLAGS);
}

/**
 * The ranges of a `MessageFlagsChanged` for `changed` (ascending ids, each with a row in `rows`
 * whose `bit` differs from `on`). A range spans the rows between two changed ids as long as those
 * rows already have the target value; a row that would wrongly change ends the range.
 */
export function encodeRanges(rows: UserMessages, changed: readonly number[], bit: number, on: boolean): number[] {
  const out: number[] = [];
  if (changed.length === 0) return out;
  let first = -1;
  let last = -1;
  let c = 0;
  for (let i = lowerBound(rows.ids, changed[0]!); i < rows.length && c < changed.length; i++) {
    const id = rows.ids.get(i);
    if (id === changed[c]) {
      if (first < 0) first = id;
      last = id;
      c++;
    } else if (((rows.flags.get(i) & bit) !== 0) !== on && first >= 0) {
      out.push(first, last);
      first = -1;
    }
  }
  if (first >= 0) out.push(first, last);
  return out;
}

/** One entry of an `update_message_flags` remove/read event's `message_details` (OpenAPI). */
export type UnreadMessageDetails =
  | { type: 'private'; user_ids: number[]; mentioned?: true }
  | { type: 'stream'; stream_id: number; topic: string; unmuted_stream_msg: boolean; mentioned?: true };

const WILDCARD_BITS = Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned;

/**
 * Zulip's `get_raw_unread_data(user, ids)` + `format_unread_message_details` for messages that
 * just became unread, as `unread_msgs` (src/events/register/messages.ts) counts them: channel
 * muting decides `unmuted_stream_msg`; `mentioned` for a `mentioned` flag, or a wildcard mention
 * outside a muted channel (always in direct messages). `flagsOf` gives each message's row flags
 * (historical rows being created have none of the mention bits). Keys are message ids as strings.
 */
export function unreadMessageDetails(
  state: RealmState,
  user: User,
  ids: readonly number[],
  flagsOf: (id: number) => number,
): Record<string, UnreadMessageDetails> {
  const m = state.messages;
  const out: Record<string, UnreadMessageDetails> = {};
  for (const id of ids) {
    const recipient = state.recipients.get(m.recipient.get(id));
    if (recipient === undefined) continue;
    const flags = flagsOf(id);
    if (recipient.type === 'stream') {
      const sub = state.subscriptions.get(recipient.streamId)?.get(user.id);
      const unmuted = sub === undefined || !sub.isMuted;
      const details: UnreadMessageDetails = {
        type: 'stream',
        stream_id: recipient.streamId,
        topic: state.topics.value(m.topic.get(id)),
        unmuted_stream_msg: unmuted,
      };
      if ((flags & Flag.mentioned) !== 0 || (unmuted && (flags & WILDCARD_BITS) !== 0)) details.mentioned = true;
      out[String(id)] = details;
    } else {
      const details: UnreadMessageDetails = {
        type: 'private',
        user_ids: recipient.userIds.filter((u) => u !== user.id).sort((a, b) => a - b),
      };
      if ((flags & (Flag.mentioned | WILDCARD_BITS)) !== 0) details.mentioned = true;
      out[String(id)] = details;
    }
  }
  return out;
}
