/**
 * The channel (stream) resource (Zulip's zerver/views/streams.py): `GET /streams`,
 * `POST /channels/create`, `GET`/`PATCH`/`DELETE /streams/{stream_id}` (read, update, archive),
 * `GET /streams/{stream_id}/members`, `GET /streams/{stream_id}/email_address`,
 * `GET /get_stream_id` and a channel's topics, `GET /users/me/{stream_id}/topics`.
 * Writes go through the realm actor (`realm/handlers/channels.ts`); reads never tell an unknown
 * channel from an inaccessible one (the same "Invalid channel ID"). Subscriptions are in
 * `subscriptions.ts`.
 */
import Type from 'typebox';
import { Errors, type ZulipError } from '../errors.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { Role, type RealmState, type Stream, STREAM_GROUP_SETTINGS, type User } from '../domain/realm-state.js';
import { messageLookupIndex } from '../domain/recipient-index.js';
import { streamToWire } from '../events/wire/streams.js';
import { accessStreamById, accessStreamByName, isRealmAdmin, isSubscribed } from '../domain/access.js';
import { createHash } from 'node:crypto';
import { runCommand } from './run-command.js';

/** Channel order of Zulip's lists: Python's sorted() on names (code-unit order, uppercase first). */
export const byName = (a: Stream, b: Stream) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * A channel's email-gateway address, `<name>.<token>@<host>` as Zulip formats it
 * (`encode_email_address`): non-word runs in the name become '-'; the token is stable per channel.
 * parley has no incoming-email gateway, so the address is informational (clients show it); the
 * token is therefore derived, not a stored secret.
 */
export function streamEmailAddress(realmId: number, stream: Stream, host: string): string {
  const name = stream.name.replace(/\W+/gu, '-').replace(/^-|-$/g, '') || 'channel';
  const token = createHash('sha256').update(`${realmId}:${stream.id}:${stream.dateCreated}:parley-email-gateway`).digest('hex').slice(0, 32);
  return `${name}.${token}@${host}`;
}

/**
 * A channel's topics for `viewer` (Zulip's zerver/views/streams.py `get_topics_backend`): grouped
 * case-insensitively, named by their most recent message, sorted by `max_id` descending; with
 * protected history only the topics of messages the viewer received. Cost: one pass over the
 * channel's message ids.
 */
export function streamTopics(state: RealmState, viewerId: number, stream: Stream, allowEmptyTopicName: boolean): Array<{ name: string; max_id: number }> {
  const ids = messageLookupIndex(state).byRecipient.get(stream.recipientId);
  if (ids === undefined) return [];
  const restricted = stream.inviteOnly && !stream.historyPublicToSubscribers;
  const seen = new Set<string>();
  const topics: Array<{ name: string; max_id: number }> = [];
  for (let i = ids.length - 1; i >= 0; i--) {
    const id = ids.get(i);
    if (!state.messages.exists(id) || state.messages.recipient.get(id) !== stream.recipientId) continue;
    if (restricted && state.messages.userFlags(viewerId, id) === undefined) continue;
    const name = state.topics.value(state.messages.topic.get(id));
    const key = name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    topics.push({ name: name === '' && !allowEmptyTopicName ? state.settings.emptyTopicDisplayName : name, max_id: id });
  }
  return topics;
}

/**
 * `GET /users/me/{stream_id}/topics`: the topics of a channel, most recent first (Zulip's
 * zerver/views/streams.py `get_topics_backend`).
 */
export const getStreamTopics = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: { allow_empty_topic_name: P.bool({ default: false }) },
  handler: ({ realm, user, path, params }) => {
    const state = realm.state;
    const access = accessStreamById(state, user, path.stream_id, { requireActive: false });
    if (!access.ok) return access.error;
    return { topics: streamTopics(state, user.id, access.value.stream, params.allow_empty_topic_name) };
  },
});

