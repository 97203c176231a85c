/**
 * The move half of `edit_message` (https://zulip.com/api/update-message; Zulip's `do_update_message`): which
 * messages a topic/channel change takes along (`propagate_mode`), who gains or loses UserMessage
 * rows, who gets `update_message` / `delete_message`, and the Notification Bot breadcrumbs.
 * Pure functions of the state before the edit.
 */
import { Role, type RealmState, type Stream, type User } from '../../domain/realm-state.js';
import { canAccessMessage, isSubscribed } from '../../domain/access.js';
import { topicMessageIds as topicIdsInChannel } from '../../domain/recipient-index.js';
import type { Command } from '../commands.js';

/** `propagate_mode` values. */
export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

/**
 * Ids of the messages in `streamId`'s `topic` (case-insensitive) that `actor` can access,
 * ascending; `minId` limits them to ids ≥ minId (Zulip's `messages_for_topic` +
 * `bulk_access_stream_messages_query`).
 */
export function topicMessageIds(state: RealmState, stream: Stream, topic: string, actor: User | null, minId = 0): number[] {
  return topicIdsInChannel(state, stream.recipientId, topic).filter(
    (id) => id >= minId && (actor === null || canAccessMessage(state, actor, id)),
  );
}

/** The changed messages for a move of `messageId` (always included). */
export function messagesToMove(state: RealmState, stream: Stream, topic: string, actor: User, messageId: number, mode: PropagateMode): number[] {
  if (mode === 'change_one') return [messageId];
  const ids = topicMessageIds(state, stream, topic, actor, mode === 'change_later' ? messageId : 0);
  if (!ids.includes(messageId)) ids.push(messageId);
  return ids.sort((a, b) => a - b);
}

/**
 * Zulip's `moved_all_visible_messages`: `change_all`, or no message of the old topic that `actor`
 * can access stays behind (decided with the actor's access, so nothing leaks about history they
 * cannot see).
 */
export function movedAllVisible(state: RealmState, orig: Stream, origTopic: string, actor: User, changedIds: readonly number[], mode: PropagateMode): boolean {
  if (mode === 'change_all') return true;
  const changed = new Set(changedIds);
  return topicMessageIds(state, orig, origTopic, actor).every((id) => changed.has(id));
}

/** UserMessage changes of a channel move (Zulip's `users_losing_usermessages` & co.). */
export interface AccessChanges {
  /** Users whose rows for the moved messages are deleted. */
  removeUserIds: number[];
  /** Users who get `delete_message` (they can no longer see the messages). */
  losingAccess: Set<number>;
  /** Users who gain a `read` row (new channel with protected history). */
  addUserIds: number[];
}

/**
 * Who loses/gains rows when `ids` move from `orig` to `target`. Zulip takes "all users ever
 * subscribed to the old channel"; parley does not keep ended subscriptions, so it uses the old
 * channel's current subscribers plus everyone holding a row for a moved message.
 */
export function accessChanges(state: RealmState, ids: readonly number[], orig: Stream, target: Stream): AccessChanges {
  const targetSubs = state.subscriptions.get(target.id) ?? new Map();
  const oldAll = new Set<number>(state.subscriptions.get(orig.id)?.keys() ?? []);
  for (const [userId, um] of state.messages.users) {
    if (ids.some((id) => um.indexOf(id) >= 0)) oldAll.add(userId);
  }
  const losingRows = [...oldAll].filter((u) => !targetSubs.has(u)).sort((a, b) => a - b);
  const public_ = !target.inviteOnly;
  const losingAccess = new Set(public_ ? losingRows.filter((u) => state.users.get(u)?.role === Role.guest) : losingRows);
  const addUserIds = target.historyPublicToSubscribers ? [] : [...targetSubs.keys()].sort((a, b) => a - b);
  return { removeUserIds: losingRows, losingAccess, addUserIds };
}

/**
 * Users to notify with `update_message` besides row holders (Zulip: when the original channel's
 * history is public to subscribers, the target channel's active subscribers, plus — on channel
 * moves — old-channel subscribers not in the new one; never users losing access, nor guests who
 * are only in the new channel). Returns user ids without a row, each to be sent flags ["read"].
 */
export function subscriberRecipients(
  state: RealmState,
  orig: Stream,
  target: Stream,
  rowHolders: ReadonlySet<number>,
  losingAccess: ReadonlySet<number>,
): number[] {
  if (!orig.historyPublicToSubscribers) return [];
  const active = (u: number) => state.users.get(u)?.isActive === true;
  const keep = (u: number) => active(u) && !rowHolders.has(u) && !losingAccess.has(u);
  const out = new Set<number>();
  const targetSubs = [...(state.subscriptions.get(target.id)?.keys() ?? [])];
  for (const u of targetSubs) {
    if (!keep(u)) continue;
    if (orig.id !== target.id && state.users.get(u)!.role === Role.guest && !isSubscribed(state, u, orig.id)) continue;
    out.add(u);
  }
  if (orig.id !== target.id) {
    for (const u of state.subscriptions.get(orig.id)?.keys() ?? []) if (keep(u) && !isSubscribed(state, u, target.id)) out.add(u);
  }
  return [...out].sort((a, b) => a - b);
}

