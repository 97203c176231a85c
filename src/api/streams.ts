/**
 * Channel reads clients use to discover channels: `GET /streams` and
 * `GET /users/me/subscriptions` (https://zulip.com/api/get-subscriptions,
 * https://zulip.com/api/get-streams). Writes come with the channels issue.
 */
import { Errors } from '../errors.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { Role, type RealmState, type Stream } from '../domain/realm-state.js';
import { messageLookupIndex } from '../domain/recipient-index.js';
import { findStreamByName, streamToWire, subscriptionToWire } from '../domain/streams.js';
import { canSeeStream, isSubscribed, visibleStream } from '../domain/access.js';
import { createHash } from 'node:crypto';

// Python's sorted() on names: code-unit order, case-sensitive (uppercase first).
const byName = (a: Stream, b: Stream) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

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
 * A channel's topics for `viewer` (https://zulip.com/api/get-stream-topics): grouped
 * case-insensitively, named
 * by their most recent message, sorted by `max_id` descending; with protected history only the
 * topics of messages the viewer received. Cost: one pass over the channel's message ids.
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

export const streamEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/users/me/{stream_id}/topics',
    auth: 'user',
    params: { allow_empty_topic_name: P.bool({ default: false }) },
    handler: ({ realm, user, path, params }) => {
      const state = realm!.state;
      const stream = visibleStream(state, user!, path.stream_id!);
      if (stream === undefined) return Errors.invalidStreamId();
      if (stream.inviteOnly && !isSubscribed(state, user!.id, stream.id)) return Errors.invalidStreamId();
      return { topics: streamTopics(state, user!.id, stream, params.allow_empty_topic_name) };
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/get_stream_id',
    auth: 'user',
    params: { stream: P.string({ required: true }) },
    handler: ({ realm, user, params }) => {
      // https://zulip.com/api/get-stream-id: unknown and inaccessible are the same error.
      const stream = findStreamByName(realm!.state, params.stream);
      if (stream === undefined || !canSeeStream(realm!.state, user!, stream)) return Errors.invalidStreamName(params.stream);
      return { stream_id: stream.id };
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/streams/{stream_id}/email_address',
    auth: 'user',
    params: { sender_id: P.int() },
    handler: ({ realm, user, path }) => {
      const stream = visibleStream(realm!.state, user!, path.stream_id!);
      if (stream === undefined) return Errors.invalidStreamId();
      return { email: streamEmailAddress(realm!.id, stream, realm!.host) };
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/streams',
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
      const state = realm!.state;
      const me = user!;
      if (params.include_all_active && me.role > Role.admin) return Errors.userNotAuthorized();
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
  }),
  defineEndpoint({
    method: 'GET',
    path: '/users/me/subscriptions',
    auth: 'user',
    params: { include_subscribers: P.bool({ default: false }) },
    handler: ({ realm, user, params }) => {
      const state = realm!.state;
      const streams = [...(state.userStreams.get(user!.id) ?? [])].map((id) => state.streams.get(id)!).sort(byName);
      return {
        subscriptions: streams.map((s) =>
          subscriptionToWire(state, s, state.subscriptions.get(s.id)!.get(user!.id)!, params.include_subscribers),
        ),
      };
    },
  }),
];
