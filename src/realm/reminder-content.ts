/**
 * The Markdown of a reminder (Zulip's zerver/lib/reminders.py `get_reminder_formatted_content`
 * and `normalize_note_text`): a header ("You requested a reminder for the following message." or
 * "… direct message.", with the note quoted after "Note:"), a line naming the sender with a
 * silent mention and a link to the message (`#**channel>topic@id**` for channel messages, the
 * recipients for direct messages), and the message quoted in a `quote` fence, truncated to fit
 * the message length limit. `/poll` and `/todo` messages are named as widgets instead of quoted.
 */
import { Errors, type ZulipError } from '../errors.js';
import type { RealmState, User } from '../domain/realm-state.js';
import { codePointLength, indexedMessageFields, MAX_MESSAGE_LENGTH } from '../domain/messages.js';
import { SERVER_LIMITS } from '../domain/server-limits.js';
import { encodeHashComponent } from './handlers/message-move.js';

/** Zulip's `silent_mention_syntax_for_user`. */
const silentMention = (u: { id: number; fullName: string }) => `@_**${u.fullName}|${u.id}**`;

/** "A", "A and B", "A, B, and C" (Zulip's `get_user_mentions_for_display` lists silent mentions). */
function mentionList(users: readonly User[]): string {
  const m = users.map(silentMention);
  if (m.length <= 2) return m.join(' and ');
  return `${m.slice(0, -1).join(', ')}, and ${m[m.length - 1]}`;
}

/** Zulip's `normalize_note_text`: trailing whitespace and leading newlines dropped, at most 1000 characters. */
export function normalizeReminderNote(note: string): string | ZulipError {
  const body = note.replace(/\s+$/u, '').replace(/^\n+/, '');
  const max = SERVER_LIMITS.max_reminder_note_length;
  if (codePointLength(body) > max) return Errors.badRequest(`Maximum reminder note length: ${max} characters`);
  return body;
}

const BROKEN_LINK = /[`>*&[\]]|\$\$/;
const ESCAPES: Record<string, string> = { '`': '&#96;', '>': '&gt;', '*': '&#42;', '&': '&amp;', $$: '&#36;&#36;', '[': '&#91;', ']': '&#93;' };
const escapeLink = (s: string) => s.replace(/[`>*&[\]]|\$\$/g, (m) => ESCAPES[m] ?? m);

/** Zulip's `get_message_link_syntax`: `#**channel>topic@id**`, or a plain link when that would break. */
function messageLinkSyntax(streamId: number, streamName: string, topic: string, id: number): string {
  if (!BROKEN_LINK.test(topic) && !BROKEN_LINK.test(streamName)) return `#**${streamName}>${topic}@${id}**`;
  const link = `#narrow/channel/${streamId}-${encodeHashComponent(streamName.replace(/ /g, '-'))}/topic/${encodeHashComponent(topic)}/near/${id}`;
  return `[#${escapeLink(streamName)} > ${escapeLink(topic === '' ? 'general chat' : topic)} @ 💬](${link})`;
}

/** Zulip's `get_unused_fence`: backticks longer than any fence opening a line of `content` (at least 3). */
function unusedFence(content: string): string {
  let length = 3;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1]!.length + 1);
  return '`'.repeat(length);
}

/** Zulip's `truncate_content`: at most `max` code points, the marker included. */
function truncateContent(content: string, max: number, marker: string): string {
  const chars = [...content];
  if (chars.length <= max) return content;
  return chars.slice(0, Math.max(0, max - [...marker].length)).join('') + marker;
}

/**
 * The reminder text for `owner` about message `messageId` (it must exist and be accessible),
 * whose raw Markdown is `messageContent`; `note` already normalized (or undefined/empty: none).
 */
export function reminderContent(state: RealmState, owner: User, messageId: number, messageContent: string, note: string | undefined): string {
  const fields = indexedMessageFields(state, messageId);
  const sender = state.users.get(fields.senderId)!;
  const who = silentMention(sender);
  let content: string;
  let line: (verb: 'said' | 'sent') => string;
  if (fields.recipient.type === 'stream') {
    const streamId = fields.recipient.streamId;
    const stream = state.streams.get(streamId)!;
    const url = `${state.url}/#narrow/channel/${streamId}-${encodeHashComponent(stream.name.replace(/ /g, '-'))}/topic/${encodeHashComponent(fields.topic)}/near/${messageId}`;
    const where = messageLinkSyntax(streamId, stream.name, fields.topic, messageId);
    content = note ? `You requested a reminder for the following message. Note:\n > ${note}` : 'You requested a reminder for the following message.';
    line = (verb) => `${who} [${verb}](${url}) ${verb === 'said' ? `in ${where}:` : `a {widget} in ${where}.`}`;
  } else {
    const members = fields.recipient.userIds;
    const others = members.filter((id) => id !== owner.id).sort((a, b) => a - b);
    const slug = others.length === 0 ? `${owner.id}-dm` : `${others.join(',')}-${others.length > 1 ? 'group' : 'dm'}`;
    const url = `${state.url}/#narrow/dm/${slug}/near/${messageId}`;
    const shown = members.filter((id) => id !== sender.id).map((id) => state.users.get(id)!);
    const to = mentionList(shown.length > 0 ? shown : [sender]);
    content = note ? `You requested a reminder for the following direct message. Note:\n > ${note}` : 'You requested a reminder for the following direct message.';
    line = (verb) => `${who} [${verb}](${url}) ${verb === 'said' ? `to ${to}:` : `a {widget} to ${to}.`}`;
  }
  content += '\n\n';
  if (messageContent.startsWith('/poll')) return content + line('sent').replace('{widget}', 'poll');
  if (messageContent.startsWith('/todo')) return content + line('sent').replace('{widget}', 'todo list');
  content += line('said') + '\n';
  // Zulip picks the fence against the text before the quote; the quoted message is what can hold a fence.
  const fence = unusedFence(messageContent);
  const overhead = codePointLength(content + `${fence}quote\n\n${fence}`);
  return content + `${fence}quote\n${truncateContent(messageContent, MAX_MESSAGE_LENGTH - overhead, '\n[message truncated]')}\n${fence}`;
}
