/**
 * typebox schemas of the events about one user's own things, delivered to that user's queues:
 * `heartbeat`, `typing`, `user_topic` and legacy `muted_topics`, `navigation_view`, `drafts`.
 * Strict objects, as every event schema (see `schemas.ts`, which gathers them).
 */
import Type from 'typebox';
import { Bool, Int, Nullable, Str, strict } from './register/schema-helpers.js';

/** `heartbeat`: `{id, type: "heartbeat"}`, sent to a waiting long-poll so it returns. */
export const HeartbeatEventSchema = Type.Object({ id: Int(), type: Type.Literal('heartbeat') }, strict);

const TypingUser = Type.Object({ user_id: Int(), email: Str() }, strict);
const TypingOp = Type.Union([Type.Literal('start'), Type.Literal('stop')]);

/**
 * `typing`: `op` start/stop, `message_type: "direct"` with `recipients: [{user_id, email}]`, or
 * `message_type: "stream"` with `stream_id` and `topic` (FL 215 renamed `private` to `direct`;
 * channel typing since FL 58).
 */
export const TypingEventSchema = Type.Union([
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('typing'),
      op: TypingOp,
      message_type: Type.Literal('direct'),
      sender: TypingUser,
      recipients: Type.Array(TypingUser),
    },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('typing'),
      op: TypingOp,
      message_type: Type.Literal('stream'),
      sender: TypingUser,
      stream_id: Int(),
      topic: Str(),
    },
    strict,
  ),
]);

/**
 * `user_topic` (https://zulip.com/api/update-user-topic, https://zulip.com/api/get-events): the
 * user's new policy for one topic.
 */
export const UserTopicEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('user_topic'),
    stream_id: Int(),
    topic_name: Str(),
    last_updated: Int(),
    visibility_policy: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2), Type.Literal(3)]),
  },
  strict,
);

/** Legacy `muted_topics`: the whole list of `[stream_name, topic, last_updated]` after a change. */
export const MutedTopicsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('muted_topics'), muted_topics: Type.Array(Type.Tuple([Str(), Str(), Int()])) },
  strict,
);

/**
 * `navigation_view` (Zulip FL 390, `zerver/actions/navigation_views.py`): op `add` with the view,
 * `update` with the fragment and only the changed keys, `remove` with the fragment.
 */
export const NavigationViewEventSchema = Type.Union([
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('navigation_view'),
      op: Type.Literal('add'),
      navigation_view: Type.Object({ fragment: Str(), is_pinned: Bool(), name: Nullable(Str()) }, strict),
    },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('navigation_view'),
      op: Type.Literal('update'),
      fragment: Str(),
      data: Type.Object({ name: Type.Optional(Str()), is_pinned: Type.Optional(Bool()) }, strict),
    },
    strict,
  ),
  Type.Object({ id: Int(), type: Type.Literal('navigation_view'), op: Type.Literal('remove'), fragment: Str() }, strict),
]);

/** A draft object (Zulip's `Draft.to_dict()`, https://zulip.com/api/get-drafts). */
const DraftObject = Type.Object(
  {
    id: Int(),
    type: Type.Union([Type.Literal(''), Type.Literal('stream'), Type.Literal('private')]),
    to: Type.Array(Int()),
    topic: Str(),
    content: Str(),
    timestamp: Int(),
  },
  strict,
);

/**
 * `drafts` (https://zulip.com/api/get-users, `zerver/lib/drafts.py`), to the owner only: op `add` with the
 * created drafts, `update` with the whole edited draft, `remove` with its id.
 */
export const DraftsEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('drafts'), op: Type.Literal('add'), drafts: Type.Array(DraftObject) }, strict),
  Type.Object({ id: Int(), type: Type.Literal('drafts'), op: Type.Literal('update'), draft: DraftObject }, strict),
  Type.Object({ id: Int(), type: Type.Literal('drafts'), op: Type.Literal('remove'), draft_id: Int() }, strict),
]);

/**
 * `submessage` (https://zulip.com/api/get-events#submessage; Zulip's zerver/actions/submessage.py
 * `do_add_submessage`): a widget vote, option, task... attached to message `message_id`.
 */
export const SubmessageEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('submessage'), msg_type: Str(), message_id: Int(), submessage_id: Int(), sender_id: Int(), content: Str() },
  strict,
);
