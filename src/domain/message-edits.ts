/**
 * Message edits and moves (https://zulip.com/api/get-message `edit_history`;
 * https://zulip.com/api/get-message-history, https://zulip.com/api/update-message): the
 * `message_edited` record, its fold, the per-message edit history kept in `RealmState.editHistory`,
 * and the derived wire fields (`edit_history`, `last_edit_timestamp`, `last_moved_timestamp`).
 *
 * Storage: raw Markdown and HTML live in the LMDB bodies table, so a content edit's record carries
 * the new body (written by `bodiesOf` in the same transaction) and the previous one (kept in the
 * history entry, as Zulip keeps `prev_content` in `Message.edit_history`).
 *
 * Units: every timestamp is integer UNIX seconds.
 */
import type { RealmState } from './realm-state.js';
import { Flag, MessageBit } from './message-index.js';
import { messagesMoved, type MessageMove } from './recipient-index.js';

/** Zulip's prefix of resolved topics (`RESOLVED_TOPIC_PREFIX`). */
export const RESOLVED_TOPIC_PREFIX = '✔ ';

/**
 * One stored edit event (Zulip's `EditHistoryEvent`), newest first in storage. Keys are present
 * only for what changed: content (`prevContent`, `prevRendered`), topic (`prevTopic` + `topic`),
 * channel (`prevStream` + `stream`). Messages moved along with the edited one (propagate_mode)
 * get topic/channel keys only.
 */
export interface EditHistoryEntry {
  /** The editor; null only for pre-2017 imports. */
  userId: number | null;
  /** UNIX seconds. */
  timestamp: number;
  prevContent?: string;
  prevRendered?: string;
  prevTopic?: string;
  topic?: string;
  prevStream?: number;
  stream?: number;
}

/** A content change of the edited message (https://zulip.com/api/get-message-history). */
export interface ContentChange {
  content: string;
  rendered: string;
  isMeMessage: boolean;
  prevContent: string;
  prevRendered: string;
  /** Mention flag bits per user after re-rendering (replaces the old mention bits of rows). */
  userFlags?: Record<number, number>;
}

/**
 * `message_edited` v1: one `PATCH /messages/{id}`. `messageIds` are every changed message
 * (ascending, `messageId` included); topic/channel changes apply to all of them, the content
 * change only to `messageId`. UserMessage rows: `removeUserIds` lose theirs for every changed
 * message, `addUserIds` gain a `read` row (moves into channels with protected history).
 */
export interface MessageEdited {
  type: 'message_edited';
  v: 1;
  messageId: number;
  messageIds: number[];
  userId: number;
  /** UNIX seconds. */
  timestamp: number;
  content?: ContentChange;
  /** Topic change: old and new topic ('' = empty topic). */
  prevTopic?: string;
  topic?: string;
  /** Channel change: old and new channel ids, and the new channel's recipient id. */
  prevStream?: number;
  stream?: number;
  recipientId?: number;
  removeUserIds?: number[];
  addUserIds?: number[];
}

/** Bits re-derived from rendering on a content edit. */
const MENTION_BITS =
  Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned | Flag.has_alert_word;

/** The message's stored edit history, newest first ([] when never edited). */
export function editHistoryOf(state: RealmState, id: number): readonly EditHistoryEntry[] {
  return state.editHistory?.get(id) ?? [];
}

/** Number of content edits of a message (a version for optimistic concurrency checks). */
export function contentVersion(state: RealmState, id: number): number {
  let n = 0;
  for (const e of editHistoryOf(state, id)) if (e.prevContent !== undefined) n++;
  return n;
}

/** Whether an edit entry is only a resolve/unresolve of the topic (Zulip: not counted as a move). */
export function isResolveToggle(e: EditHistoryEntry): boolean {
  if (e.prevStream !== undefined || e.prevTopic === undefined || e.topic === undefined) return false;
  const p = RESOLVED_TOPIC_PREFIX;
  return e.topic === p + e.prevTopic || e.prevTopic === p + e.topic;
}

