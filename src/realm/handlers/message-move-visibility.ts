/**
 * What a message move does to users' topic visibility policies (`user_topic` rows) and to the
 * previous resolve notification — the parts of Zulip's `do_update_message`
 * (zerver/actions/message_edit.py) after the messages themselves moved:
 *
 * - `moveVisibilityPolicies`: when the actor moved every message of the topic they can see
 *   (always for `change_all`), every user's row for the old (channel, topic) moves to the new
 *   one; users losing access to the messages (channel moves) just lose the row; when the
 *   destination already has messages the two policies merge (`visibilityAfterMerge`).
 * - `automaticPolicyOnMove`: otherwise, when the moved message becomes the first its sender can
 *   see in the destination topic, the sender's "on initiation" automatic follow / unmute applies
 *   (Zulip's `apply_automatic_unmute_follow_topics_policy`).
 * - `resolveNoticeToUndo`: resolving then unresolving (or the reverse) within
 *   `RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS` deletes the previous notification instead of
 *   posting a new one (Zulip's `maybe_delete_previous_resolve_topic_notification`).
 *
 * All are pure functions of the state before the edit; records are `user_topic_set` (so replay
 * and snapshots need nothing new).
 */
import type { RealmState, Stream, User } from '../../domain/realm-state.js';
import type { UserTopicSet } from '../../domain/records.js';
import { canAccessMessage } from '../../domain/access.js';
import { MessageBit } from '../../domain/message-index.js';
import { topicMessageIds } from '../../domain/recipient-index.js';
import { VisibilityPolicy, applyToRows, mutedTopicsOfRows, userTopicKey, type UserTopic, type VisibilityPolicyCode } from '../../domain/user-topics.js';
import type { RealmEvent } from '../../events/realm-event.js';
import { AutoPolicy, automaticSettings, setVisibility } from './user-topics.js';

/** Zulip's production `RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS` (zproject/default_settings.py). */
export const RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS = 60;

/**
 * Zulip's `get_visibility_policy_after_merge`: the most visible of the two policies wins
 * (FOLLOWED, then UNMUTED, then INHERIT; MUTED only when both are muted).
 */
export function visibilityAfterMerge(orig: VisibilityPolicyCode, target: VisibilityPolicyCode): VisibilityPolicyCode {
  const both = [orig, target];
  if (both.includes(VisibilityPolicy.followed)) return VisibilityPolicy.followed;
  if (both.includes(VisibilityPolicy.unmuted)) return VisibilityPolicy.unmuted;
  if (both.includes(VisibilityPolicy.inherit)) return VisibilityPolicy.inherit;
  return VisibilityPolicy.muted;
}

/** A whole-topic move, as `moveVisibilityPolicies` needs it. */
export interface TopicMove {
  orig: Stream;
  origTopic: string;
  target: Stream;
  targetTopic: string;
  streamEdited: boolean;
  /** Users who can no longer see the moved messages (channel moves; `accessChanges().losingAccess`). */
  losingAccess: ReadonlySet<number>;
  /** UNIX seconds (fractional); rows get its integer part as `last_updated`. */
  now: number;
}

/** Records and events of visibility changes, in Zulip's order. */
export interface VisibilityChanges {
  records: UserTopicSet[];
  events: RealmEvent[];
}

/** Every user's policy for (stream, topic), by user id (case-insensitive topic). */
function policiesFor(state: RealmState, streamId: number, topic: string): Map<number, VisibilityPolicyCode> {
  const key = userTopicKey(streamId, topic);
  const out = new Map<number, VisibilityPolicyCode>();
  for (const [userId, rows] of state.userTopics) {
    const row = rows.get(key);
    if (row !== undefined) out.set(userId, row.visibilityPolicy);
  }
  return out;
}

/**
 * Zulip's user_topic migration of a move that took every message of the topic the actor can
 * see (`moved_all_visible_messages`). For each user with a row for the old or the new topic:
 * - losing access (channel moves): the old row is removed (`muted_topics` + `user_topic` 0);
 * - otherwise, a non-INHERIT old row is removed with a `user_topic` event only (Zulip skips the
 *   legacy `muted_topics` event there, as the following set sends the full list; parley sends it
 *   when no set follows and the old row was muted, see below), then the new
 *   topic is set to the old policy — or, when the destination topic already has messages, to
 *   `visibilityAfterMerge(old, new)` — unless it already is that (no record, no event).
 * Users are grouped by their (old, new) policy pair as Zulip does; groups in order of first user
 * id, users ascending. Events go to the user concerned only.
 */
