/**
 * Commands of the channel API (https://zulip.com/api/update-stream,
 * https://zulip.com/api/create-channel, https://zulip.com/api/get-stream-by-id,
 * https://zulip.com/api/get-stream-id, https://zulip.com/api/archive-stream,
 * https://zulip.com/api/get-subscribers); re-exported by
 * `commands.ts`. Raw wire values are passed through and validated by the handler
 * (`realm/handlers/channels.ts`) against the state it decides on.
 */

/** `POST /channels/create` (FL 417). */
export interface CreateChannel {
  type: 'create_channel';
  actorId: number;
  name: string;
  /** User ids to subscribe (required on the wire; may be empty). */
  subscriberIds: number[];
  description: string;
  announce: boolean;
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefault: boolean;
  folderId: number | null;
  /** Raw `topics_policy`; undefined = `inherit`. */
  topicsPolicy?: string;
  historyPublicToSubscribers?: boolean;
  /** Raw `message_retention_days` (`realm_default`, `unlimited`, positive integer); undefined = realm default. */
  messageRetentionDays?: unknown;
  /** Raw group-setting values by setting name (only those given). */
  groups: Record<string, unknown>;
}

/** `PATCH /streams/{stream_id}`: each field present = that parameter was given. */
export interface UpdateChannel {
  type: 'update_channel';
  actorId: number;
  streamId: number;
  newName?: string;
  description?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault?: boolean;
  messageRetentionDays?: unknown;
  isArchived?: boolean;
  /** null = remove from its folder. */
  folderId?: number | null;
  topicsPolicy?: string;
  /** Raw `{new, old?}` update objects by setting name. */
  groups: Record<string, unknown>;
}

/** `DELETE /streams/{stream_id}`: archive the channel. */
export interface ArchiveChannel {
  type: 'archive_channel';
  actorId: number;
  streamId: number;
}
