/**
 * `create_channel`: `POST /channels/create` (seed §4.3; zulip-behavior.md §3.2; Zulip's
 * zerver/views/streams.py `create_channel`) and system setup (the demo organization, the CLI,
 * tests: `actorId` null, no permission checks, no Notification Bot notices). The one command that
 * creates a channel, so every channel is created with the same validation and wording.
 *
 * Events: `stream` op `create` `{streams: [stream]}` to everyone with metadata access to the new
 * channel, `subscription` op `add` (full objects incl. `subscribers`) to the new subscribers, and
 * `subscription` op `peer_add` `{stream_ids, user_ids}` to the other users who can see it.
 */
import { ok, fail, Errors } from '../../errors.js';
import { checkStreamName, findStreamByName, pickColor } from '../../domain/streams.js';
import { streamToWire } from '../../events/wire/streams.js';
import { defaultStreamGroups } from '../../domain/groups.js';
import { Role, STREAM_GROUP_SETTINGS, type RealmState, type Stream, type StreamGroupSetting, type TopicsPolicy, type User } from '../../domain/realm-state.js';
import type { RealmRecord, StreamCreated, SubscriptionsAdded } from '../../domain/records.js';
import { parseGroupSettingValue, parseRetentionDays, parseTopicsPolicy, webPublicChannelsEnabled } from '../../domain/channel-settings.js';
import { isUsableChannelFolder } from '../../domain/channel-folders.js';
import type { CommandReplies } from '../commands.js';
import type { Handler, RealmEvent } from '../decision.js';
import { channelCreatedNotice, newChannelsAnnouncement } from '../notifications.js';
import { checkDescription, isError, renderDescription, viewers } from './channels.js';
import { hasRealmPermission, isRealmAdmin, requireNonGuest } from '../../domain/access.js';

/** `POST /channels/create` (FL 417). */
export interface CreateChannel {
  type: 'create_channel';
  /** Acting user, or null for system setup (demo organization, CLI, tests): no permission checks, no notices. */
  actorId: number | null;
  name: string;
  /** User ids to subscribe (required on the wire; may be empty). */
  subscriberIds: number[];
  description: string;
  /** Announce in the new-channels announcement channel (default false). */
  announce?: boolean;
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefault: boolean;
  /** Channel folder; null or absent = none. */
  folderId?: number | null;
  /** Raw `topics_policy`; undefined = `inherit`. */
  topicsPolicy?: string;
  historyPublicToSubscribers?: boolean;
  /** Raw `message_retention_days` (`realm_default`, `unlimited`, positive integer); undefined = realm default. */
  messageRetentionDays?: unknown;
  /** Raw group-setting values by setting name (only those given). */
  groups?: Record<string, unknown>;
}

/** Whether the realm-level group setting `setting` (e.g. `can_create_public_channel_group`) allows `user`. */
const mayCreate = (state: RealmState, user: User, setting: string): boolean => hasRealmPermission(state, user, setting);

