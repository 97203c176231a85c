/**
 * Channel update and archiving (seed §2.10–2.11, §3, §4.2; zulip-behavior.md §3.10–3.11), and the
 * helpers channel creation (`channel-create.ts`) shares. Pure `decide` functions: errors as
 * values, records + events on success. Access is `accessStreamForAdminister` (Zulip's
 * `access_stream_for_delete_or_update_requiring_metadata_access`).
 *
 * Events (zulip-behavior.md §10.4):
 * - update: one `stream` op `update` `{stream_id, name, property, value}` per changed property
 *   (`name` is the OLD name on renames; `rendered_description` with `description`;
 *   `history_public_to_subscribers` and `is_web_public` with `invite_only`);
 * - archive (Zulip's `do_deactivate_stream`, FL 315 `archived_channels` capability): to everyone who
 *   could see it, `stream` op `update` `{property: "is_archived", value: true}` for queues with the
 *   capability and op `delete` `{streams: [stream]}` for the others (a default channel first gets
 *   `update is_default_stream false`); unarchive (`do_unarchive_stream`): `update is_archived false`
 *   resp. op `create`; privacy changes: `create` / `delete` to users gaining / losing access.
 */
import { ok, fail, Errors, ZulipError, type Result } from '../../errors.js';
import { checkStreamName, findStreamByName } from '../../domain/streams.js';
import { streamToWire } from '../../events/wire/streams.js';
import { MAX_STREAM_DESCRIPTION_LENGTH, codePointLength } from '../../domain/messages.js';
import { Role, STREAM_GROUP_SETTINGS, type GroupSettingValue, type RealmState, type Stream, type StreamGroupSetting, type User } from '../../domain/realm-state.js';
import type { StreamChanges } from '../../domain/records.js';
import { accessStreamForAdminister, canSeeWithSubscribers, hasContentAccess, hasRealmPermission, isRealmAdmin } from '../../domain/access.js';
import { parseGroupSettingValue, parseRetentionDays, parseTopicsPolicy, sameGroupSetting, webPublicChannelsEnabled } from '../../domain/channel-settings.js';
import { messageLookupIndex } from '../../domain/recipient-index.js';
import { isUsableChannelFolder } from '../../domain/channel-folders.js';
import { renderMarkdown } from '../../markdown/render.js';
import type { CommandReplies } from '../commands.js';
import type { Handler, RealmEvent } from '../decision.js';
import { channelChangeNotices } from '../notifications.js';


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

/** Whether a parse result is an error value. */
export const isError = (v: unknown): v is ZulipError => v instanceof ZulipError;

/** Newlines become spaces; the length limit is in code points (zulip-behavior.md §3.10). */
export function checkDescription(raw: string): string | ZulipError {
  const description = raw.replace(/\r?\n/g, ' ');
  if (codePointLength(description) > MAX_STREAM_DESCRIPTION_LENGTH) {
    return Errors.badRequest(`description is too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters)`);
  }
  return description;
}

/** Rendered HTML of a channel description ('' stays ''). */
export const renderDescription = (description: string) => (description === '' ? '' : renderMarkdown(description));

/** Active users with metadata access to `stream` (with `subscriberIds` as its subscribers). */
export function viewers(state: RealmState, stream: Stream, subscriberIds: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (const user of state.users.values()) if (user.isActive && canSeeWithSubscribers(state, user, stream, subscriberIds)) out.push(user.id);
  return out;
}

/** Parses a `{new, old?}` group-setting update (seed §4.2). */
function parseUpdate(state: RealmState, stream: Stream, key: StreamGroupSetting, raw: unknown): GroupSettingValue | ZulipError {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('new' in raw)) {
    return Errors.badRequest(`${key} is not a valid group-setting update`);
  }
  const update = raw as { new: unknown; old?: unknown };
  const next = parseGroupSettingValue(state, key, update.new);
  if (isError(next)) return next;
  if ('old' in update) {
    // `old` is compared in normalized form; a value that is not even valid cannot match.
    const old = parseGroupSettingValue(state, key, update.old);
    if (isError(old) || !sameGroupSetting(old, stream.groups[key])) return Errors.badRequest("'old' value does not match the expected value.");
  }
  return next;
}