export function moveVisibilityPolicies(state: RealmState, move: TopicMove): VisibilityChanges {
  const now = Math.floor(move.now);
  const origPolicies = policiesFor(state, move.orig.id, move.origTopic);
  const targetPolicies = policiesFor(state, move.target.id, move.targetTopic);
  const targetHasMessages = topicMessageIds(state, move.target.recipientId, move.targetTopic).length > 0;

  const records: UserTopicSet[] = [];
  const events: RealmEvent[] = [];
  // Working copies of the rows of the users touched, for the legacy `muted_topics` lists.
  const working = new Map<number, Map<string, UserTopic>>();
  const rowsOf = (userId: number) => {
    let rows = working.get(userId);
    if (rows === undefined) working.set(userId, (rows = new Map(state.userTopics.get(userId) ?? [])));
    return rows;
  };
  const set = (userId: number, stream: Stream, topic: string, policy: VisibilityPolicyCode, mutedEvent: boolean) => {
    const record: UserTopicSet = { type: 'user_topic_set', v: 1, userId, streamId: stream.id, topic, visibilityPolicy: policy, lastUpdated: now };
    records.push(record);
    const rows = rowsOf(userId);
    applyToRows(rows, record);
    if (mutedEvent) events.push({ userIds: [userId], payload: { type: 'muted_topics', muted_topics: mutedTopicsOfRows(state, rows.values()) } });
    events.push({
      userIds: [userId],
      payload: { type: 'user_topic', stream_id: stream.id, topic_name: topic, last_updated: now, visibility_policy: policy },
      ...(topic === '' && { emptyTopicDisplayName: state.settings.emptyTopicDisplayName }),
    });
  };

  const inaccessible: number[] = [];
  const stay = new Map<number, VisibilityPolicyCode>();
  for (const [userId, policy] of origPolicies) {
    if (move.streamEdited && move.losingAccess.has(userId)) inaccessible.push(userId);
    else stay.set(userId, policy);
  }
  const users = [...new Set([...stay.keys(), ...targetPolicies.keys()])].sort((a, b) => a - b);
  const groups = new Map<string, { orig: VisibilityPolicyCode; target: VisibilityPolicyCode; userIds: number[] }>();
  for (const userId of users) {
    const orig = stay.get(userId) ?? VisibilityPolicy.inherit;
    const target = targetPolicies.get(userId) ?? VisibilityPolicy.inherit;
    const key = `${orig},${target}`;
    (groups.get(key) ?? groups.set(key, { orig, target, userIds: [] }).get(key)!).userIds.push(userId);
  }

  for (const userId of inaccessible.sort((a, b) => a - b)) set(userId, move.orig, move.origTopic, VisibilityPolicy.inherit, true);
  for (const { orig, target, userIds } of groups.values()) {
    const policy = targetHasMessages ? visibilityAfterMerge(orig, target) : orig;
    const skipTarget = policy === target;
    // Deviation: Zulip never sends the legacy list for the old row, even when no set of the new
    // topic follows to carry it; then a removed MUTED row would leave `muted_topics` stale.
    const legacyNow = skipTarget && orig === VisibilityPolicy.muted;
    if (orig !== VisibilityPolicy.inherit) for (const userId of userIds) set(userId, move.orig, move.origTopic, VisibilityPolicy.inherit, legacyNow);
    if (skipTarget) continue;
    for (const userId of userIds) set(userId, move.target, move.targetTopic, policy, true);
  }
  return { records, events };
}

/**
 * Zulip's `apply_automatic_unmute_follow_topics_policy` on a partial move: when message
 * `messageId` becomes the first message of the destination topic that its (human) sender can
 * access, the sender follows the topic if their `automatically_follow_topics_policy` is "on
 * initiation", else unmutes it if `automatically_unmute_topics_in_muted_streams_policy` is "on
 * initiation" and the channel is muted for them. Nothing when the policy already is that.
 */
export function automaticPolicyOnMove(
  state: RealmState,
  messageId: number,
  target: Stream,
  targetTopic: string,
  changedIds: readonly number[],
  losingAccess: ReadonlySet<number>,
  now: number,
): VisibilityChanges {
  const none = { records: [], events: [] };
  const sender: User | undefined = state.users.get(state.messages.sender.get(messageId));
  if (sender === undefined || sender.isBot || losingAccess.has(sender.id)) return none;
  const changed = new Set(changedIds);
  const first = topicMessageIds(state, target.recipientId, targetTopic).find((id) => !changed.has(id) && canAccessMessage(state, sender, id));
  if (first !== undefined && first < messageId) return none;
  const settings = automaticSettings(state, sender.id);
  let policy: VisibilityPolicyCode;
  if (settings.follow === AutoPolicy.initiation) policy = VisibilityPolicy.followed;
  else if (settings.unmuteInMuted === AutoPolicy.initiation && state.subscriptions.get(target.id)?.get(sender.id)?.isMuted === true) {
    policy = VisibilityPolicy.unmuted;
  } else return none;
  const change = setVisibility(state, sender.id, target, targetTopic, policy, Math.floor(now));
  return change === null ? none : { records: [change.record], events: change.events };
}

/**
 * Zulip's `maybe_delete_previous_resolve_topic_notification`: the id of the message to delete
 * instead of sending a new resolve/unresolve notification, or null. That is the last message of
 * the destination topic once the move is done (all messages, no access filter), when it is a
 * resolve notification sent at most `RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS` before `now`
 * (UNIX seconds).
 */
export function resolveNoticeToUndo(
  state: RealmState,
  stream: Stream,
  targetTopic: string,
  changedIds: readonly number[],
  now: number,
): number | null {
  const m = state.messages;
  let last = 0;
  for (const id of topicMessageIds(state, stream.recipientId, targetTopic)) if (id > last) last = id;
  for (const id of changedIds) if (id > last) last = id;
  if (last === 0 || (m.bits.get(last) & MessageBit.resolveTopicNotice) === 0) return null;
  return now - m.timestamp.get(last) > RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS ? null : last;
}
