import type { EventPayload, EventPayloadOf } from './schemas.js';

/**
 * A `message` event as a handler decides it: the per-queue `flags` and `local_message_id` are
 * added for each queue by `finalizeMessageEvent` (message-event.ts).
 */
export type MessageEventDecided = Omit<EventPayloadOf<'message'>, 'flags' | 'local_message_id'>;

/** What a handler may emit: any client event without its queue `id`, `message` before finalization. */
export type RealmEventPayload = Exclude<EventPayload, { type: 'message' }> | MessageEventDecided;

/**
 * A Zulip client event decided by a realm handler, to deliver once the command's records are
 * durable, to the event queues of `userIds` (src/README.md: request path).
 */
export interface RealmEvent {
  userIds: readonly number[];
  /**
   * The event without its per-queue `id`: the static type of its schema (schemas.ts
   * `EVENT_SCHEMAS`), so a wrong field name or type fails `tsc`; handler tests also check each
   * emitted event against its schema at run time (`verifyAction`).
   */
  payload: RealmEventPayload;
  /** Present on `message` events: what per-queue finalization needs (see message-event.ts). */
  message?: MessageEventExtras;
  /**
   * `delete_message`, `update_message` and `user_topic` events of an empty topic: the name shown instead to clients
   * without the `empty_topic_name` capability (Zulip's `process_deletion_event`, `process_user_topic_event`).
   */
  emptyTopicDisplayName?: string;
  /**
   * Deliver only to queues that declared (`has: true`) or did not declare (`has: false`) the
   * client capability `name`: Zulip's per-capability variants of one change (`accepts_event`),
   * e.g. `user_group` `update {deactivated}` vs `remove` for `include_deactivated_groups`, or
   * `stream` `update is_archived` vs `delete` / `create` for `archived_channels`.
   */
  capability?: { name: string; has: boolean };
}

/**
 * Per-queue parts of a `message` event. `payload.message` carries the rendered HTML as `content`;
 * a queue registered with `apply_markdown: false` gets `raw` instead.
 */
export interface MessageEventExtras {
  /** Raw Markdown content. */
  raw: string;
  /**
   * Whether the sender's avatar is a gravatar of an email visible to everyone: then
   * `client_gravatar` nulls avatar_url (an uploaded avatar's URL is always sent).
   */
  senderEmailPublic: boolean;
  /** Flag names of the receivers that have any (the sender's `read`, mentions...); receivers not listed get []. */
  flags: Readonly<Record<number, readonly string[]>>;
  /** The sending client's queue and its local id (https://zulip.com/api/get-events). */
  senderQueueId?: string;
  localId?: string;
  /** Set when the topic is empty: shown instead to clients without the `empty_topic_name` capability. */
  emptyTopicDisplayName?: string;
  /** Set for messages to public channels: `all_public_streams` queues of other users get them too. */
  publicStreamId?: number;
}