/** Whether every message of the channel is in the empty topic. */
function onlyEmptyTopic(state: RealmState, stream: Stream): boolean {
  const ids = messageLookupIndex(state).byRecipient.get(stream.recipientId);
  if (ids === undefined) return true;
  for (let i = 0; i < ids.length; i++) {
    const id = ids.get(i);
    if (!state.messages.exists(id) || state.messages.recipient.get(id) !== stream.recipientId) continue;
    if (state.topics.value(state.messages.topic.get(id)) !== '') return false;
  }
  return true;
}

/** Common access check of PATCH and DELETE (zulip-behavior.md §3.10): the stream, or the error. */
function administeredStream(state: RealmState, actorId: number, streamId: number): Result<{ actor: User; stream: Stream }> {
  const actor = state.users.get(actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.invalidStreamId());
  const access = accessStreamForAdminister(state, actor, streamId);
  return access.ok ? ok({ actor, stream: access.value.stream }) : access;
}

/** Settings that need only metadata access to change (seed §2.11); the others need content access. */
const METADATA_SETTINGS: ReadonlySet<string> = new Set([
  'can_add_subscribers_group', 'can_remove_subscribers_group', 'can_administer_channel_group', 'can_subscribe_group',
]);

/** `PATCH /streams/{stream_id}` (seed §4.2, zulip-behavior.md §3.10). */
export const updateChannel: Handler<UpdateChannel, CommandReplies['update_channel']> = (state, cmd) => {
  const access = administeredStream(state, cmd.actorId, cmd.streamId);
  if (!access.ok) return access;
  const { actor, stream } = access.value;
  const changes: StreamChanges = {};

  if (stream.isArchived && cmd.isArchived !== false) {
    const onlyPrivacy = cmd.newName === undefined && cmd.description === undefined && cmd.isDefault === undefined &&
      cmd.messageRetentionDays === undefined && cmd.folderId === undefined && cmd.topicsPolicy === undefined &&
      Object.keys(cmd.groups).length === 0;
    if (!onlyPrivacy) return fail(Errors.badRequest('Invalid channel ID'));
  }
  if (cmd.isArchived !== undefined) {
    if (cmd.isArchived) return fail(Errors.badRequest('Channel can only be unarchived; use DELETE to archive it.'));
    if (!stream.isArchived) return fail(Errors.badRequest('Channel is not archived.'));
    changes.isArchived = false;
  }

  // Proposed privacy (zulip-behavior.md §3.10).
  const inviteOnly = cmd.isPrivate ?? stream.inviteOnly;
  const webPublic = cmd.isWebPublic ?? stream.isWebPublic;
  const history = cmd.historyPublicToSubscribers ?? (cmd.isPrivate !== undefined ? !cmd.isPrivate : stream.historyPublicToSubscribers);
  const isDefault = cmd.isDefault ?? stream.isDefault;
  if (cmd.isPrivate !== undefined || cmd.isWebPublic !== undefined || cmd.historyPublicToSubscribers !== undefined || cmd.isDefault !== undefined) {
    if (webPublic && (!history || inviteOnly)) return fail(Errors.badRequest('Invalid parameters'));
    if (!inviteOnly && !history) return fail(Errors.badRequest('Invalid parameters'));
    if (inviteOnly && isDefault) return fail(Errors.badRequest('A default channel cannot be private.'));
  }
  if (cmd.isPrivate !== undefined && !hasContentAccess(state, actor, stream)) return fail(Errors.invalidStreamId());
  if (cmd.isWebPublic === true && !stream.isWebPublic) {
    if (!webPublicChannelsEnabled(state)) return fail(Errors.badRequest('Web-public channels are not enabled.'));
    if (!hasRealmPermission(state, actor, 'can_create_web_public_channel_group')) return fail(Errors.insufficientPermission());
  }
  if (cmd.isDefault !== undefined && !isRealmAdmin(actor)) return fail(Errors.mustBeAdmin());
  if (inviteOnly !== stream.inviteOnly || webPublic !== stream.isWebPublic || history !== stream.historyPublicToSubscribers) {
    changes.inviteOnly = inviteOnly;
    changes.isWebPublic = webPublic;
    changes.historyPublicToSubscribers = history;
  }
  if (isDefault !== stream.isDefault) changes.isDefault = isDefault;

  if (cmd.messageRetentionDays !== undefined) {
    if (actor.role !== Role.owner) return fail(Errors.mustBeOwner());
    const parsed = parseRetentionDays(cmd.messageRetentionDays);
    if (isError(parsed)) return fail(parsed);
    if (parsed !== stream.messageRetentionDays) changes.messageRetentionDays = parsed;
  }

  if (cmd.newName !== undefined) {
    const stripped = cmd.newName.trim();
    if (stripped === stream.name) return fail(Errors.badRequest('Channel already has that name!'));
    if (stripped.toLowerCase() !== stream.name.toLowerCase()) {
      const name = checkStreamName(stripped);
      if (!name.ok) return fail(Errors.badRequest(name.msg));
      if (findStreamByName(state, name.name)) return fail(Errors.badRequest(`Channel name '${name.name}' is already taken.`));
    }
    changes.name = stripped;
  }
  if (cmd.description !== undefined) {
    const description = checkDescription(cmd.description);
    if (isError(description)) return fail(description);
    if (description !== stream.description) {
      changes.description = description;
      changes.renderedDescription = renderDescription(description);
    }
  }
  if (cmd.folderId !== undefined) {
    if (cmd.folderId !== null && !isUsableChannelFolder(state, cmd.folderId)) return fail(Errors.badRequest('Invalid channel folder ID'));
    if (stream.folderId !== cmd.folderId) changes.folderId = cmd.folderId;
  }
  if (cmd.topicsPolicy !== undefined) {
    const policy = parseTopicsPolicy(cmd.topicsPolicy);
    if (isError(policy)) return fail(policy);
    if (policy === 'empty_topic_only' && !onlyEmptyTopic(state, stream)) {
      return fail(Errors.badRequest("To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics."));
    }
    if (policy !== stream.topicsPolicy) changes.topicsPolicy = policy;
  }
  const groupChanges: Partial<Record<StreamGroupSetting, GroupSettingValue>> = {};
  for (const [key, raw] of Object.entries(cmd.groups)) {
    if (!(STREAM_GROUP_SETTINGS as readonly string[]).includes(key)) return fail(Errors.badRequest(`Invalid setting ${key}`));
    const setting = key as StreamGroupSetting;
    // Content-related settings need content access; the others metadata access (seed §2.11).
    if (!METADATA_SETTINGS.has(setting) && !hasContentAccess(state, actor, stream)) return fail(Errors.invalidStreamId());
    const next = parseUpdate(state, stream, setting, raw);
    if (isError(next)) return fail(next);
    if (!sameGroupSetting(next, stream.groups[setting])) groupChanges[setting] = next;
  }
  if (Object.keys(groupChanges).length > 0) changes.groups = groupChanges;

  if (Object.keys(changes).length === 0) return ok({ records: [], events: [], reply: {} });
  const followUps = channelChangeNotices(actor, stream, {
    name: changes.name ?? stream.name,
    description: changes.description ?? stream.description,
    inviteOnly, isWebPublic: webPublic, historyPublicToSubscribers: history,
  });
  return ok({ records: [{ type: 'stream_updated', v: 1, streamId: stream.id, changes }], events: updateEvents(state, stream, changes), reply: {}, followUps });
};

