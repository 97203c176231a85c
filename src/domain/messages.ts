/**
 * Message rules and the one serializer to Zulip's message object
 * (https://zulip.com/api/get-message, https://zulip.com/api/send-message;
 * https://zulip.com/api/send-message, https://zulip.com/api/get-message). Lengths are counted in
 * Unicode code points, as Python's `len`.
 */
import type { RealmState, Recipient, User } from './realm-state.js';
import type { MessageBody } from './records.js';
import { MessageBit, flagNames, Flag } from './message-index.js';
import { apiEmail, avatarUrl } from './users.js';
import { reactionsWire } from './reactions.js';
import { addEditFields } from './message-edits.js';
import { topicLinks } from './topic-links.js';

/** Register-reported limits (https://zulip.com/api/register-queue). */
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;

/** Topic that legacy clients send for "no topic"; means the empty topic since FL 370. */
export const NO_TOPIC = '(no topic)';

/** Length in code points. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** First `n` code points of `s`. */
function takeCodePoints(s: string, n: number): string {
  return Array.from(s).slice(0, n).join('');
}

/**
 * Normalizes message content: right-strips all whitespace, left-strips only newlines, truncates
 * past 10000 code points to 9980 + "\n[message truncated]". Returns the content or an error
 * message ("Message must not be empty", "Message must not contain null bytes").
 */
export function normalizeContent(raw: string): { ok: true; content: string } | { ok: false; msg: string } {
  const content = raw.replace(/\s+$/u, '').replace(/^\n+/, '');
  if (content.length === 0) return { ok: false, msg: 'Message must not be empty' };
  if (content.includes('\0')) return { ok: false, msg: 'Message must not contain null bytes' };
  if (codePointLength(content) > MAX_MESSAGE_LENGTH) {
    return { ok: true, content: takeCodePoints(content, MAX_MESSAGE_LENGTH - 20) + '\n[message truncated]' };
  }
  return { ok: true, content };
}

/** 1-based code-point position of the first character Zulip forbids in topics/names, or 0. */
export function invalidCharPosition(s: string): number {
  let pos = 0;
  for (const ch of s) {
    pos++;
    const cp = ch.codePointAt(0)!;
    if (/[\p{Cc}\p{Cs}]/u.test(ch)) return pos;
    if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe) return pos;
  }
  return 0;
}

/** Truncates a topic past 60 code points to 57 + "..." (https://zulip.com/api/send-message step 5). */
export function truncateTopic(topic: string): string {
  return codePointLength(topic) > MAX_TOPIC_LENGTH ? takeCodePoints(topic, MAX_TOPIC_LENGTH - 3) + '...' : topic;
}

/** Whether a message is a `/me` action (`/me ` prefix, single line). */
export function isMeMessage(content: string): boolean {
  return content.startsWith('/me ') && !content.includes('\n');
}

/**
 * Client names whose messages start read for the sender (https://zulip.com/api/send-message
 * `read_by_sender`).
 */
const READ_BY_SENDER_CLIENTS = new Set([
  'zulipandroid',
  'zulipios',
  'zulipdesktop',
  'zulipmobile',
  'zulipelectron',
  'zulipterminal',
  'snipe',
  'website',
  'ios',
  'android',
]);

/** Default of `read_by_sender` for a client name. */
export function defaultReadBySender(client: string): boolean {
  const lower = client.toLowerCase();
  return READ_BY_SENDER_CLIENTS.has(lower) || lower.includes('desktop app');
}

/** Options for `messageToWire`. */
export interface MessageView {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** Whether the client understands the empty topic (else it sees the realm's display name). */
  allowEmptyTopicName: boolean;
}

/** A message's attributes, from the index or from a `message_sent` record not yet folded. */
export interface MessageFields {
  id: number;
  senderId: number;
  recipientId: number;
  recipient: Recipient;
  /** '' for direct messages and for the empty topic. */
  topic: string;
  /** UNIX seconds. */
  timestamp: number;
  client: string;
  isMeMessage: boolean;
}

/** Fields of an indexed message (it must exist). */
export function indexedMessageFields(state: RealmState, id: number): MessageFields {
  const m = state.messages;
  const recipientId = m.recipient.get(id);
  return {
    id,
    senderId: m.sender.get(id),
    recipientId,
    recipient: state.recipients.get(recipientId)!,
    topic: state.topics.value(m.topic.get(id)),
    timestamp: m.timestamp.get(id),
    client: state.clients.value(m.client.get(id)),
    isMeMessage: (m.bits.get(id) & MessageBit.isMe) !== 0,
  };
}

/**
 * Zulip's message object without `flags` (https://zulip.com/api/get-message): the shape of
 * `message` in message events
 * and, plus flags, of fetched messages. `content` is given already chosen (HTML or Markdown).
 */
export function buildMessageWire(
  state: RealmState,
  f: MessageFields,
  content: string,
  contentType: 'text/html' | 'text/x-markdown',
  view: { clientGravatar: boolean; allowEmptyTopicName: boolean },
): Record<string, unknown> {
  const sender = state.users.get(f.senderId)!;
  const stream = f.recipient.type === 'stream' ? state.streams.get(f.recipient.streamId)! : undefined;
  // Keys in Zulip's order.
  const wire: Record<string, unknown> = {
    id: f.id,
    sender_id: sender.id,
    content,
    content_type: contentType,
    recipient_id: f.recipientId,
    timestamp: f.timestamp,
    client: f.client,
    subject: f.topic === '' && stream !== undefined && !view.allowEmptyTopicName ? state.settings.emptyTopicDisplayName : f.topic,
    topic_links: stream === undefined ? [] : topicLinks(state, f.topic),
    is_me_message: f.isMeMessage,
    reactions: reactionsWire(state, f.id),
    submessages: [],
    sender_full_name: sender.fullName,
    sender_email: apiEmail(sender, state.host),
    sender_realm_str: state.subdomain,
    avatar_url: avatarUrl(sender, view.clientGravatar),
    display_recipient: f.recipient.type === 'direct' ? directRecipients(state, f.recipient.userIds) : stream!.name,
    type: stream === undefined ? 'private' : 'stream',
  };
  if (stream !== undefined) wire.stream_id = stream.id;
  return wire;
}

/** `display_recipient` of a direct message: its users, sorted by (API) email. */
function directRecipients(state: RealmState, userIds: readonly number[]): Array<Record<string, unknown>> {
  const out: Array<{ id: number; email: string; full_name: string; is_mirror_dummy: boolean }> = [];
  for (const uid of userIds) {
    const u = state.users.get(uid)!;
    out.push({ id: u.id, email: apiEmail(u, state.host), full_name: u.fullName, is_mirror_dummy: false });
  }
  return out.sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

/**
 * Zulip's message object for `viewer` (https://zulip.com/api/get-message) from the index and the
 * stored body. `flags` is
 * the viewer's UserMessage flags or `["read","historical"]` without a row.
 */
export function messageToWire(
  state: RealmState,
  viewer: User,
  id: number,
  body: MessageBody,
  view: MessageView,
): Record<string, unknown> {
  const wire = buildMessageWire(
    state,
    indexedMessageFields(state, id),
    view.applyMarkdown ? body.rendered : body.content,
    view.applyMarkdown ? 'text/html' : 'text/x-markdown',
    view,
  );
  wire.flags = flagNames(state.messages.userFlags(viewer.id, id) ?? Flag.read | Flag.historical);
  addEditFields(state, id, wire, view.allowEmptyTopicName);
  return wire;
}
