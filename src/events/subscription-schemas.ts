/**
 * typebox schemas of the `subscription` and `stream` client events (https://zulip.com/api/get-events),
 * registered in `EVENT_SCHEMAS` (`events/schemas.ts`):
 * - `subscription` op `add` `{subscriptions: [subscription object with subscribers]}`,
 *   op `remove` `{subscriptions: [{name, stream_id}]}`, op `update` `{stream_id, property, value}`,
 *   ops `peer_add` / `peer_remove` `{stream_ids, user_ids}`;
 * - `stream` op `create` / `delete` `{streams: [stream objects]}`, op `update`
 *   `{stream_id, name, property, value}` (+ `rendered_description`, `history_public_to_subscribers`,
 *   `is_web_public` where Zulip adds them).
 */
import Type from 'typebox';
import { StreamSchema, SubscriptionSchema } from './register/schemas.js';
import { Bool, Int, IntList, Str, strict } from './register/schema-helpers.js';

export const SubscriptionEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('subscription'), op: Type.Literal('add'), subscriptions: Type.Array(SubscriptionSchema) }, strict),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('subscription'),
      op: Type.Literal('remove'),
      subscriptions: Type.Array(Type.Object({ name: Str(), stream_id: Int() }, strict)),
    },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('subscription'),
      op: Type.Literal('update'),
      stream_id: Int(),
      property: Str(),
      value: Type.Union([Str(), Bool(), Type.Null()]),
    },
    strict,
  ),
  Type.Object(
    { id: Int(), type: Type.Literal('subscription'), op: Type.Union([Type.Literal('peer_add'), Type.Literal('peer_remove')]), stream_ids: IntList(), user_ids: IntList() },
    strict,
  ),
]);

export const StreamEventSchema = Type.Union([
  Type.Object(
    { id: Int(), type: Type.Literal('stream'), op: Type.Union([Type.Literal('create'), Type.Literal('delete')]), streams: Type.Array(StreamSchema) },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('stream'),
      op: Type.Literal('update'),
      stream_id: Int(),
      name: Str(),
      property: Str(),
      value: Type.Unknown(),
      rendered_description: Type.Optional(Str()),
      history_public_to_subscribers: Type.Optional(Bool()),
      is_web_public: Type.Optional(Bool()),
    },
    strict,
  ),
]);
