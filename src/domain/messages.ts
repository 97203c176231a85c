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
  // trimEnd strips exactly `\s` (ECMAScript WhiteSpace + LineTerminator), without the regex's
  // quadratic backtracking over inner whitespace runs.
  const content = raw.trimEnd().replace(/^\n+/, '');
  if (content.length === 0) return { ok: false, msg: 'Message must not be empty' };
  if (content.includes('\0')) return { ok: false, msg: 'Message must not contain null bytes' };
  if (codePointLength(content) > MAX_MESSAGE_LENGTH) {
    return { ok: true, content: takeCodePoints(content, MAX_MESSAGE_LENGTH - 20) + '\n[message truncated]' };
  }
  return { ok: true, content };
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** 1-based code-point position of the first character Zulip forbids in topics/names, or 0. */
export function invalidCharPosition(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return 0; // the common case, without a regex per character
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

/** How a reader asked for message objects (`GET /messages` parameters; events/wire/message-json.ts). */
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