/** `RealmEvent.capability` for the two variants of an archival change (`archived_channels`). */
const withArchivedChannels = (has: boolean) => ({ capability: { name: 'archived_channels', has } });

/**
 * Events of an update: `stream` op `update` per changed property to users who can see the channel
 * before and after; users who gain access get `stream` op `create` (with the updated channel), users
 * who lose it `stream` op `delete`. Unarchiving: clients without the `archived_channels`
 * capability do not know archived channels, so every viewer gets `create`; clients with it get
 * `update is_archived false` and then the events of the other changes.
 */
function updateEvents(state: RealmState, stream: Stream, changes: StreamChanges): RealmEvent[] {
  if (changes.isArchived !== false) return changeEvents(state, stream, changes, stream.isArchived);
  const subscribers = new Set(state.subscriptions.get(stream.id)?.keys() ?? []);
  const unarchived: RealmEvent = {
    userIds: viewers(state, stream, subscribers).sort((a, b) => a - b),
    payload: { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_archived', value: false },
    ...withArchivedChannels(true),
  };
  const { isArchived: _unarchive, ...others } = changes;
  return [
    ...changeEvents(state, stream, changes, true).map((e) => ({ ...e, ...withArchivedChannels(false) })),
    ...(unarchived.userIds.length > 0 ? [unarchived] : []),
    ...changeEvents(state, { ...stream, isArchived: false }, others, false).map((e) => ({ ...e, ...withArchivedChannels(true) })),
  ];
}

/** `updateEvents` for given changes; `hiddenBefore`: nobody knew the channel before (archived). */
function changeEvents(state: RealmState, stream: Stream, changes: StreamChanges, hiddenBefore: boolean): RealmEvent[] {
  const subscribers = new Set(state.subscriptions.get(stream.id)?.keys() ?? []);
  const after: Stream = { ...stream, ...changes, groups: { ...stream.groups, ...changes.groups } } as Stream;
  const ascending = (a: number, b: number) => a - b;
  const beforeIds = hiddenBefore ? [] : viewers(state, stream, subscribers);
  const afterIds = after.isArchived ? [] : viewers(state, after, subscribers);
  const beforeSet = new Set(beforeIds);
  const afterSet = new Set(afterIds);
  const both = beforeIds.filter((id) => afterSet.has(id)).sort(ascending);
  const gained = afterIds.filter((id) => !beforeSet.has(id)).sort(ascending);
  const lost = beforeIds.filter((id) => !afterSet.has(id)).sort(ascending);
  const events: RealmEvent[] = [];
  const event = (property: string, value: unknown, extra: Record<string, unknown> = {}) => {
    if (both.length > 0) {
      events.push({ userIds: both, payload: { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property, value, ...extra } });
    }
  };
  if (changes.name !== undefined) event('name', changes.name);
  if (changes.description !== undefined) event('description', changes.description, { rendered_description: changes.renderedDescription });
  if (changes.inviteOnly !== undefined) {
    event('invite_only', changes.inviteOnly, { history_public_to_subscribers: changes.historyPublicToSubscribers, is_web_public: changes.isWebPublic });
  }
  if (changes.isDefault !== undefined) event('is_default_stream', changes.isDefault);
  if (changes.messageRetentionDays !== undefined) event('message_retention_days', changes.messageRetentionDays);
  if (changes.folderId !== undefined) event('folder_id', changes.folderId);
  if (changes.topicsPolicy !== undefined) event('topics_policy', changes.topicsPolicy);
  for (const [key, value] of Object.entries(changes.groups ?? {})) event(key, value);
  if (gained.length > 0) events.push({ userIds: gained, payload: { type: 'stream', op: 'create', streams: [streamToWire(state, after)] } });
  if (lost.length > 0) events.push({ userIds: lost, payload: { type: 'stream', op: 'delete', streams: [streamToWire(state, stream)] } });
  return events;
}

/** `DELETE /streams/{stream_id}` (zulip-behavior.md §3.11; FL 388+: the channel stays, archived). */
export const archiveChannel: Handler<ArchiveChannel, CommandReplies['archive_channel']> = (state, cmd) => {
  const access = administeredStream(state, cmd.actorId, cmd.streamId);
  if (!access.ok) return access;
  const { stream } = access.value;
  if (stream.isArchived) return fail(Errors.badRequest('Channel is already deactivated'));
  const subscribers = new Set(state.subscriptions.get(stream.id)?.keys() ?? []);
  const changes: StreamChanges = { isArchived: true, ...(stream.isDefault && { isDefault: false }) };
  const seeing = viewers(state, stream, subscribers).sort((a, b) => a - b);
  const events: RealmEvent[] = [];
  // Zulip removes a default channel from the defaults first (`do_remove_default_stream`).
  if (stream.isDefault) {
    events.push({ userIds: seeing, payload: { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_default_stream', value: false } });
  }
  events.push(
    {
      userIds: seeing,
      payload: { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_archived', value: true },
      ...withArchivedChannels(true),
    },
    { userIds: seeing, payload: { type: 'stream', op: 'delete', streams: [streamToWire(state, stream)] }, ...withArchivedChannels(false) },
  );
  return ok({ records: [{ type: 'stream_updated', v: 1, streamId: stream.id, changes }], events, reply: {} });
};
