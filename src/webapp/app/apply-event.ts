/**
 * Folds the register answer and server events (https://zulip.com/api/get-events) into the app's
 * signals: messages, edits, moves, deletions, flags (read, starred), reactions, typing,
 * presence, users, subscriptions and personal settings. Unknown event types are ignored.
 */
import { receiveMessage, removeMessages, updateMessages } from './feed.js';
import { dmPeers } from './narrow.js';
import {
  dmConversations,
  dmKey,
  me,
  mentionedUnread,
  noteTopic,
  presence,
  realmName,
  starred,
  subscriptions,
  theme,
  topicsByStream,
  typing,
  unread,
  users,
} from './state.js';
import type { Message, Reaction, RegisterResponse, ServerEvent, Subscription, UnreadPlace, User } from './types.js';

/** Zulip's `color_scheme` → the app's theme (1 automatic follows the system). */
export function themeOf(colorScheme: number | undefined): 'light' | 'dark' {
  if (colorScheme === 2) return 'dark';
  if (colorScheme === 3) return 'light';
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Loads the whole state from a register answer. */
export function applyRegister(state: RegisterResponse): void {
  me.value = { userId: state.user_id, fullName: state.full_name, email: state.email };
  realmName.value = state.realm_name ?? '';
  users.value = new Map(state.realm_users.map((u) => [u.user_id, u]));
  subscriptions.value = [...state.subscriptions].sort((a, b) => a.name.localeCompare(b.name));
  const places = new Map<number, UnreadPlace>();
  const topics = new Map<number, Map<string, number>>();
  for (const row of state.unread_msgs.streams) {
    for (const id of row.unread_message_ids) places.set(id, { kind: 'stream', streamId: row.stream_id, topic: row.topic });
    const map = topics.get(row.stream_id) ?? new Map<string, number>();
    map.set(row.topic, Math.max(map.get(row.topic) ?? 0, ...row.unread_message_ids));
    topics.set(row.stream_id, map);
  }
  for (const row of state.unread_msgs.pms) {
    for (const id of row.unread_message_ids) places.set(id, { kind: 'dm', key: dmKey([row.other_user_id]) });
  }
  for (const row of state.unread_msgs.huddles) {
    const peers = row.user_ids_string.split(',').map(Number).filter((id) => id !== state.user_id);
    for (const id of row.unread_message_ids) places.set(id, { kind: 'dm', key: dmKey(peers) });
  }
  unread.value = places;
  topicsByStream.value = topics;
  mentionedUnread.value = new Set(state.unread_msgs.mentions);
  starred.value = new Set(state.starred_messages);
  dmConversations.value = state.recent_private_conversations.map((c) => ({
    userIds: c.user_ids.length === 0 ? [state.user_id] : [...c.user_ids].sort((a, b) => a - b),
    maxId: c.max_message_id,
  }));
  presence.value = new Map(
    Object.entries(state.presences ?? {}).map(([id, p]) => [Number(id), { active: p.active_timestamp, idle: p.idle_timestamp }]),
  );
  theme.value = themeOf(state.user_settings?.color_scheme);
}

/** Where a message lives, for the unread map. */
function placeOf(message: Message): UnreadPlace {
  return message.type === 'stream'
    ? { kind: 'stream', streamId: message.stream_id ?? 0, topic: message.subject }
    : { kind: 'dm', key: dmKey(dmPeers(message, me.value.userId)) };
}

function onMessage(event: ServerEvent): void {
  const flags = (event['flags'] as string[] | undefined) ?? [];
  const message = { ...(event['message'] as Message), flags };
  const localId = event['local_message_id'];
  if (typeof localId === 'string') message.local_id = localId;
  if (!flags.includes('read')) {
    const next = new Map(unread.value);
    next.set(message.id, placeOf(message));
    unread.value = next;
    if (flags.includes('mentioned') || flags.includes('wildcard_mentioned')) mentionedUnread.value = new Set([...mentionedUnread.value, message.id]);
  }
  if (message.type === 'private') {
    const peers = dmPeers(message, me.value.userId);
    const key = dmKey(peers);
    dmConversations.value = [{ userIds: peers, maxId: message.id }, ...dmConversations.value.filter((c) => dmKey(c.userIds) !== key)];
  }
  receiveMessage(message);
}

function onFlags(event: ServerEvent): void {
  const op = event['op'] as string;
  const flag = event['flag'] as string;
  const all = event['all'] === true;
  const ids = (event['messages'] as number[]) ?? [];
  if (flag === 'read') {
    const next = new Map(unread.value);
    if (op === 'add') {
      if (all) next.clear();
      for (const id of ids) next.delete(id);
      mentionedUnread.value = new Set([...mentionedUnread.value].filter((id) => !all && !ids.includes(id)));
    } else {
      const details = (event['message_details'] ?? {}) as Record<string, { type: string; stream_id?: number; topic?: string; user_ids?: number[] }>;
      for (const id of ids) {
        const d = details[String(id)];
        if (d === undefined) continue;
        next.set(id, d.type === 'stream' ? { kind: 'stream', streamId: d.stream_id ?? 0, topic: d.topic ?? '' } : { kind: 'dm', key: dmKey(d.user_ids?.length ? d.user_ids : [me.value.userId]) });
      }
    }
    unread.value = next;
  } else if (flag === 'starred') {
    const next = new Set(starred.value);
    for (const id of ids) op === 'add' ? next.add(id) : next.delete(id);
    starred.value = next;
  }
  updateMessages(ids, (m) => ({
    ...m,
    flags: op === 'add' ? [...new Set([...m.flags, flag])] : m.flags.filter((f) => f !== flag),
  }));
}

function onUpdateMessage(event: ServerEvent): void {
  const ids = (event['message_ids'] as number[] | undefined) ?? [event['message_id'] as number];
  const rendered = event['rendered_content'];
  const newTopic = event['subject'] ?? event['topic'];
  const newStream = event['new_stream_id'];
  if (typeof rendered === 'string') {
    const id = event['message_id'] as number;
    updateMessages([id], (m) => ({ ...m, content: rendered, last_edit_timestamp: event['edit_timestamp'] as number }));
  }
  if (typeof newTopic === 'string' || typeof newStream === 'number') {
    updateMessages(ids, (m) => ({
      ...m,
      subject: typeof newTopic === 'string' ? newTopic : m.subject,
      stream_id: typeof newStream === 'number' ? newStream : m.stream_id,
    }));
    const streamId = typeof newStream === 'number' ? newStream : (event['stream_id'] as number | undefined);
    if (streamId !== undefined) noteTopic(streamId, typeof newTopic === 'string' ? newTopic : String(event['orig_subject'] ?? ''), Math.max(...ids));
    const next = new Map(unread.value);
    for (const id of ids) {
      const place = next.get(id);
      if (place?.kind === 'stream') {
        next.set(id, { kind: 'stream', streamId: streamId ?? place.streamId, topic: typeof newTopic === 'string' ? newTopic : place.topic });
      }
    }
    unread.value = next;
  }
}

function onDelete(event: ServerEvent): void {
  const ids = (event['message_ids'] as number[] | undefined) ?? [event['message_id'] as number];
  removeMessages(ids);
  const next = new Map(unread.value);
  for (const id of ids) next.delete(id);
  unread.value = next;
}

function onReaction(event: ServerEvent): void {
  const reaction: Reaction = {
    emoji_name: event['emoji_name'] as string,
    emoji_code: event['emoji_code'] as string,
    reaction_type: event['reaction_type'] as string,
    user_id: event['user_id'] as number,
  };
  const same = (r: Reaction) => r.user_id === reaction.user_id && r.emoji_code === reaction.emoji_code && r.reaction_type === reaction.reaction_type;
  updateMessages([event['message_id'] as number], (m) => ({
    ...m,
    reactions: event['op'] === 'add' ? [...m.reactions.filter((r) => !same(r)), reaction] : m.reactions.filter((r) => !same(r)),
  }));
}

/** Typing keys: `stream:<id>:<topic>` or `dm:<peer ids>` as seen by me. */
export function typingKeyOf(event: ServerEvent): string {
  if (event['message_type'] === 'stream') return `stream:${String(event['stream_id'])}:${String(event['topic']).toLowerCase()}`;
  const ids = ((event['recipients'] as Array<{ user_id: number }>) ?? []).map((r) => r.user_id).filter((id) => id !== me.value.userId);
  return `dm:${dmKey(ids.length ? ids : [me.value.userId])}`;
}

/** Typing notices expire after 15 s without a renewal (Zulip's typing_started_expiry_period). */
const TYPING_EXPIRY_MS = 15000;
const typingTimers = new Map<string, ReturnType<typeof setTimeout>>();

function setTyping(key: string, userId: number, on: boolean): void {
  const next = new Map(typing.value);
  const set = new Set(next.get(key) ?? []);
  on ? set.add(userId) : set.delete(userId);
  if (set.size === 0) next.delete(key);
  else next.set(key, set);
  typing.value = next;
  const timerKey = `${key}|${userId}`;
  clearTimeout(typingTimers.get(timerKey));
  if (on) typingTimers.set(timerKey, setTimeout(() => setTyping(key, userId, false), TYPING_EXPIRY_MS));
}

function onTyping(event: ServerEvent): void {
  const sender = (event['sender'] as { user_id: number }).user_id;
  if (sender === me.value.userId) return;
  setTyping(typingKeyOf(event), sender, event['op'] === 'start');
}

function onRealmUser(event: ServerEvent): void {
  const person = event['person'] as Partial<User> & { user_id: number };
  const next = new Map(users.value);
  const existing = next.get(person.user_id);
  if (event['op'] === 'add') next.set(person.user_id, person as User);
  else if (existing !== undefined) next.set(person.user_id, { ...existing, ...person });
  users.value = next;
  if (person.user_id === me.value.userId && typeof person.full_name === 'string') me.value = { ...me.value, fullName: person.full_name };
}

function onSubscription(event: ServerEvent): void {
  if (event['op'] === 'add') {
    const added = event['subscriptions'] as Subscription[];
    const ids = new Set(added.map((s) => s.stream_id));
    subscriptions.value = [...subscriptions.value.filter((s) => !ids.has(s.stream_id)), ...added].sort((a, b) => a.name.localeCompare(b.name));
  } else if (event['op'] === 'remove') {
    const ids = new Set((event['subscriptions'] as Array<{ stream_id: number }>).map((s) => s.stream_id));
    subscriptions.value = subscriptions.value.filter((s) => !ids.has(s.stream_id));
  } else if (event['op'] === 'update') {
    const id = event['stream_id'] as number;
    const property = event['property'] as string;
    subscriptions.value = subscriptions.value.map((s) => (s.stream_id === id ? { ...s, [property]: event['value'] } : s));
  }
}

/** Applies one batch of events, in order. */
export function applyEvents(events: readonly ServerEvent[]): void {
  for (const event of events) {
    switch (event.type) {
      case 'message':
        onMessage(event);
        break;
      case 'update_message_flags':
        onFlags(event);
        break;
      case 'update_message':
        onUpdateMessage(event);
        break;
      case 'delete_message':
        onDelete(event);
        break;
      case 'reaction':
        onReaction(event);
        break;
      case 'typing':
        onTyping(event);
        break;
      case 'presence': {
        const website = (event['presence'] as Record<string, { status: string; timestamp: number }>)['website'];
        if (website === undefined) break;
        const next = new Map(presence.value);
        const old = next.get(event['user_id'] as number) ?? { active: 0, idle: 0 };
        next.set(event['user_id'] as number, website.status === 'active' ? { active: website.timestamp, idle: website.timestamp } : { ...old, idle: website.timestamp });
        presence.value = next;
        break;
      }
      case 'realm_user':
        onRealmUser(event);
        break;
      case 'subscription':
        onSubscription(event);
        break;
      case 'user_settings':
        if (event['property'] === 'color_scheme') theme.value = themeOf(event['value'] as number);
        if (event['property'] === 'full_name') me.value = { ...me.value, fullName: String(event['value']) };
        break;
      default:
        break;
    }
  }
}