/** Folds a `message_edited` record. */
export function messageEdited(state: RealmState, r: MessageEdited): void {
  const m = state.messages;
  const history = (state.editHistory ??= new Map());
  const moved = r.topic !== undefined || r.stream !== undefined;
  const moves: MessageMove[] = [];
  for (const id of r.messageIds) {
    const entry: EditHistoryEntry = { userId: r.userId, timestamp: r.timestamp };
    if (id === r.messageId && r.content !== undefined) {
      entry.prevContent = r.content.prevContent;
      entry.prevRendered = r.content.prevRendered;
    }
    if (r.topic !== undefined) {
      entry.prevTopic = r.prevTopic!;
      entry.topic = r.topic;
    }
    if (r.stream !== undefined) {
      entry.prevStream = r.prevStream!;
      entry.stream = r.stream;
    }
    history.set(id, [entry, ...(history.get(id) ?? [])]);
    if (moved) {
      const from = { recipientId: m.recipient.get(id), topicId: m.topic.get(id) };
      const recipientId = r.recipientId ?? from.recipientId;
      const topicId = r.topic !== undefined ? state.topics.intern(r.topic) : from.topicId;
      m.relocate(id, recipientId, topicId);
      moves.push({ id, from, to: { recipientId, topicId } });
      if (!isResolveToggle(entry)) m.setBits(id, MessageBit.moved, true);
    }
    for (const userId of r.removeUserIds ?? []) m.users.get(userId)?.remove(id);
    for (const userId of r.addUserIds ?? []) m.userMessages(userId).insert(id, Flag.read);
  }
  if (r.content !== undefined) {
    const id = r.messageId;
    m.setBits(id, MessageBit.edited, true);
    m.setBits(id, MessageBit.isMe, r.content.isMeMessage);
    for (const [userId, um] of m.users) {
      const at = um.indexOf(id);
      if (at < 0) continue;
      const old = um.flags.get(at);
      const next = (old & ~MENTION_BITS) | (r.content.userFlags?.[userId] ?? 0);
      if (next !== old) um.flags.set(at, next);
    }
  }
  if (moved) messagesMoved(state, moves);
}

/** Snapshot form of `state.editHistory`: `[messageId, entries newest first]`. */
export type EditHistoryCore = Array<[number, EditHistoryEntry[]]>;

/** `state.editHistory` for the snapshot core. */
export function editHistoryToCore(state: RealmState): EditHistoryCore {
  return [...(state.editHistory ?? [])];
}

/** Restores `state.editHistory` (`undefined` = an older snapshot: nothing edited). */
export function editHistoryFromCore(state: RealmState, core: EditHistoryCore | undefined): void {
  state.editHistory = new Map((core ?? []).map(([id, entries]) => [id, entries.map((e) => ({ ...e }))]));
}

/** Empty topic → the realm's display name unless the client understands the empty topic. */
export function topicForClient(state: RealmState, topic: string, allowEmptyTopicName: boolean): string {
  return topic === '' && !allowEmptyTopicName ? state.settings.emptyTopicDisplayName : topic;
}


/**
 * One snapshot of `GET /messages/{id}/history` before its diff is added
 * (https://zulip.com/api/get-message-history).
 */
export interface HistorySnapshot {
  topic: string;
  content: string;
  rendered_content: string;
  timestamp: number;
  user_id: number | null;
  prev_topic?: string;
  stream?: number;
  prev_stream?: number;
  prev_content?: string;
  prev_rendered_content?: string;
  content_html_diff?: string;
}

/**
 * The message's history snapshots, oldest first (Zulip's `fill_edit_history_entries`, reversed):
 * walks the stored entries newest→oldest carrying the "current" content and topic; each snapshot
 * holds the values after its edit. `diff(prev, next)` builds `content_html_diff`.
 */
export function historySnapshots(
  state: RealmState,
  id: number,
  body: { content: string; rendered: string },
  allowEmptyTopicName: boolean,
  diff: (before: string, after: string) => string,
): HistorySnapshot[] {
  const m = state.messages;
  const isChannel = state.recipients.get(m.recipient.get(id))?.type === 'stream';
  const topic = (t: string) => (isChannel ? topicForClient(state, t, allowEmptyTopicName) : t);
  let content = body.content;
  let rendered = body.rendered;
  let currentTopic = topic(state.topics.value(m.topic.get(id)));
  const out: HistorySnapshot[] = [];
  for (const e of editHistoryOf(state, id)) {
    const snap: HistorySnapshot = { topic: currentTopic, content, rendered_content: rendered, timestamp: e.timestamp, user_id: e.userId };
    if (e.prevTopic !== undefined) {
      currentTopic = topic(e.prevTopic);
      snap.prev_topic = currentTopic;
    }
    if (e.prevContent !== undefined) {
      snap.prev_content = e.prevContent;
      snap.prev_rendered_content = e.prevRendered!;
      snap.content_html_diff = diff(e.prevRendered!, rendered);
      content = e.prevContent;
      rendered = e.prevRendered!;
    }
    if (e.prevStream !== undefined) {
      snap.prev_stream = e.prevStream;
      snap.stream = e.stream!;
    }
    out.push(snap);
  }
  out.push({ topic: currentTopic, content, rendered_content: rendered, timestamp: m.timestamp.get(id), user_id: m.sender.get(id) });
  return out.reverse();
}