/** `POST /channels/create` (seed §4.3). Reply: the new channel's id. */
export const createChannel: Handler<CreateChannel, CommandReplies['create_channel']> = (state, cmd, ctx) => {
  const actor = cmd.actorId === null ? null : state.users.get(cmd.actorId);
  if (actor === undefined || (actor !== null && !actor.isActive)) return fail(Errors.noSuchUser());
  const nonGuest = actor === null ? null : requireNonGuest(actor);
  if (nonGuest !== null && !nonGuest.ok) return nonGuest;
  const folderId = cmd.folderId ?? null;
  const name = checkStreamName(cmd.name);
  if (!name.ok) return fail(Errors.badRequest(name.msg));
  if (findStreamByName(state, name.name)) return fail(Errors.channelAlreadyExists(name.name));
  const description = checkDescription(cmd.description);
  if (isError(description)) return fail(description);

  // Who may create what (seed §4.3, zulip-behavior.md §3.2 step 4); system setup may create anything.
  const may = (setting: string) => actor === null || mayCreate(state, actor, setting);
  if (!may(cmd.inviteOnly ? 'can_create_private_channel_group' : 'can_create_public_channel_group')) return fail(Errors.insufficientPermission());
  if (cmd.isWebPublic && actor !== null) {
    if (!webPublicChannelsEnabled(state)) return fail(Errors.badRequest('Web-public channels are not enabled.'));
    if (cmd.inviteOnly) return fail(Errors.badRequest('Invalid parameters'));
    if (!may('can_create_web_public_channel_group')) return fail(Errors.insufficientPermission());
  }
  if (cmd.isDefault && actor !== null && !isRealmAdmin(actor)) return fail(Errors.insufficientPermission());
  if (cmd.isDefault && cmd.inviteOnly) return fail(Errors.badRequest('A default channel cannot be private.'));
  const history = cmd.inviteOnly ? (cmd.historyPublicToSubscribers ?? false) : true;
  if (!cmd.inviteOnly && cmd.historyPublicToSubscribers === false) return fail(Errors.badRequest('Invalid parameters'));

  let retention: number | null = null;
  if (cmd.messageRetentionDays !== undefined) {
    const parsed = parseRetentionDays(cmd.messageRetentionDays);
    if (isError(parsed)) return fail(parsed);
    if (parsed !== null && actor !== null && actor.role !== Role.owner) return fail(Errors.mustBeOwner());
    retention = parsed;
  }
  let topicsPolicy: TopicsPolicy = 'inherit';
  if (cmd.topicsPolicy !== undefined) {
    const parsed = parseTopicsPolicy(cmd.topicsPolicy);
    if (isError(parsed)) return fail(parsed);
    topicsPolicy = parsed;
  }
  // Zulip's `get_channel_folder_by_id`; an archived folder is refused with the same error.
  if (folderId !== null && !isUsableChannelFolder(state, folderId)) return fail(Errors.badRequest('Invalid channel folder ID'));

  const groups = defaultStreamGroups(state, actor?.id ?? null);
  for (const [key, raw] of Object.entries(cmd.groups ?? {})) {
    if (!(STREAM_GROUP_SETTINGS as readonly string[]).includes(key)) return fail(Errors.badRequest(`Invalid setting ${key}`));
    const parsed = parseGroupSettingValue(state, key, raw);
    if (isError(parsed)) return fail(parsed);
    groups[key as StreamGroupSetting] = parsed;
  }

  const subscriberIds = [...new Set(cmd.subscriberIds)];
  for (const id of subscriberIds) if (!state.users.get(id)?.isActive) return fail(Errors.noSuchUser());
  // Subscribing others needs the realm's `can_add_subscribers_group` (zulip-behavior.md §3.2 step 2).
  if (actor !== null && subscriberIds.some((id) => id !== actor.id) && !mayCreate(state, actor, 'can_add_subscribers_group')) {
    return fail(Errors.insufficientPermission());
  }

  const id = state.nextIds.stream;
  const recipientId = state.nextIds.recipient;
  const created: StreamCreated = {
    type: 'stream_created',
    v: 1,
    id,
    recipientId,
    name: name.name,
    description,
    renderedDescription: renderDescription(description),
    dateCreated: Math.floor(ctx.now()),
    creatorId: actor?.id ?? null,
    inviteOnly: cmd.inviteOnly,
    isWebPublic: cmd.isWebPublic,
    historyPublicToSubscribers: history,
    isDefault: cmd.isDefault,
    messageRetentionDays: retention,
    topicsPolicy,
    folderId,
    groups,
  };
  const subscriptions: SubscriptionsAdded = {
    type: 'subscriptions_added',
    v: 1,
    streamId: id,
    subscriptions: subscriberIds.map((userId) => ({ userId, color: pickColor(state, userId, recipientId) })),
  };

  // The channel as it will be, for the events (the state is not changed here).
  const stream: Stream = {
    id, name: created.name, description, renderedDescription: created.renderedDescription, dateCreated: created.dateCreated,
    creatorId: actor?.id ?? null, inviteOnly: cmd.inviteOnly, isWebPublic: cmd.isWebPublic, historyPublicToSubscribers: history,
    isArchived: false, isDefault: cmd.isDefault, firstMessageId: null, messageRetentionDays: retention, topicsPolicy,
    folderId, recipientId, groups,
  };
  const subscriberSet = new Set(subscriberIds);
  const wire = { ...streamToWire(state, stream), subscriber_count: subscriberIds.length };
  const sortedSubscribers = [...subscriberIds].sort((a, b) => a - b);
  const seeing = viewers(state, stream, subscriberSet);
  // As Zulip: the channel is announced before its subscriptions (count 0); `subscription` `add` /
  // `peer_add` then bring the subscribers.
  const events: RealmEvent[] = [{ userIds: seeing, payload: { type: 'stream', op: 'create', streams: [{ ...wire, subscriber_count: 0 }] } }];
  for (const { userId, color } of subscriptions.subscriptions) {
    events.push({
      userIds: [userId],
      payload: {
        type: 'subscription',
        op: 'add',
        subscriptions: [{
          ...wire, color, is_muted: false, in_home_view: true, pin_to_top: false, desktop_notifications: null,
          audible_notifications: null, push_notifications: null, email_notifications: null, wildcard_mentions_notify: null,
          subscribers: sortedSubscribers,
        }],
      },
    });
  }
  const peers = seeing.filter((u) => !subscriberSet.has(u));
  if (peers.length > 0 && subscriberIds.length > 0) {
    events.push({ userIds: peers, payload: { type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: sortedSubscribers } });
  }
  const records: RealmRecord[] = subscriberIds.length > 0 ? [created, subscriptions] : [created];
  // Notification Bot notices name the creator; system setup posts none.
  const followUps = actor === null ? [] : [channelCreatedNotice(actor, stream), ...(cmd.announce ? newChannelsAnnouncement(state, actor, [stream.name]) : [])];
  return ok({ records, events, reply: { streamId: id }, followUps });
};
