/**
 * typebox schemas of message objects and the message events parley emits (`message`,
 * `update_message`, `delete_message`, `reaction`, `update_message_flags`); strict objects, as
 * in `schemas.ts`, which gathers every event schema.
 */
import Type from 'typebox';
import { Bool, Int, Nullable, Str, strict } from './register/schema-helpers.js';
import { Flag } from '../domain/message-index.js';

const DisplayRecipientUser = Type.Object(
  { id: Int(), email: Str(), full_name: Str(), is_mirror_dummy: Bool() },
  strict,
);

const EditHistoryEntry = Type.Object(
  {
    user_id: Nullable(Int()),
    timestamp: Int(),
    prev_content: Type.Optional(Str()),
    prev_rendered_content: Type.Optional(Str()),
    prev_rendered_content_version: Type.Optional(Int()),
    prev_stream: Type.Optional(Int()),
    stream: Type.Optional(Int()),
    prev_topic: Type.Optional(Str()),
    topic: Type.Optional(Str()),
  },
  strict,
);

/**
 * Zulip's message object (https://zulip.com/api/get-message). `flags` only where the message is
 * fetched, not in events.
 */
export const MessageSchema = Type.Object(
  {
    id: Int(),
    sender_id: Int(),
    content: Str(),
    content_type: Type.Union([Type.Literal('text/html'), Type.Literal('text/x-markdown')]),
    recipient_id: Int(),
    timestamp: Int(),
    client: Str(),
    subject: Str(),
    topic_links: Type.Array(Type.Object({ text: Str(), url: Str() }, strict)),
    is_me_message: Bool(),
    reactions: Type.Array(
      Type.Object({ emoji_name: Str(), emoji_code: Str(), reaction_type: Str(), user_id: Int() }, strict),
    ),
    submessages: Type.Array(
      Type.Object({ msg_type: Str(), content: Str(), message_id: Int(), sender_id: Int(), id: Int() }, strict),
    ),
    sender_full_name: Str(),
    sender_email: Str(),
    sender_realm_str: Str(),
    avatar_url: Nullable(Str()),
    display_recipient: Type.Union([Str(), Type.Array(DisplayRecipientUser)]),
    type: Type.Union([Type.Literal('stream'), Type.Literal('private')]),
    stream_id: Type.Optional(Int()),
    last_edit_timestamp: Type.Optional(Int()),
    last_moved_timestamp: Type.Optional(Int()),
    edit_history: Type.Optional(Type.Array(EditHistoryEntry)),
    flags: Type.Optional(Type.Array(Str())),
  },
  strict,
);

/** Message flags Zulip reports (UserMessage flags plus the deprecated `wildcard_mentioned`). */
export const MESSAGE_FLAGS: ReadonlySet<string> = new Set([...Object.keys(Flag), 'wildcard_mentioned']);

export const MessageEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('message'),
    message: MessageSchema,
    flags: Type.Array(Str()),
    local_message_id: Type.Optional(Str()),
  },
  strict,
);

/**
 * `delete_message` (https://zulip.com/api/get-events, OpenAPI): `message_ids` for clients with the
 * `bulk_message_deletion` capability, else one event per id with `message_id`; `stream_id` and
 * `topic` exactly for `message_type: "stream"`.
 */
const deleteIds = [{ message_ids: Type.Array(Int()) }, { message_id: Int() }] as const;
const deletePrivate = { id: Int(), type: Type.Literal('delete_message'), message_type: Type.Literal('private') };
const deleteStream = { id: Int(), type: Type.Literal('delete_message'), message_type: Type.Literal('stream'), stream_id: Int(), topic: Str() };
export const DeleteMessageEventSchema = Type.Union([
  Type.Object({ ...deletePrivate, ...deleteIds[0] }, strict),
  Type.Object({ ...deletePrivate, ...deleteIds[1] }, strict),
  Type.Object({ ...deleteStream, ...deleteIds[0] }, strict),
  Type.Object({ ...deleteStream, ...deleteIds[1] }, strict),
]);