/** `GET /get_stream_id`: a channel id by name (Zulip's zerver/views/streams.py `json_get_stream_id`). */
export const getStreamId = defineEndpoint({
  auth: 'user',
  params: { stream: P.string({ required: true }) },
  handler: ({ realm, user, params }) => {
    // As Zulip's `access_stream_by_name`: unknown and inaccessible are the same error.
    const access = accessStreamByName(realm.state, user, params.stream, { requireActive: false, requireContentAccess: false });
    return access.ok ? { stream_id: access.value.stream.id } : access.error;
  },
});

/**
 * `GET /streams/{stream_id}/email_address` (Zulip's zerver/views/streams.py
 * `get_stream_email_address`).
 */
export const getStreamEmailAddress = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: { sender_id: P.int() },
  handler: ({ realm, user, path }) => {
    const access = accessStreamById(realm.state, user, path.stream_id, { requireActive: false, requireContentAccess: false });
    return access.ok ? { email: streamEmailAddress(realm.id, access.value.stream, realm.host) } : access.error;
  },
});

/**
 * `GET /streams`: the channels the caller may list (Zulip's zerver/views/streams.py
 * `get_streams_backend`).
 */
export const getStreams = defineEndpoint({
  auth: 'user',
  params: {
    include_public: P.bool({ default: true }),
    include_web_public: P.bool({ default: false }),
    include_subscribed: P.bool({ default: true }),
    exclude_archived: P.bool({ default: true }),
    include_all_active: P.bool({ default: false }),
    include_default: P.bool({ default: false }),
    include_owner_subscribed: P.bool({ default: false }),
  },
  handler: ({ realm, user, params }) => {
    const state = realm.state;
    const me = user;
    if (params.include_all_active && !isRealmAdmin(me)) return Errors.userNotAuthorized();
    const ownerId = params.include_owner_subscribed && me.isBot ? me.botOwnerId : null;
    const streams = [...state.streams.values()].filter((s) => {
      if (params.exclude_archived && s.isArchived) return false;
      if (params.include_all_active) return true;
      if (params.include_public && !s.inviteOnly && me.role !== Role.guest) return true;
      if (params.include_web_public && s.isWebPublic) return true;
      if (params.include_subscribed && isSubscribed(state, me.id, s.id)) return true;
      return ownerId !== null && isSubscribed(state, ownerId, s.id);
    });
    return {
      streams: streams.sort(byName).map((s) => {
        const wire = streamToWire(state, s);
        if (params.include_default) wire.is_default = s.isDefault;
        return wire;
      }),
    };
  },
});

const groupParams = Object.fromEntries(STREAM_GROUP_SETTINGS.map((name) => [name, P.json(Type.Unknown())])) as Record<
  (typeof STREAM_GROUP_SETTINGS)[number],
  ReturnType<typeof P.json>
>;

/** Group-setting parameters that were given, by name. */
function givenGroups(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of STREAM_GROUP_SETTINGS) if (params[name] !== undefined) out[name] = params[name];
  return out;
}

/**
 * Answers from a channel `user` has metadata access to, archived or not (Zulip's `get_stream_backend`:
 * `access_stream_by_id(..., require_content_access=False)`), or "Invalid channel ID".
 */
function withVisibleStream<R>(state: RealmState, user: User, streamId: number, answer: (state: RealmState, stream: Stream) => R): R | ZulipError {
  const access = accessStreamById(state, user, streamId, { requireActive: false, requireContentAccess: false });
  return access.ok ? answer(state, access.value.stream) : access.error;
}

