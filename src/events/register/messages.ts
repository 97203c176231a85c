/**
 * Message-derived state of `POST /register`, read from the user's UserMessage columns
 * (`domain/message-index.ts`) in ONE pass from newest to oldest, never from the realm's whole
 * message index:
 *
 * - `max_message_id` (`message`): the user's highest message id, -1 if none;
 * - `unread_msgs` (`message` + `update_message_flags`): Zulip's `get_raw_unread_data` +
 *   `aggregate_unread_data` — the newest 50 000 unread rows. Zulip drops the recipients of
 *   *inactive* subscriptions (channels the user left) but keeps channels the user never joined
 *   (e.g. their own message to a public channel). parley keeps no trace of past subscriptions,
 *   so a channel message counts when the user is subscribed, or else can still read the message
 *   (`canAccessMessage`): a private channel the user is not in never appears;
 * - `starred_messages`: the oldest 10 000 starred ids, ascending (`get_starred_message_ids`);
 * - `recent_private_conversations`: per conversation among the newest 1000 direct-message rows,
 *   `{user_ids (others, sorted; [] for a DM to oneself), max_message_id}`, newest first.
 *
 * Cost: O(rows of this user) typed-array reads, plus a Map lookup per unread or DM row.
 */
import type { RealmState, User } from '../../domain/realm-state.js';
import { Flag } from '../../domain/message-index.js';
import { canAccessMessage } from '../../domain/access.js';
import { MAX_STARRED_MESSAGES, MAX_UNREAD_MESSAGES, RECENT_CONVERSATIONS_LIMIT } from './constants.js';

/** What the caller wants out of the scan. */
export interface MessageScanRequest {
  unread: boolean;
  starred: boolean;
  recentConversations: boolean;
  /** Capability `empty_topic_name`; without it the empty topic is shown as `emptyTopicDisplayName`. */
  allowEmptyTopicName: boolean;
}

/** `unread_msgs` on the wire. */
export interface UnreadMsgs {
  pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  count: number;
  old_unreads_missing: boolean;
}

export interface MessageScanResult {
  unread_msgs?: UnreadMsgs;
  starred_messages?: number[];
  recent_private_conversations?: Array<{ user_ids: number[]; max_message_id: number }>;
}

/** The user's highest message id, -1 when they have none (`max_message_id_for_user`). */
export function maxMessageId(state: RealmState, user: User): number {
  return state.messages.users.get(user.id)?.maxId() ?? -1;
}

/** Compares strings by Unicode code point, as Python sorts `str`. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

const MENTION_BITS = Flag.mentioned;
const WILDCARD_BITS = Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned;

/** Runs the scan; only the requested parts are computed. */
export function scanUserMessages(state: RealmState, me: User, req: MessageScanRequest): MessageScanResult {
  const rows = state.messages.users.get(me.id);
  const m = state.messages;
  const result: MessageScanResult = {};
  const pms = new Map<number, number[]>();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let unmutedStreamCount = 0;
  let unreadRows = 0;
  const starred: number[] = [];
  const conversations = new Map<number, { user_ids: number[]; max_message_id: number }>();
  let dmRows = 0;
  const emptyTopicName = state.settings.emptyTopicDisplayName;

  const n = rows?.length ?? 0;
  for (let i = n - 1; i >= 0; i--) {
    const flags = rows!.flags.get(i);
    if (req.starred && (flags & Flag.starred) !== 0) starred.push(rows!.ids.get(i));
    const unreadOpen = req.unread && unreadRows < MAX_UNREAD_MESSAGES;
    const dmOpen = req.recentConversations && dmRows < RECENT_CONVERSATIONS_LIMIT;
    if (!unreadOpen && !dmOpen) {
      if (req.starred) continue;
      break;
    }
    const isUnread = unreadOpen && (flags & Flag.read) === 0;
    if (!isUnread && !dmOpen) continue;
    const id = rows!.ids.get(i);
    if (!m.exists(id)) continue;
    const recipient = state.recipients.get(m.recipient.get(id));
    if (recipient === undefined) continue;
    if (recipient.type === 'stream') {
      if (!isUnread) continue;
      const sub = state.subscriptions.get(recipient.streamId)?.get(me.id);
      if (sub === undefined && !canAccessMessage(state, me, id)) continue;
      unreadRows++;
      let topic = state.topics.value(m.topic.get(id));
      if (topic === '' && !req.allowEmptyTopicName) topic = emptyTopicName;
      const key = `${recipient.streamId}\u0000${topic.toLowerCase()}`;
      let bucket = streams.get(key);
      if (bucket === undefined) streams.set(key, (bucket = { stream_id: recipient.streamId, topic, unread_message_ids: [] }));
      bucket.unread_message_ids.push(id);
      // Zulip names the bucket after its oldest message's topic; this scan goes newest first.
      bucket.topic = topic;
      const unmuted = sub === undefined || !sub.isMuted;
      if (unmuted) unmutedStreamCount++;
      if ((flags & MENTION_BITS) !== 0 || (unmuted && (flags & WILDCARD_BITS) !== 0)) mentions.push(id);
      continue;
    }
    // A direct message.
    const members = recipient.userIds;
    if (dmOpen) {
      dmRows++;
      const recipientId = m.recipient.get(id);
      const conversation = conversations.get(recipientId);
      if (conversation === undefined) {
        conversations.set(recipientId, { user_ids: members.filter((u) => u !== me.id), max_message_id: id });
      } else if (id > conversation.max_message_id) {
        conversation.max_message_id = id;
      }
    }
    if (!isUnread) continue;
    unreadRows++;
    if (members.length <= 2) {
      const other = members.length === 1 ? members[0]! : members[0] === me.id ? members[1]! : members[0]!;
      let list = pms.get(other);
      if (list === undefined) pms.set(other, (list = []));
      list.push(id);
    } else {
      const key = members.join(',');
      let list = huddles.get(key);
      if (list === undefined) huddles.set(key, (list = []));
      list.push(id);
    }
    if ((flags & (MENTION_BITS | WILDCARD_BITS)) !== 0) mentions.push(id);
  }

  if (req.unread) {
    const asc = (a: number, b: number) => a - b;
    result.unread_msgs = {
      pms: [...pms.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids.reverse() })),
      streams: [...streams.values()]
        .sort((a, b) => a.stream_id - b.stream_id || compareCodePoints(a.topic.toLowerCase(), b.topic.toLowerCase()))
        .map((b) => ({ ...b, unread_message_ids: b.unread_message_ids.reverse() })),
      huddles: [...huddles.entries()]
        .sort((a, b) => compareCodePoints(a[0], b[0]))
        .map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids.reverse() })),
      mentions: mentions.sort(asc),
      count: countDirect(pms, huddles) + unmutedStreamCount,
      old_unreads_missing: unreadRows === MAX_UNREAD_MESSAGES,
    };
  }
  if (req.starred) result.starred_messages = starred.reverse().slice(0, MAX_STARRED_MESSAGES);
  if (req.recentConversations) {
    result.recent_private_conversations = [...conversations.values()].sort((a, b) => b.max_message_id - a.max_message_id);
  }
  return result;
}

function countDirect(pms: Map<number, number[]>, huddles: Map<string, number[]>): number {
  let count = 0;
  for (const ids of pms.values()) count += ids.length;
  for (const ids of huddles.values()) count += ids.length;
  return count;
}
