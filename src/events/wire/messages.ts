/**
 * Zulip's message object (https://zulip.com/api/get-message; Zulip's zerver/lib/message.py
 * `MessageDict.build_dict_from_raw_db_row` and `finalize_payload`): the one serializer of a
 * message, for `message` events and fetched messages, typed by the schema that checks it
 * (`MessageSchema`), so a field the schema does not allow, or of the wrong type, fails `tsc`.
 */
import type { RealmState } from '../../domain/realm-state.js';
import { apiEmail, avatarUrl } from '../../domain/users.js';
import { reactionsWire } from '../../domain/reactions.js';
import { submessagesWire } from '../../domain/submessages.js';
import { isResolveToggle, topicForClient } from '../../domain/message-edits.js';
import { topicLinks } from '../../domain/topic-links.js';
import type { MessageFields } from '../../domain/messages.js';
import type { MessageObject } from '../schemas.js';

type DisplayRecipientUser = Extract<MessageObject['display_recipient'], unknown[]>[number];
type EditHistoryEntryObject = NonNullable<MessageObject['edit_history']>[number];

/**
 * Zulip's message object without `flags` (https://zulip.com/api/get-message): the shape of
 * `message` in message events
 * and, plus flags, of fetched messages (message-json.ts). `content` is given already chosen (HTML or Markdown).
 */
export function buildMessageWire(
  state: RealmState,
  f: MessageFields,
  content: string,
  contentType: 'text/html' | 'text/x-markdown',
  view: { clientGravatar: boolean; allowEmptyTopicName: boolean },
): MessageObject {
  const sender = state.users.get(f.senderId)!;
  const stream = f.recipient.type === 'stream' ? state.streams.get(f.recipient.streamId)! : undefined;
  // Keys in Zulip's order.
  const wire: MessageObject = {
    id: f.id,
    sender_id: sender.id,
    content,
    content_type: contentType,
    recipient_id: f.recipientId,
    timestamp: f.timestamp,
    client: f.client,
    subject: f.topic === '' && stream !== undefined && !view.allowEmptyTopicName ? state.settings.emptyTopicDisplayName : f.topic,
    topic_links: stream === undefined ? [] : [...topicLinks(state, f.topic)],
    is_me_message: f.isMeMessage,
    reactions: reactionsWire(state, f.id),
    submessages: submessagesWire(state, f.id),
    sender_full_name: sender.fullName,
    sender_email: apiEmail(sender, state.host),
    sender_realm_str: state.subdomain,
    avatar_url: avatarUrl(sender, view.clientGravatar),
    display_recipient: f.recipient.type === 'direct' ? directRecipients(state, f.recipient.userIds) : stream!.name,
    type: stream === undefined ? 'private' : 'stream',
  };
  if (stream !== undefined) wire.stream_id = stream.id;
  return wire;
}

/** `display_recipient` of a direct message: its users, sorted by (API) email. */
function directRecipients(state: RealmState, userIds: readonly number[]): DisplayRecipientUser[] {
  const out: DisplayRecipientUser[] = [];
  for (const uid of userIds) {
    const u = state.users.get(uid)!;
    out.push({ id: u.id, email: apiEmail(u, state.host), full_name: u.fullName, is_mirror_dummy: false });
  }
  return out.sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

/**
 * Adds `edit_history` (Zulip's stored list, newest first; omitted when the realm disallows edit
 * history), `last_edit_timestamp` (latest content edit) and `last_moved_timestamp` (latest
 * topic/channel change that is not a resolve toggle) to a message object (https://zulip.com/api/get-message).
 */
export function addEditFields(state: RealmState, id: number, wire: MessageObject, allowEmptyTopicName: boolean): void {
  const entries = state.editHistory?.get(id);
  if (entries === undefined || entries.length === 0) return;
  const lastEdit = entries.find((e) => e.prevContent !== undefined);
  if (lastEdit !== undefined) wire.last_edit_timestamp = lastEdit.timestamp;
  const lastMove = entries.find((e) => (e.prevTopic !== undefined || e.prevStream !== undefined) && !isResolveToggle(e));
  if (lastMove !== undefined) wire.last_moved_timestamp = lastMove.timestamp;
  if (!state.settings.allowEditHistory) return;
  wire.edit_history = entries.map((e) => {
    const out: EditHistoryEntryObject = { user_id: e.userId, timestamp: e.timestamp };
    if (e.prevContent !== undefined) {
      out.prev_content = e.prevContent;
      out.prev_rendered_content = e.prevRendered;
      out.prev_rendered_content_version = 1;
    }
    if (e.prevStream !== undefined) {
      out.prev_stream = e.prevStream;
      out.stream = e.stream;
    }
    if (e.prevTopic !== undefined) {
      out.prev_topic = topicForClient(state, e.prevTopic, allowEmptyTopicName);
      out.topic = topicForClient(state, e.topic!, allowEmptyTopicName);
    }
    return out;
  });
}