/** `POST /channels/create` (Zulip's zerver/views/streams.py `create_channel`). */
export const createChannel = defineEndpoint({
  auth: 'user',
  params: {
    name: P.string({ required: true }),
    subscribers: P.json(Type.Array(Type.Integer()), { required: true }),
    description: P.string({ default: '' }),
    announce: P.bool({ default: false }),
    invite_only: P.bool({ default: false }),
    is_web_public: P.bool({ default: false }),
    is_default_stream: P.bool({ default: false }),
    folder_id: P.json(Type.Union([Type.Integer(), Type.Null()])),
    topics_policy: P.string(),
    history_public_to_subscribers: P.bool(),
    message_retention_days: P.jsonOrString(),
    ...groupParams,
  },
  handler: async ({ realm, user, params }) => {
    return runCommand(realm, {
      type: 'create_channel',
      actorId: user.id,
      name: params.name,
      subscriberIds: params.subscribers as number[],
      description: params.description,
      announce: params.announce,
      inviteOnly: params.invite_only,
      isWebPublic: params.is_web_public,
      isDefault: params.is_default_stream,
      folderId: (params.folder_id as number | null | undefined) ?? null,
      ...(params.topics_policy !== undefined && { topicsPolicy: params.topics_policy }),
      ...(params.history_public_to_subscribers !== undefined && { historyPublicToSubscribers: params.history_public_to_subscribers }),
      ...(params.message_retention_days !== undefined && { messageRetentionDays: params.message_retention_days }),
      groups: givenGroups(params),
    }, (reply) => ({ id: reply.streamId }));
  },
});

/** `PATCH /streams/{stream_id}` (Zulip's zerver/views/streams.py `update_stream_backend`). */
export const updateStream = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: {
    new_name: P.string(),
    description: P.string(),
    is_private: P.bool(),
    is_web_public: P.bool(),
    history_public_to_subscribers: P.bool(),
    is_default_stream: P.bool(),
    message_retention_days: P.jsonOrString(),
    is_archived: P.bool(),
    folder_id: P.json(Type.Union([Type.Integer(), Type.Null()])),
    topics_policy: P.string(),
    ...groupParams,
  },
  handler: async ({ realm, user, path, params }) => {
    return runCommand(realm, {
      type: 'update_channel',
      actorId: user.id,
      streamId: path.stream_id,
      ...(params.new_name !== undefined && { newName: params.new_name }),
      ...(params.description !== undefined && { description: params.description }),
      ...(params.is_private !== undefined && { isPrivate: params.is_private }),
      ...(params.is_web_public !== undefined && { isWebPublic: params.is_web_public }),
      ...(params.history_public_to_subscribers !== undefined && { historyPublicToSubscribers: params.history_public_to_subscribers }),
      ...(params.is_default_stream !== undefined && { isDefault: params.is_default_stream }),
      ...(params.message_retention_days !== undefined && { messageRetentionDays: params.message_retention_days }),
      ...(params.is_archived !== undefined && { isArchived: params.is_archived }),
      ...(params.folder_id !== undefined && { folderId: params.folder_id as number | null }),
      ...(params.topics_policy !== undefined && { topicsPolicy: params.topics_policy }),
      groups: givenGroups(params),
    });
  },
});

/**
 * `DELETE /streams/{stream_id}`: archives a channel (Zulip's zerver/views/streams.py
 * `deactivate_stream_backend`).
 */
export const archiveStream = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: {},
  handler: async ({ realm, user, path }) => {
    return runCommand(realm, { type: 'archive_channel', actorId: user.id, streamId: path.stream_id });
  },
});

/**
 * `GET /streams/{stream_id}`: one channel the caller may see (Zulip's zerver/views/streams.py
 * `get_stream_backend`).
 */
export const getStreamById = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) => withVisibleStream(realm.state, user, path.stream_id, (state, stream) => ({ stream: streamToWire(state, stream) })),
});

/**
 * `GET /streams/{stream_id}/members`: the subscriber ids of a channel the caller may see (Zulip's
 * zerver/views/streams.py `get_subscribers_backend`).
 */
export const getStreamMembers = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) =>
    withVisibleStream(realm.state, user, path.stream_id, (state, stream) => ({
      subscribers: [...(state.subscriptions.get(stream.id)?.keys() ?? [])].sort((a, b) => a - b),
    })),
});
