/**
 * Finalizes a `message` event for one queue, as Zulip's Tornado does per client
 * (zulip-behavior.md §10.4, seed §6.2): content per `apply_markdown`, avatar per
 * `client_gravatar`, the empty topic per the `empty_topic_name` capability, the receiving user's
 * `flags`, and `local_message_id` for the sender's queue.
 *
 * The message object depends only on those three queue settings, so one publish builds at most
 * eight variants and shares them between queues (a channel with 1,000 listening queues would
 * otherwise copy the message 1,000 times). Shared objects are never mutated afterwards.
 */
import type { EventQueue } from './event-queue.js';
import type { RealmEvent } from './realm-event.js';

/** Message objects already built for one event, by settings variant. */
export type MessageVariants = Map<number, Record<string, unknown>>;

function variantOf(queue: EventQueue, event: RealmEvent, variants: MessageVariants): Record<string, unknown> {
  const extras = event.message!;
  const raw = !queue.settings.applyMarkdown;
  const nullAvatar = queue.settings.clientGravatar && extras.senderEmailPublic;
  const displayName = extras.emptyTopicDisplayName !== undefined && !queue.settings.clientCapabilities.empty_topic_name;
  const key = (raw ? 1 : 0) | (nullAvatar ? 2 : 0) | (displayName ? 4 : 0);
  let message = variants.get(key);
  if (message === undefined) {
    message = { ...(event.payload.message as Record<string, unknown>) };
    if (raw) {
      message.content = extras.raw;
      message.content_type = 'text/x-markdown';
    }
    if (nullAvatar) message.avatar_url = null;
    if (displayName) message.subject = extras.emptyTopicDisplayName;
    variants.set(key, message);
  }
  return message;
}

/**
 * The event payload for `queue`, or null when the queue's narrow excludes the message.
 * `variants` is a cache shared by all queues receiving this same event.
 */
export function finalizeMessageEvent(queue: EventQueue, event: RealmEvent, variants: MessageVariants): Record<string, unknown> | null {
  const extras = event.message!;
  if (queue.settings.narrow !== null && !queue.settings.narrow(event.payload.message as Record<string, unknown>)) return null;
  const payload: Record<string, unknown> = {
    type: 'message',
    message: variantOf(queue, event, variants),
    flags: extras.flags[queue.userId] ?? [],
  };
  if (extras.senderQueueId !== undefined && extras.senderQueueId === queue.id && extras.localId !== undefined) {
    payload.local_message_id = extras.localId;
  }
  return payload;
}
