/**
 * Personal message flag commands (https://zulip.com/api/get-message; Zulip's
 * `zerver/actions/message_flags.py`
 * `do_update_message_flags`, `do_mark_all_as_read`, `do_mark_stream_messages_as_read`, and
 * `zerver/views/message_flags.py`).
 *
 * `update_message_flags` (POST /messages/flags, and /messages/flags/narrow with the ids its query
 * selected), checks in Zulip's order:
 * - a flag the API does not know (`wildcard_mentioned`, `is_private`, anything else) →
 *   "Invalid flag: '<flag>'"; a known flag other than read/starred/collapsed →
 *   "Flag not editable: '<flag>'"; `op` not add/remove → "Invalid message flag operation: '<op>'";
 * - marking unread (`remove read`) ignores channel messages of channels the user is not
 *   subscribed to (Zulip's invariant: unread channel messages are in subscribed channels);
 * - ids whose flag already has the target value are dropped, a message without a row counting
 *   as `read|historical` (so `add read` / `remove starred` on unknown or inaccessible ids is a
 *   silent no-op);
 * - where the target differs from `read|historical` (add starred/collapsed, remove read), the
 *   remaining ids without a row must all be accessible (`canAccessMessage`) else
 *   "Invalid message(s)" and nothing changes; they get new "historical" rows with
 *   `read|historical` adjusted to the target.
 * Event (to the user, sent even when nothing changed, as Zulip): `{type: "update_message_flags",
 * op, operation (deprecated copy), flag, messages: changed ids in request order, all: false}`,
 * plus `message_details` for remove/read. Duplicate ids in the request count once (Zulip would
 * repeat them in the event).
 *
 * `mark_all_as_read`: every unread row; event `{…, op: "add", flag: "read", messages: [],
 * all: true}`, always sent. `mark_channel_as_read` (POST /mark_stream_as_read and
 * /mark_topic_as_read): "Invalid channel ID" unless the channel exists, is not archived and the
 * user has content access (Zulip's `access_stream_by_id`); a topic (the realm's empty-topic
 * display name meaning the empty topic) the user has no row in → "No such topic '<topic>'";
 * the user's unread rows of that channel (and topic, case-insensitively); an event only when
 * some row changed.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Flag, type UserMessages } from '../../domain/message-index.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { canAccessMessage, isSubscribed } from '../../domain/access.js';
import { accessStreamById } from '../../domain/access.js';
import {
  API_FLAGS,
  DEFAULT_HISTORICAL_FLAGS,
  EDITABLE_FLAGS,
  encodeRanges,
  unreadMessageDetails,
  type EditableFlag,
  type MessageFlagsChanged,
} from '../../domain/message-flags.js';
import type { Decision, Handler } from '../decision.js';
import type { EventPayloadOf } from '../../events/schemas.js';

/** `POST /messages/flags`: `op` and `flag` exactly as sent (validated here). */
export interface UpdateMessageFlags {
  type: 'update_message_flags';
  userId: number;
  op: string;
  flag: string;
  messages: number[];
}

/** `POST /mark_all_as_read`. */
export interface MarkAllAsRead {
  type: 'mark_all_as_read';
  userId: number;
}

/** `POST /mark_stream_as_read` (`topic` null) and `POST /mark_topic_as_read`. */
export interface MarkChannelAsRead {
  type: 'mark_channel_as_read';
  userId: number;
  streamId: number;
  /** null or '' = the whole channel (Zulip's `if topic_name:`). */
  topic: string | null;
}

export type MessageFlagCommand = UpdateMessageFlags | MarkAllAsRead | MarkChannelAsRead;

/** `count`: rows whose flag changed (Zulip's return value; `updated_count` of the narrow endpoint). */
export interface MessageFlagReplies {
  update_message_flags: { count: number };
  mark_all_as_read: { count: number };
  mark_channel_as_read: { count: number };
}

type CountDecision = Result<Decision<{ count: number }>>;

function activeUser(state: RealmState, userId: number): User | undefined {
  const user = state.users.get(userId);
  return user !== undefined && user.isActive ? user : undefined;
}

/** The row flags of `id`, or undefined without a row. */
function rowFlags(rows: UserMessages | undefined, id: number): number | undefined {
  if (rows === undefined) return undefined;
  const i = rows.indexOf(id);
  return i < 0 ? undefined : rows.flags.get(i);
}

const ascending = (a: number, b: number) => a - b;

