/**
 * `evolve` for channel updates (`stream_updated`, https://zulip.com/api/update-stream): called only
 * from `evolve.ts`, so
 * `evolve` stays the one mutator. Deterministic; applies exactly the keys present in `changes`.
 */
import type { RealmState } from './realm-state.js';
import type { StreamUpdated } from './records.js';

/** Applies a `stream_updated` record: renames keep `streamsByName` in step. */
export function streamUpdated(state: RealmState, r: StreamUpdated): void {
  const stream = state.streams.get(r.streamId)!;
  const c = r.changes;
  if (c.name !== undefined) {
    state.streamsByName.delete(stream.name.toLowerCase());
    stream.name = c.name;
    state.streamsByName.set(c.name.toLowerCase(), stream.id);
  }
  if (c.description !== undefined) stream.description = c.description;
  if (c.renderedDescription !== undefined) stream.renderedDescription = c.renderedDescription;
  if (c.inviteOnly !== undefined) stream.inviteOnly = c.inviteOnly;
  if (c.isWebPublic !== undefined) stream.isWebPublic = c.isWebPublic;
  if (c.historyPublicToSubscribers !== undefined) stream.historyPublicToSubscribers = c.historyPublicToSubscribers;
  if (c.isDefault !== undefined) stream.isDefault = c.isDefault;
  if (c.messageRetentionDays !== undefined) stream.messageRetentionDays = c.messageRetentionDays;
  if (c.isArchived !== undefined) stream.isArchived = c.isArchived;
  if (c.folderId !== undefined) stream.folderId = c.folderId;
  if (c.topicsPolicy !== undefined) stream.topicsPolicy = c.topicsPolicy;
  if (c.groups !== undefined) stream.groups = { ...stream.groups, ...c.groups };
}
