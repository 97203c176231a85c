/**
 * `report_message`: `POST /messages/{message_id}/report` (https://zulip.com/api/report-message;
 * Zulip's zerver/views/message_report.py `report_message_backend`, zerver/lib/message_report.py
 * `send_message_report`).
 *
 * Checks, in Zulip's order: `report_type` one of spam, harassment, inappropriate, norms, other
 * ("Invalid report_type"); `description` at most 1000 characters; `other` needs a description
 * ("An explanation is required."); the realm has a moderation request channel ("Message
 * reporting is not enabled in this organization."); the message is accessible ("Invalid
 * message(s)").
 *
 * Effect: Notification Bot posts the report to the moderation request channel, topic
 * "<reported user's name>'s moderation requests": who reported what (channel message link, or
 * the direct message's participants), the reason, the notes, and the reported message's Markdown
 * (truncated) in a spoiler. The events are those of that message.
 */
import { fail, Errors } from '../../errors.js';
import { accessMessage } from '../../domain/access.js';
import { MAX_MESSAGE_LENGTH } from '../../domain/messages.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import type { Handler } from '../decision.js';
import { internalSend } from './internal-send.js';

/** `POST /messages/{message_id}/report`. */
export interface ReportMessage {
  type: 'report_message';
  actorId: number;
  messageId: number;
  reportType: string;
  description: string;
  /** The reported message's raw Markdown, read by the endpoint (used only once access is checked). */
  reportedContent: string;
}

/** Reply of `report_message`. */
export interface ReportMessageReplies {
  report_message: Record<string, never>;
}

/** Zulip's `Realm.REPORT_MESSAGE_REASONS`: wire value → label in the report. */
export const REPORT_MESSAGE_REASONS: Readonly<Record<string, string>> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
};

/** Zulip's `Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH`, in characters. */
export const MAX_REPORT_MESSAGE_EXPLANATION_LENGTH = 1000;

/** Zulip's `MAX_REPORT_MESSAGE_SNIPPET_LENGTH`: room left for the notes and the template. */
const MAX_REPORT_MESSAGE_SNIPPET_LENGTH = MAX_MESSAGE_LENGTH - MAX_REPORT_MESSAGE_EXPLANATION_LENGTH - 500;
const TRUNCATED = '\n[message truncated]';

/** Zulip's silent mention `@_**Name|id**`. */
const silentMention = (user: User) => `@_**${user.fullName}|${user.id}**`;

/** A code fence longer than any backtick run in `content` (Zulip's `get_unused_fence`). */
function unusedFence(content: string): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

/** "reported … sent by …" for the reported message (Zulip's `message_sent_to`). */
function sentTo(state: RealmState, reporter: User, sender: User, messageId: number): string {
  const recipient = state.recipients.get(state.messages.recipient.get(messageId))!;
  if (recipient.type === 'stream') {
    const channel = state.streams.get(recipient.streamId)!.name;
    const topic = state.topics.value(state.messages.topic.get(messageId));
    return `reported #**${channel}>${topic}@${messageId}** sent by ${silentMention(sender)}`;
  }
  if (recipient.userIds.length <= 2) return `reported a DM sent by ${silentMention(sender)} to ${silentMention(reporter)}`;
  const members = recipient.userIds.map((id) => state.users.get(id)!).map(silentMention);
  const last = members.pop()!;
  return `reported a DM sent by ${silentMention(sender)} to ${members.join(', ')}, and ${last}`;
}

export const reportMessage: Handler<ReportMessage, ReportMessageReplies['report_message']> = (state, cmd, ctx) => {
  const reporter = state.users.get(cmd.actorId);
  if (reporter === undefined || !reporter.isActive) return fail(Errors.noSuchUser());
  const reason = REPORT_MESSAGE_REASONS[cmd.reportType];
  if (reason === undefined) return fail(Errors.badRequest('Invalid report_type'));
  if ([...cmd.description].length > MAX_REPORT_MESSAGE_EXPLANATION_LENGTH) {
    return fail(Errors.parameterTooLong('description', MAX_REPORT_MESSAGE_EXPLANATION_LENGTH));
  }
  if (cmd.reportType === 'other' && cmd.description === '') return fail(Errors.badRequest('An explanation is required.'));
  const channelId = state.settings.moderationRequestChannelId ?? null;
  if (channelId === null) return fail(Errors.badRequest('Message reporting is not enabled in this organization.'));
  const access = accessMessage(state, reporter, cmd.messageId);
  if (!access.ok) return access;

  const sender = state.users.get(state.messages.sender.get(cmd.messageId))!;
  let reported = cmd.reportedContent;
  if (reported.length > MAX_REPORT_MESSAGE_SNIPPET_LENGTH) reported = reported.slice(0, MAX_REPORT_MESSAGE_SNIPPET_LENGTH - TRUNCATED.length) + TRUNCATED;
  const fence = unusedFence(reported);
  const content = [
    `${silentMention(reporter)} ${sentTo(state, reporter, sender, cmd.messageId)}.`,
    `- Reason: **${reason}**`,
    '- Notes:',
    '```quote',
    cmd.description,
    '```',
    `${fence} spoiler **Message sent by ${silentMention(sender)}**`,
    reported,
    fence,
  ].join('\n');
  const sent = internalSend(state, {
    type: 'internal_send', bot: 'notification', messageType: 'stream', to: channelId, topic: `${sender.fullName}'s moderation requests`, content,
  }, ctx);
  if (!sent.ok) return sent;
  return { ok: true, value: { ...sent.value, reply: {} } };
};
