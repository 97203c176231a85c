/**
 * A Zulip client event decided by a realm handler, to deliver once the command's records are
 * durable to the listed users' event queues. `payload` is the event without its per-queue `id`.
 */
export interface RealmEvent {
  userIds: readonly number[];
  payload: Record<string, unknown>;
}
