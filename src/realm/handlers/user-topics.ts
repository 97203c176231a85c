/**
 * `set_user_topic`: a user's visibility policy for one (channel, topic)
 * (https://zulip.com/api/update-user-topic;
 * Zulip's `do_set_user_topic_visibility_policy`), for `POST /user_topics` and the deprecated
 * `PATCH /users/me/subscriptions/muted_topics` (https://zulip.com/api/mute-topic), plus the
 * automatic follow/unmute on
 * send (Zulip's zerver/actions/message_send.py `visibility_policy_for_send_message`).
 *
 * Events, to the user only and only when the row changed: the legacy
 * `{type: "muted_topics", muted_topics: [[stream_name, topic, last_updated], ...]}` (the whole
 * list after the change), then `{type: "user_topic", stream_id, topic_name, last_updated,
 * visibility_policy}`. Queues registered for `user_topic` do not get the legacy one
 * (event-queues.ts `deliver`).
 */
import { personalSetting } from '../../domain/user-settings.js';
import { ok, fail, Errors, type Result } from '../../errors.js';
import type { RealmState, Stream, User } from '../../domain/realm-state.js';
import type { UserTopicSet } from '../../domain/records.js';
import { accessStreamById, accessStreamByName } from '../../domain/access.js';
import { findStreamByName } from '../../domain/streams.js';
import { someTopicMessage } from '../../domain/recipient-index.js';
import {
  VisibilityPolicy,
  applyToRows,
  getUserTopic,
  mutedTopicsOfRows,
  type UserTopic,
  type VisibilityPolicyCode,
} from '../../domain/user-topics.js';
import { MODERN_NOTIFICATION_SETTINGS } from '../../domain/user-setting-defaults.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';

/**
 * Set a user's visibility policy for (channel, topic) (zulip-behavior.md §3.15): `POST /user_topics`
 * and, with `legacy`, `PATCH /users/me/subscriptions/muted_topics` (seed §4.4; add = 1, remove = 0).
 */
export interface SetUserTopic {
  type: 'set_user_topic';
  userId: number;
  /** By id, or by name (legacy endpoint only). */
  stream: { id: number } | { name: string };
  topic: string;
  /** 0 inherit, 1 muted, 2 unmuted, 3 followed. */
  visibilityPolicy: VisibilityPolicyCode;
  /** The deprecated muted_topics endpoint: its error for an unknown channel on remove. */
  legacy?: boolean;
}

/** Finds the channel of a `set_user_topic` command, with the error Zulip gives for each form. */
function resolveStream(state: RealmState, user: User, cmd: SetUserTopic): Result<Stream> {
  const target = cmd.stream;
  const stream = 'id' in target ? state.streams.get(target.id) : findStreamByName(state, target.name);
  const notFound = () => {
    if (cmd.legacy && cmd.visibilityPolicy === VisibilityPolicy.inherit) return Errors.badRequest('Topic is not muted');
    return 'id' in target ? Errors.invalidStreamId() : Errors.invalidStreamName(target.name);
  };
  if (stream === undefined) return fail(notFound());
  // Removing a policy only needs the channel to exist in the realm (Zulip's
  // `access_stream_to_remove_visibility_policy_by_id` / `access_stream_for_unmute_topic_*`).
  if (cmd.visibilityPolicy === VisibilityPolicy.inherit) return ok(stream);
  // Zulip's `access_stream_by_id` / `access_stream_by_name`: content access to an active channel.
  const access = 'id' in target ? accessStreamById(state, user, target.id) : accessStreamByName(state, user, target.name);
  return access.ok ? ok(access.value.stream) : fail(notFound());
}

/**
 * The record and events that set `user`'s policy for (stream, topic) to `policy`, or null when it
 * already is that (Zulip: no database change → no event). `now`: UNIX seconds (integer).
 */
export function setVisibility(
  state: RealmState,
  userId: number,
  stream: Stream,
  topic: string,
  policy: VisibilityPolicyCode,
  now: number,
): { record: UserTopicSet; events: RealmEvent[] } | null {
  const current = getUserTopic(state, userId, stream.id, topic);
  if ((current?.visibilityPolicy ?? VisibilityPolicy.inherit) === policy) return null;
  const record: UserTopicSet = {
    type: 'user_topic_set',
    v: 1,
    userId,
    streamId: stream.id,
    topic,
    visibilityPolicy: policy,
    lastUpdated: now,
  };
  // The legacy list after the change: the record applied to a copy of the user's rows.
  const rows = new Map<string, UserTopic>(state.userTopics.get(userId) ?? []);
  applyToRows(rows, record);
  const events: RealmEvent[] = [
    { userIds: [userId], payload: { type: 'muted_topics', muted_topics: mutedTopicsOfRows(state, rows.values()) } },
    {
      userIds: [userId],
      payload: {
        type: 'user_topic',
        stream_id: stream.id,
        topic_name: topic,
        last_updated: now,
        visibility_policy: policy,
      },
      // Clients without `empty_topic_name` see the realm's display name (event-queues.ts).
      ...(topic === '' && { emptyTopicDisplayName: state.settings.emptyTopicDisplayName }),
    },
  ];
  return { record, events };
}

