/**
 * Channel administration endpoints (https://zulip.com/api/update-stream,
 * https://zulip.com/api/create-channel; https://zulip.com/api/get-stream-by-id,
 * https://zulip.com/api/archive-stream, https://zulip.com/api/get-subscribers):
 * `POST /channels/create`, `PATCH /streams/{stream_id}`, `DELETE /streams/{stream_id}` (archive),
 * `GET /streams/{stream_id}` and `GET /streams/{stream_id}/members`. Writes go through the realm
 * actor (`realm/handlers/channels.ts`); reads use `visibleStream` (unknown and inaccessible give the
 * same "Invalid channel ID").
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { STREAM_GROUP_SETTINGS, type RealmState, type Stream, type User } from '../domain/realm-state.js';
import type { ZulipError } from '../errors.js';
import { streamToWire } from '../domain/streams.js';
import { visibleStream } from '../domain/access.js';

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

/** Answers from a channel `user` may see, or Zulip's "Invalid channel ID" (no existence oracle). */
function withVisibleStream<R>(state: RealmState, user: User, streamId: number, answer: (state: RealmState, stream: Stream) => R): R | ZulipError {
  const stream = visibleStream(state, user, streamId);
  return stream === undefined ? Errors.invalidStreamId() : answer(state, stream);
}

export const channelEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/channels/create',
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
      return runCommand(realm!, {
        type: 'create_channel',
        actorId: user!.id,
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
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/streams/{stream_id}',
    auth: 'user',
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
      return runCommand(realm!, {
        type: 'update_channel',
        actorId: user!.id,
        streamId: path.stream_id!,
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
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/streams/{stream_id}',
    auth: 'user',
    params: {},
    handler: async ({ realm, user, path }) => {
      return runCommand(realm!, { type: 'archive_channel', actorId: user!.id, streamId: path.stream_id! });
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/streams/{stream_id}',
    auth: 'user',
    params: {},
    handler: ({ realm, user, path }) => withVisibleStream(realm!.state, user!, path.stream_id!, (state, stream) => ({ stream: streamToWire(state, stream) })),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/streams/{stream_id}/members',
    auth: 'user',
    params: {},
    handler: ({ realm, user, path }) =>
      withVisibleStream(realm!.state, user!, path.stream_id!, (state, stream) => ({
        subscribers: [...(state.subscriptions.get(stream.id)?.keys() ?? [])].sort((a, b) => a - b),
      })),
  }),
];
