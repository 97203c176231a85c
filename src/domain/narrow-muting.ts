/**
 * Channel and topic muting as `GET /messages` applies it (Zulip's `exclude_muting_conditions` /
 * `exclude_stream_and_topic_mutes` in `zerver/lib/narrow.py` and `zerver/lib/user_topics.py`, FL
 * 417): used by `in:home`, `is:muted` (= `-in:home`), `is:followed`, and the `first_unread` anchor.
 *
 * A channel message is excluded ("muted") when
 * - its topic is muted by the viewer (visibility policy 1) — only in `channelStreamId` when a
 *   channel is given; or
 * - no channel is given, the viewer muted its channel (subscription `is_muted`), and the topic is
 *   not unmuted (2) or followed (3) by the viewer.
 * Topics are matched case-insensitively. Direct messages are never muted.
 */
import type { RealmState, User } from './realm-state.js';
import { VisibilityPolicy, userTopicKey } from './user-topics.js';

/** The viewer's visibility policy for message `id`'s (channel, topic), 0 for none or a DM. */
export function topicPolicyOf(state: RealmState, viewer: User, id: number): number {
  const rows = state.userTopics.get(viewer.id);
  if (rows === undefined || rows.size === 0) return VisibilityPolicy.inherit;
  const recipient = state.recipients.get(state.messages.recipient.get(id));
  if (recipient?.type !== 'stream') return VisibilityPolicy.inherit;
  const topic = state.topics.value(state.messages.topic.get(id));
  return rows.get(userTopicKey(recipient.streamId, topic))?.visibilityPolicy ?? VisibilityPolicy.inherit;
}

/**
 * A test "message `id` is muted for `viewer`" per the rules above, or null when nothing could be
 * (no muted channel considered and no muted topic): callers skip the test then.
 * `channelStreamId`: the channel the narrow names (its first channel term), or null.
 */
export function mutedMessageTest(state: RealmState, viewer: User, channelStreamId: number | null): ((id: number) => boolean) | null {
  const mutedRecipients = new Set<number>();
  if (channelStreamId === null) {
    for (const streamId of state.userStreams.get(viewer.id) ?? []) {
      if (state.subscriptions.get(streamId)?.get(viewer.id)?.isMuted) {
        const stream = state.streams.get(streamId);
        if (stream !== undefined) mutedRecipients.add(stream.recipientId);
      }
    }
  }
  let anyMutedTopic = false;
  for (const row of state.userTopics.get(viewer.id)?.values() ?? []) {
    if (row.visibilityPolicy === VisibilityPolicy.muted && (channelStreamId === null || row.streamId === channelStreamId)) anyMutedTopic = true;
  }
  if (mutedRecipients.size === 0 && !anyMutedTopic) return null;
  const m = state.messages;
  return (id) => {
    const rid = m.recipient.get(id);
    const inMutedChannel = mutedRecipients.has(rid);
    if (!inMutedChannel && !anyMutedTopic) return false;
    const policy = topicPolicyOf(state, viewer, id);
    if (policy === VisibilityPolicy.muted) {
      if (channelStreamId === null) return true;
      const r = state.recipients.get(rid);
      if (r?.type === 'stream' && r.streamId === channelStreamId) return true;
    }
    return inMutedChannel && policy !== VisibilityPolicy.unmuted && policy !== VisibilityPolicy.followed;
  };
}