export const updateMessageFlags: Handler<UpdateMessageFlags, { count: number }> = (state, cmd) => {
  const user = activeUser(state, cmd.userId);
  if (user === undefined) return fail(Errors.noSuchUser());
  if (!API_FLAGS.has(cmd.flag)) return fail(Errors.invalidFlag(cmd.flag));
  if (!(EDITABLE_FLAGS as readonly string[]).includes(cmd.flag)) return fail(Errors.flagNotEditable(cmd.flag));
  if (cmd.op !== 'add' && cmd.op !== 'remove') return fail(Errors.invalidFlagOperation(cmd.op));
  const flag = cmd.flag as EditableFlag;
  const on = cmd.op === 'add';
  const bit = Flag[flag];
  const target = on ? bit : 0;
  const m = state.messages;
  const rows = m.users.get(user.id);

  let ids = [...new Set(cmd.messages)];
  if (flag === 'read' && !on) {
    ids = ids.filter((id) => {
      if (!m.exists(id)) return true;
      const r = state.recipients.get(m.recipient.get(id));
      return r?.type !== 'stream' || isSubscribed(state, user.id, r.streamId);
    });
  }

  const changed: number[] = [];
  const withRow: number[] = [];
  const historical: number[] = [];
  for (const id of ids) {
    const f = rowFlags(rows, id);
    if (((f ?? DEFAULT_HISTORICAL_FLAGS) & bit) === target) continue;
    changed.push(id);
    (f === undefined ? historical : withRow).push(id);
  }
  for (const id of historical) if (!canAccessMessage(state, user, id)) return fail(Errors.invalidMessage());

  const records: MessageFlagsChanged[] = [];
  const historicalFlags = (DEFAULT_HISTORICAL_FLAGS & ~bit) | target;
  if (changed.length > 0) {
    withRow.sort(ascending);
    historical.sort(ascending);
    const record: MessageFlagsChanged = {
      type: 'message_flags_changed',
      v: 1,
      userId: user.id,
      flag,
      op: cmd.op,
      ranges: rows === undefined ? [] : encodeRanges(rows, withRow, bit, on),
    };
    if (historical.length > 0) Object.assign(record, { historical, historicalFlags });
    records.push(record);
  }
  const payload: EventPayloadOf<'update_message_flags'> = on
    ? { type: 'update_message_flags', op: 'add', operation: 'add', flag, messages: changed, all: false }
    : { type: 'update_message_flags', op: 'remove', operation: 'remove', flag, messages: changed, all: false };
  if (flag === 'read' && payload.op === 'remove') {
    payload.message_details = unreadMessageDetails(state, user, changed, (id) => rowFlags(rows, id) ?? historicalFlags);
  }
  return ok({ records, events: [{ userIds: [user.id], payload }], reply: { count: changed.length } });
};

/** A read-marking decision for `changed` (ascending ids of unread rows of `rows`). */
function markRead(user: User, rows: UserMessages | undefined, changed: number[], all: boolean): CountDecision {
  const records: MessageFlagsChanged[] =
    changed.length === 0 || rows === undefined
      ? []
      : [{ type: 'message_flags_changed', v: 1, userId: user.id, flag: 'read', op: 'add', ranges: encodeRanges(rows, changed, Flag.read, true) }];
  const payload: EventPayloadOf<'update_message_flags'> = { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: all ? [] : changed, all };
  const events = all || changed.length > 0 ? [{ userIds: [user.id], payload }] : [];
  return ok({ records, events, reply: { count: changed.length } });
}

export const markAllAsRead: Handler<MarkAllAsRead, { count: number }> = (state, cmd) => {
  const user = activeUser(state, cmd.userId);
  if (user === undefined) return fail(Errors.noSuchUser());
  const rows = state.messages.users.get(user.id);
  const changed: number[] = [];
  for (let i = 0; i < (rows?.length ?? 0); i++) {
    if ((rows!.flags.get(i) & Flag.read) === 0) changed.push(rows!.ids.get(i));
  }
  return markRead(user, rows, changed, true);
};

export const markChannelAsRead: Handler<MarkChannelAsRead, { count: number }> = (state, cmd) => {
  const user = activeUser(state, cmd.userId);
  if (user === undefined) return fail(Errors.noSuchUser());
  // Zulip's `mark_stream_as_read` / `mark_topic_as_read`: `access_stream_by_id`.
  const access = accessStreamById(state, user, cmd.streamId);
  if (!access.ok) return access;
  const stream = access.value.stream;
  const m = state.messages;
  const rows = m.users.get(user.id);
  const n = rows?.length ?? 0;
  const rid = stream.recipientId;

  let topicOk: ((id: number) => boolean) | null = null;
  if (cmd.topic !== null && cmd.topic !== '') {
    const name = cmd.topic === state.settings.emptyTopicDisplayName ? '' : cmd.topic;
    const lower = name.toLowerCase();
    const cache = new Map<number, boolean>();
    topicOk = (id) => {
      const tid = m.topic.get(id);
      let hit = cache.get(tid);
      if (hit === undefined) cache.set(tid, (hit = state.topics.value(tid).toLowerCase() === lower));
      return hit;
    };
    let exists = false;
    for (let i = 0; i < n && !exists; i++) {
      const id = rows!.ids.get(i);
      exists = m.exists(id) && m.recipient.get(id) === rid && topicOk(id);
    }
    if (!exists) return fail(Errors.noSuchTopic(name));
  }

  const changed: number[] = [];
  for (let i = 0; i < n; i++) {
    if ((rows!.flags.get(i) & Flag.read) !== 0) continue;
    const id = rows!.ids.get(i);
    if (!m.exists(id) || m.recipient.get(id) !== rid) continue;
    if (topicOk !== null && !topicOk(id)) continue;
    changed.push(id);
  }
  return markRead(user, rows, changed, false);
};