export const setUserTopic: Handler<SetUserTopic, CommandReplies['set_user_topic']> = (state, cmd, ctx) => {
  const user = state.users.get(cmd.userId);
  if (user === undefined || !user.isActive) return fail(Errors.noSuchUser());
  const stream = resolveStream(state, user, cmd);
  if (!stream.ok) return stream;
  const change = setVisibility(state, user.id, stream.value, cmd.topic, cmd.visibilityPolicy, Math.floor(ctx.now()));
  if (change === null) return ok({ records: [], events: [], reply: {} });
  return ok({ records: [change.record], events: change.events, reply: {} });
};

/**
 * Zulip's `automatically_*` policy values (`UserProfile.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_*`):
 * 1 on participation, 2 on send, 3 on initiation, 4 never.
 */
export const AutoPolicy = { participation: 1, send: 2, initiation: 3, never: 4 } as const;

/**
 * The sender's automatic visibility settings. parley has no per-user settings storage yet, so
 * these are Zulip's defaults (`register/constants.ts`): follow topics the user initiates, unmute
 * topics in muted channels the user sends to.
 */
export function automaticSettings(state: RealmState, userId: number): { follow: number; unmuteInMuted: number } {
  const user = state.users.get(userId);
  if (user === undefined) {
    return {
      follow: MODERN_NOTIFICATION_SETTINGS.automatically_follow_topics_policy,
      unmuteInMuted: MODERN_NOTIFICATION_SETTINGS.automatically_unmute_topics_in_muted_streams_policy,
    };
  }
  return {
    follow: personalSetting(user, 'automatically_follow_topics_policy') as number,
    unmuteInMuted: personalSetting(user, 'automatically_unmute_topics_in_muted_streams_policy') as number,
  };
}

/**
 * The policy sending a channel message sets for its sender (Zulip's
 * `visibility_policy_for_send_message`), or null for no change. `initiates`: no earlier message
 * of the topic is accessible to the sender. Followed topics never change; FOLLOWED beats UNMUTED.
 */
export function visibilityPolicyForSend(
  settings: { follow: number; unmuteInMuted: number },
  streamMuted: boolean,
  current: VisibilityPolicyCode,
  initiates: boolean,
): VisibilityPolicyCode | null {
  if (current === VisibilityPolicy.followed) return null;
  const onSend = (p: number) => p === AutoPolicy.participation || p === AutoPolicy.send;
  if (onSend(settings.follow)) return VisibilityPolicy.followed;
  let policy: VisibilityPolicyCode | null = streamMuted && onSend(settings.unmuteInMuted) ? VisibilityPolicy.unmuted : null;
  if (current !== VisibilityPolicy.inherit) return policy !== null && policy === current ? null : policy;
  if (settings.follow === AutoPolicy.initiation && initiates) return VisibilityPolicy.followed;
  if (streamMuted && settings.unmuteInMuted === AutoPolicy.initiation && initiates) policy = VisibilityPolicy.unmuted;
  return policy;
}

/** Whether the topic has no message the sender can access (so sending would initiate it). */
function topicIsNew(state: RealmState, sender: User, stream: Stream, topic: string): boolean {
  const protectedHistory = stream.inviteOnly && !stream.historyPublicToSubscribers;
  const accessible = protectedHistory ? (id: number) => state.messages.userFlags(sender.id, id) !== undefined : () => true;
  return !someTopicMessage(state, stream.recipientId, topic, accessible);
}

/**
 * The automatic visibility change of a channel message send, decided before the message's own
 * record (Zulip's `visibility_policy_for_send_message`): the `user_topic_set` record, its events
 * (to the sender, ahead
 * of the message event as in Zulip), and the new policy for `automatic_new_visibility_policy`.
 * Null for bots and when nothing changes.
 */
export function automaticVisibilityOnSend(
  state: RealmState,
  sender: User,
  stream: Stream,
  topic: string,
  now: number,
): { record: UserTopicSet; events: RealmEvent[]; policy: number } | null {
  if (sender.isBot) return null;
  const settings = automaticSettings(state, sender.id);
  if (settings.follow === AutoPolicy.never && settings.unmuteInMuted === AutoPolicy.never) return null;
  const current = getUserTopic(state, sender.id, stream.id, topic)?.visibilityPolicy ?? VisibilityPolicy.inherit;
  const streamMuted = state.subscriptions.get(stream.id)?.get(sender.id)?.isMuted === true;
  const needsInitiation =
    current === VisibilityPolicy.inherit &&
    (settings.follow === AutoPolicy.initiation || (streamMuted && settings.unmuteInMuted === AutoPolicy.initiation));
  const initiates = needsInitiation ? topicIsNew(state, sender, stream, topic) : false;
  const policy = visibilityPolicyForSend(settings, streamMuted, current, initiates);
  if (policy === null) return null;
  const change = setVisibility(state, sender.id, stream, topic, policy, now);
  return change === null ? null : { ...change, policy };
}
