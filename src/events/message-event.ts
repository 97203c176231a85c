/**
 * Finalizes a `message` event for one queue, as Zulip's Tornado does per client
 * (zulip-behavior.md §10.4, seed §6.2): content per `apply_markdown`, avatar per
 * `client_gravatar`, the receiving user's `flags`, and `local_message_id` for the sender's queue.
 */
import type { EventQueue } from './event-queue.js';
import type { RealmEvent } from './realm-event.js';

/** The event payload for `queue`, or null when the queue's narrow excludes the message. */
export function finalizeMessageEvent(queue: EventQueue, event: RealmEvent): Record<string, unknown> | null {
  const extras = event.message!;
  const base = event.payload.message as Record<string, unknown>;
  if (queue.settings.narrow !== null && !queue.settings.narrow(base)) return null;
  const message = { ...base };
  if (!queue.settings.applyMarkdown) {
    message.content = extras.raw;
    message.content_type = 'text/x-markdown';
  }
  if (queue.settings.clientGravatar && extras.senderEmailPublic) message.avatar_url = null;
  if (extras.emptyTopicDisplayName !== undefined && !queue.settings.clientCapabilities.empty_topic_name) {
    message.subject = extras.emptyTopicDisplayName;
  }
  const payload: Record<string, unknown> = { type: 'message', message, flags: extras.flags[queue.userId] ?? [] };
  if (extras.senderQueueId !== undefined && extras.senderQueueId === queue.id && extras.localId !== undefined) {
    payload.local_message_id = extras.localId;
  }
  return payload;
}