/**
 * `update_message` (https://zulip.com/api/get-events, OpenAPI; Zulip's `do_update_message`): always the
 * editor, edit time, ids, per-user flags and `rendering_only`; channel messages add the original
 * `stream_id`/`stream_name`; content edits the old and new content; moves `propagate_mode`,
 * `orig_subject` and `subject` + `topic_links` (topic) or `new_stream_id` (channel).
 */
export const UpdateMessageEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('update_message'),
    user_id: Nullable(Int()),
    edit_timestamp: Int(),
    message_id: Int(),
    message_ids: Type.Array(Int()),
    flags: Type.Array(Str()),
    rendering_only: Bool(),
    stream_id: Type.Optional(Int()),
    stream_name: Type.Optional(Str()),
    new_stream_id: Type.Optional(Int()),
    propagate_mode: Type.Optional(Type.Union([Type.Literal('change_one'), Type.Literal('change_later'), Type.Literal('change_all')])),
    orig_subject: Type.Optional(Str()),
    subject: Type.Optional(Str()),
    topic_links: Type.Optional(Type.Array(Type.Object({ text: Str(), url: Str() }, strict))),
    orig_content: Type.Optional(Str()),
    orig_rendered_content: Type.Optional(Str()),
    prev_rendered_content_version: Type.Optional(Int()),
    content: Type.Optional(Str()),
    rendered_content: Type.Optional(Str()),
    is_me_message: Type.Optional(Bool()),
  },
  strict,
);

/**
 * `reaction` (Zulip's `notify_reaction_update`): op `add` or `remove`, the emoji and the reacting
 * user; the deprecated `user` object is sent in events at FL 339–483.
 */
export const ReactionEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('reaction'),
    op: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
    user_id: Int(),
    user: Type.Object({ user_id: Int(), email: Str(), full_name: Str() }, strict),
    message_id: Int(),
    emoji_name: Str(),
    emoji_code: Str(),
    reaction_type: Type.Union([Type.Literal('unicode_emoji'), Type.Literal('realm_emoji'), Type.Literal('zulip_extra_emoji')]),
  },
  strict,
);

/**
 * `update_message_flags` (OpenAPI; Zulip's `do_update_message_flags` / `do_mark_all_as_read` /
 * `do_mark_stream_messages_as_read`): `op` add/remove with its deprecated copy `operation`, the
 * flag, the changed ids and `all` (true only for mark-all-as-read, with `messages: []`); remove of
 * `read` also carries `message_details` (id → where the message lives, so clients can rebuild
 * `unread_msgs`).
 */
const UnreadDetailsSchema = Type.Union([
  Type.Object({ type: Type.Literal('private'), user_ids: Type.Array(Int()), mentioned: Type.Optional(Type.Literal(true)) }, strict),
  Type.Object(
    { type: Type.Literal('stream'), stream_id: Int(), topic: Str(), unmuted_stream_msg: Bool(), mentioned: Type.Optional(Type.Literal(true)) },
    strict,
  ),
]);

export const UpdateMessageFlagsEventSchema = Type.Union([
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('update_message_flags'),
      op: Type.Literal('add'),
      operation: Type.Literal('add'),
      flag: Type.Union([Type.Literal('read'), Type.Literal('starred'), Type.Literal('collapsed')]),
      messages: Type.Array(Int()),
      all: Bool(),
    },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('update_message_flags'),
      op: Type.Literal('remove'),
      operation: Type.Literal('remove'),
      flag: Type.Union([Type.Literal('read'), Type.Literal('starred'), Type.Literal('collapsed')]),
      messages: Type.Array(Int()),
      all: Type.Literal(false),
      message_details: Type.Optional(Type.Record(Type.String({ pattern: '^[0-9]+$' }), UnreadDetailsSchema)),
    },
    strict,
  ),
]);
