/**
 * typebox schemas of the events of one user's personal features, delivered to that user's queues
 * (https://zulip.com/api/get-events): `muted_users`, `alert_words`, `saved_snippets`; and
 * `typing_edit_message` (Zulip FL 351), delivered to who would receive the edited message.
 * Strict objects, as every event schema (see `schemas.ts`, which gathers them).
 */
import Type from 'typebox';
import { Int, Str, strict } from './register/schema-helpers.js';

/** `muted_users` (Zulip's `do_mute_user` / `do_unmute_user`): the whole list after the change. */
export const MutedUsersEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('muted_users'),
    muted_users: Type.Array(Type.Object({ id: Int(), timestamp: Int() }, strict)),
  },
  strict,
);

/** `alert_words` (Zulip's `do_add_alert_words` / `do_remove_alert_words`): the whole list after the change. */
export const AlertWordsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('alert_words'), alert_words: Type.Array(Str()) },
  strict,
);

const SavedSnippetObject = Type.Object({ id: Int(), title: Str(), content: Str(), date_created: Int() }, strict);

/** `saved_snippets` (Zulip's `zerver/actions/saved_snippets.py`): `add` / `update` with the snippet, `remove` with its id. */
export const SavedSnippetsEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('saved_snippets'), op: Type.Literal('add'), saved_snippet: SavedSnippetObject }, strict),
  Type.Object({ id: Int(), type: Type.Literal('saved_snippets'), op: Type.Literal('update'), saved_snippet: SavedSnippetObject }, strict),
  Type.Object({ id: Int(), type: Type.Literal('saved_snippets'), op: Type.Literal('remove'), saved_snippet_id: Int() }, strict),
]);

const TypingOp = Type.Union([Type.Literal('start'), Type.Literal('stop')]);

/**
 * `typing_edit_message` (Zulip's `do_send_stream_message_edit_typing_notification` /
 * `do_send_direct_message_edit_typing_notification`): `recipient` is the channel and topic, or
 * the direct message's notified user ids.
 */
export const TypingEditMessageEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('typing_edit_message'),
    op: TypingOp,
    sender_id: Int(),
    message_id: Int(),
    recipient: Type.Union([
      Type.Object({ type: Type.Literal('channel'), channel_id: Int(), topic: Str() }, strict),
      Type.Object({ type: Type.Literal('direct'), user_ids: Type.Array(Int()) }, strict),
    ]),
  },
  strict,
);
