/**
 * The events of an `edit_message` (zulip-behavior.md §10.4; Zulip's `do_update_message`):
 * `update_message` to row holders and, on moves, subscribers; `delete_message` to users losing
 * access on a channel move.
 */
import { topicLinks } from '../../domain/topic-links.js';
import type { RealmState, Stream } from '../../domain/realm-state.js';
import { Flag, flagNames } from '../../domain/message-index.js';
import type { MessageEdited } from '../../domain/message-edits.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import type { EditMessage } from './message-edit.js';
import { subscriberRecipients, type AccessChanges } from './message-move.js';

/**
 * `update_message` (one event per distinct flag list: flags are per user) and, on channel moves,
 * `delete_message` for users losing access (zulip-behavior.md §10.4; Zulip's `do_update_message`).
 */
export function updateEvents(
  state: RealmState,
  cmd: EditMessage,
  r: MessageEdited,
  orig: Stream | undefined,
  target: Stream | undefined,
  access: AccessChanges | undefined,
): RealmEvent[] {
  const id = r.messageId;
  const payload: Omit<EventPayloadOf<'update_message'>, 'flags'> = {
    type: 'update_message', user_id: r.userId, edit_timestamp: r.timestamp, message_id: id,
    message_ids: r.messageIds, rendering_only: false,
    ...(r.content && {
      orig_content: r.content.prevContent, orig_rendered_content: r.content.prevRendered,
      content: r.content.content, rendered_content: r.content.rendered,
      prev_rendered_content_version: 1, is_me_message: r.content.isMeMessage,
    }),
  };
  if (orig !== undefined) {
    payload.stream_name = orig.name;
    payload.stream_id = orig.id;
    if (r.topic !== undefined || r.stream !== undefined) payload.propagate_mode = cmd.propagateMode;
    if (r.stream !== undefined) {
      payload.orig_subject = r.prevTopic ?? state.topics.value(state.messages.topic.get(id));
      payload.new_stream_id = r.stream;
    }
    if (r.topic !== undefined) {
      payload.orig_subject = r.prevTopic;
      payload.subject = r.topic;
      payload.topic_links = [...topicLinks(state, r.topic)];
    }
  }
  // Row holders of the edited message after the edit, with their new flags.
  const removed = new Set(r.removeUserIds ?? []);
  const flagsByUser = new Map<number, number>();
  for (const [userId, um] of state.messages.users) {
    if (removed.has(userId)) continue;
    const at = um.indexOf(id);
    if (at < 0) continue;
    let bits = um.flags.get(at);
    if (r.content) {
      const mention = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned | Flag.has_alert_word;
      bits = (bits & ~mention) | (r.content.userFlags?.[userId] ?? 0);
    }
    flagsByUser.set(userId, bits);
  }
  for (const userId of r.addUserIds ?? []) if (!flagsByUser.has(userId)) flagsByUser.set(userId, Flag.read);
  if (orig !== undefined && target !== undefined) {
    const holders = new Set(flagsByUser.keys());
    for (const u of subscriberRecipients(state, orig, target, holders, access?.losingAccess ?? new Set())) flagsByUser.set(u, Flag.read);
  }
  const groups = new Map<string, number[]>();
  for (const [userId, bits] of flagsByUser) {
    if (state.users.get(userId)?.isActive !== true) continue;
    const key = flagNames(bits).join(',');
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(userId);
  }
  const events: RealmEvent[] = [];
  const emptyTopic = payload.orig_subject === '' || payload.subject === '' ? { emptyTopicDisplayName: state.settings.emptyTopicDisplayName } : {};
  for (const [key, userIds] of groups) {
    events.push({ userIds: userIds.sort((a, b) => a - b), payload: { ...payload, flags: key === '' ? [] : key.split(',') }, ...emptyTopic });
  }
  if (access !== undefined && access.losingAccess.size > 0) {
    const oldTopic = r.prevTopic ?? state.topics.value(state.messages.topic.get(id));
    events.push({
      ...(oldTopic === '' && { emptyTopicDisplayName: state.settings.emptyTopicDisplayName }),
      userIds: [...access.losingAccess].filter((u) => state.users.get(u)?.isActive === true),
      payload: { type: 'delete_message', message_ids: r.messageIds, message_type: 'stream', stream_id: orig!.id, topic: oldTopic },
    });
  }
  return events;
}
