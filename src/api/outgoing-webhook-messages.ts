/**
 * What outgoing webhook bots send and say (Zulip's zerver/lib/outgoing_webhook.py): the request
 * bodies of the generic and Slack-compatible interfaces (`GenericOutgoingWebhookService.make_request`,
 * `SlackOutgoingWebhookService.make_request`), how an answer becomes the bot's reply
 * (`process_success_response`, `process_success`), and the failure texts (`fail_with_message`,
 * `notify_bot_owner`, `request_retry`, `do_rest_call`).
 */
import type { EventPayloadOf } from '../events/schemas.js';
import type { BotService } from '../domain/bots.js';
import { ServiceInterface } from '../domain/bots.js';

/** The message as Zulip's outgoing webhooks see it: Markdown `content` plus `rendered_content`. */
export type WebhookMessage = Omit<EventPayloadOf<'message'>['message'], 'flags'> & { rendered_content: string };

/** One triggered call: the bot, why (`mention` or `direct_message`), and the message. */
export interface WebhookTrigger {
  realmId: number;
  botId: number;
  trigger: 'mention' | 'direct_message';
  message: WebhookMessage;
}

/** The request for `service` (generic: JSON; Slack: form fields, channel messages only). */
export function webhookRequest(
  service: BotService,
  bot: { email: string; fullName: string },
  job: WebhookTrigger,
  realm: { id: number; host: string },
): { body: string; contentType: string } {
  const message = job.message;
  if (service.interface === ServiceInterface.slack) {
    // https://api.slack.com/legacy/custom-integrations/outgoing-webhooks (Zulip's field list).
    const form = new URLSearchParams([
      ['token', service.token],
      ['team_id', `T${realm.id}`],
      ['team_domain', realm.host],
      ['channel_id', `C${message.stream_id ?? ''}`],
      ['channel_name', typeof message.display_recipient === 'string' ? message.display_recipient : ''],
      ['thread_ts', String(message.timestamp)],
      ['timestamp', String(message.timestamp)],
      ['user_id', `U${message.sender_id}`],
      ['user_name', message.sender_full_name],
      ['text', message.content],
      ['trigger_word', job.trigger],
      ['service_id', String(job.botId)],
    ]);
    return { body: form.toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  const body = { data: message.content, message, bot_email: bot.email, bot_full_name: bot.fullName, token: service.token, trigger: job.trigger };
  return { body: JSON.stringify(body), contentType: 'application/json' };
}

/** The reply content a 2xx answer asks for, null for none, or the error text (`process_success_response`). */
export function replyFromAnswer(service: BotService, text: string): { content: string | null } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: 'Invalid JSON in response' };
  }
  // zulip_botserver before 2021-05 answered json.dumps("") for "no response required".
  if (json === '') return { content: null };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { error: 'Invalid response format' };
  const answer = json as Record<string, unknown>;
  let content: unknown = null;
  if (service.interface === ServiceInterface.slack) {
    if ('text' in answer) content = answer.text;
  } else if (answer.response_not_required === true) {
    content = null;
  } else if ('response_string' in answer) {
    content = answer.response_string;
  } else if ('content' in answer) {
    content = answer.content;
  }
  if (content === null || content === undefined) return { content: null };
  const str = typeof content === 'string' ? content : JSON.stringify(content);
  return { content: str.trim() === '' ? null : str };
}

/** Python's `repr()` of a bytes object (how Zulip quotes a failed answer's payload to the owner). */
export function pythonBytesRepr(bytes: Buffer): string {
  const quote = bytes.includes(0x27) && !bytes.includes(0x22) ? '"' : "'";
  let out = '';
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\';
    else if (b === quote.charCodeAt(0)) out += `\\${quote}`;
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `b${quote}${out}${quote}`;
}

/** What went wrong, for the owner's notice (`notify_bot_owner`'s arguments). */
export type OwnerNotice = { failureMessage: string } | { statusCode: number; responseContent?: Buffer };

/** The DM to the bot's owner (`notify_bot_owner`). */
export function ownerNoticeText(messageUrl: string, botName: string, notice: OwnerNotice): string {
  let text = `[A message](${messageUrl}) to your bot @_**${botName}** triggered an outgoing webhook.`;
  if ('failureMessage' in notice) text += `\n${notice.failureMessage}`;
  else if (notice.statusCode === 407) text += '\nThe URL configured for the webhook is for a private or disallowed network.';
  else text += `\nThe webhook got a response with status code *${notice.statusCode}*.`;
  if ('responseContent' in notice && notice.responseContent !== undefined && notice.responseContent.length > 0) {
    text += `\nThe response contains the following payload:\n\`\`\`\n${pythonBytesRepr(notice.responseContent)}\n\`\`\``;
  }
  return text;
}

/** `request_retry`'s texts for a timeout and a connection error. */
export const retryFailure = {
  timeout: (seconds: number) => `Request timed out after ${seconds} seconds.`,
  connection: (content: string) =>
    `The message \`${content}\` resulted in a connection error when sending a request to an outgoing webhook! See the Zulip server logs for more information.`,
};

/** `do_rest_call`'s owner notice when the reply the service asked for could not be sent. */
export const replyFailure = (error: string) =>
  `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${error}`;