/** Zulip's `encode_hash_component`: URL-quote (keeping `*`), then `.` → `.2E` and `%` → `.`. */
export function encodeHashComponent(s: string): string {
  const quoted = [...new TextEncoder().encode(s)]
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9_.~*-]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
    })
    .join('');
  return quoted.replace(/\./g, '%2E').replace(/%/g, '.');
}

const BROKEN_LINK = /[`>*&[\]]|\$\$/;
const ESCAPES: Record<string, string> = { '`': '&#96;', '>': '&gt;', '*': '&#42;', '&': '&amp;', $$: '&#36;&#36;', '[': '&#91;', ']': '&#93;' };
const escapeLink = (s: string) => s.replace(/[`>*&[\]]|\$\$/g, (m) => ESCAPES[m] ?? m);

/** Zulip's `get_stream_topic_link_syntax`: `#**channel>topic**`, or a plain link when that would break. */
export function topicLinkSyntax(stream: Stream, topic: string): string {
  if (!BROKEN_LINK.test(topic) && !BROKEN_LINK.test(stream.name)) return `#**${stream.name}>${topic}**`;
  const link = `#narrow/channel/${stream.id}-${encodeHashComponent(stream.name.replace(/ /g, '-'))}/topic/${encodeHashComponent(topic)}`;
  return `[#${escapeLink(stream.name)} > ${escapeLink(topic === '' ? 'general chat' : topic)}](${link})`;
}

/** Zulip's `stream_message_url` for a message at its new place (absolute; rendering makes it relative). */
export function messageUrl(state: RealmState, stream: Stream, topic: string, id: number): string {
  return `${state.url}/#narrow/channel/${stream.id}-${encodeHashComponent(stream.name.replace(/ /g, '-'))}/topic/${encodeHashComponent(topic)}/near/${id}`;
}

/** What the move notifications need. */
export interface MoveNotice {
  actor: User;
  orig: Stream;
  origTopic: string;
  target: Stream;
  targetTopic: string;
  messageId: number;
  changedIds: readonly number[];
  streamEdited: boolean;
  topicEdited: boolean;
  resolveToggle: boolean;
  mode: PropagateMode;
  notifyOld: boolean;
  notifyNew: boolean;
}

/**
 * Notification Bot breadcrumbs of a move (Zulip's `send_message_moved_breadcrumbs`), as
 * `internal_send` follow-ups: the new thread first, then the old one. "Moved the whole topic"
 * is decided with the actor's access, so nothing leaks about history they cannot see.
 */
export function moveNotifications(state: RealmState, n: MoveNotice): Command[] {
  const out: Command[] = [];
  const user = `@_**${n.actor.fullName}|${n.actor.id}**`;
  const changed = new Set(n.changedIds);
  const count = n.changedIds.length;
  const movedAll = movedAllVisible(state, n.orig, n.origTopic, n.actor, n.changedIds, n.mode);
  const oldLocation = topicLinkSyntax(n.orig, n.origTopic);
  const newLocation = topicLinkSyntax(n.target, n.targetTopic);
  if (n.notifyNew && (n.streamEdited || (n.topicEdited && !n.resolveToggle))) {
    const preexisting = topicMessageIds(state, n.target, n.targetTopic, n.actor).filter((id) => !changed.has(id));
    let content: string;
    if (preexisting.length === 0 && movedAll) content = `This topic was moved here from ${oldLocation} by ${user}.`;
    else if (count === 1) content = `[A message](${messageUrl(state, n.target, n.targetTopic, n.messageId)}) was moved here from ${oldLocation} by ${user}.`;
    else content = `${count} messages were moved here from ${oldLocation} by ${user}.`;
    out.push({ type: 'internal_send', bot: 'notification', messageType: 'stream', to: n.target.id, topic: n.targetTopic, content });
  }
  if (n.notifyOld) {
    let content: string;
    if (movedAll) content = `This topic was moved to ${newLocation} by ${user}.`;
    else if (count === 1) content = `A message was moved from this topic to ${newLocation} by ${user}.`;
    else content = `${count} messages were moved from this topic to ${newLocation} by ${user}.`;
    out.push({ type: 'internal_send', bot: 'notification', messageType: 'stream', to: n.orig.id, topic: n.origTopic, content });
  }
  return out;
}
