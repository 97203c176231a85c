/**
 * Finalizes a `message` event for one queue, as Zulip's Tornado does per client
 * (https://zulip.com/api/get-events): content per `apply_markdown`, avatar per
 * `client_gravatar`, the empty topic per the `empty_topic_name` capability, the receiving user's
 * `flags`, and `local_message_id` for the sender's queue.
 *
 * The message object depends only on those three queue settings, so one publish builds at most
 * eight variants and shares them between queues (a channel with 1,000 listening queues would
 * otherwise copy the message 1,000 times). Shared objects are never mutated afterwards.
 */
import type { EventQueue } from './event-queue.js';
import type { RealmEvent } from './realm-event.js';
import type { ClientEventOf, MessageObject } from './schemas.js';

/** The flags of a receiver `MessageEventExtras.flags` does not list (shared, never mutated). */
const NO_FLAGS: readonly string[] = Object.freeze([]);

/** Message objects already built for one event, by settings variant. */
export type MessageVariants = Map<number, MessageObject>;

/** A `message` event for one queue, before the queue assigns its `id`. */
export type MessageEventPayload = Omit<ClientEventOf<'message'>, 'id'>;

/** The message object of a `message` event (only those carry `RealmEvent.message` extras). */
function messageOf(event: RealmEvent): MessageObject {
  if (event.payload.type !== 'message') throw new Error(`finalizeMessageEvent: a ${event.payload.type} event is not a message event`);
  return event.payload.message;
}

function variantOf(queue: EventQueue, event: RealmEvent, variants: MessageVariants): MessageObject {
  const extras = event.message!;
  const raw = !queue.settings.applyMarkdown;
  const nullAvatar = queue.settings.clientGravatar && extras.senderEmailPublic;
  const displayName = queue.settings.clientCapabilities.empty_topic_name ? undefined : extras.emptyTopicDisplayName;
  const key = (raw ? 1 : 0) | (nullAvatar ? 2 : 0) | (displayName !== undefined ? 4 : 0);
  let message = variants.get(key);
  if (message === undefined) {
    message = { ...messageOf(event) };
    if (raw) {
      message.content = extras.raw;
      message.content_type = 'text/x-markdown';
    }
    if (nullAvatar) message.avatar_url = null;
    if (displayName !== undefined) message.subject = displayName;
    variants.set(key, message);
  }
  return message;
}

/**
 * The event payload for `queue`, or null when the queue's narrow excludes the message.
 * `variants` is a cache shared by all queues receiving this same event.
 */
export function finalizeMessageEvent(queue: EventQueue, event: RealmEvent, variants: MessageVariants): MessageEventPayload | null {
  const extras = event.message!;
  if (queue.settings.narrow !== null && !queue.settings.narrow(messageOf(event))) return null;
  const payload: MessageEventPayload = {
    type: 'message',
    message: variantOf(queue, event, variants),
    // Shared between the queues of one user and never mutated afterwards (see the module comment).
    flags: (extras.flags[queue.userId] ?? NO_FLAGS) as string[],
  };
  if (extras.senderQueueId !== undefined && extras.senderQueueId === queue.id && extras.localId !== undefined) {
    payload.local_message_id = extras.localId;
  }
  return payload;
}
