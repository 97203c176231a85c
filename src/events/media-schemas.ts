/**
 * typebox schemas of the events about media: `realm_emoji` (https://zulip.com/api/get-events,
 * Zulip's zerver/actions/realm_emoji.py `notify_realm_emoji`). Avatar changes travel as
 * `realm_user` updates (`user-schemas.ts`). Strict objects, as every event schema.
 */
import Type from 'typebox';
import { Int, strict } from './register/schema-helpers.js';
import { REGISTER_KEY_SCHEMAS } from './register/schemas.js';

/** `realm_emoji` op `update`: every custom emoji of the realm, deactivated ones included, by id. */
export const RealmEmojiEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('realm_emoji'), op: Type.Literal('update'), realm_emoji: REGISTER_KEY_SCHEMAS.realm_emoji },
  strict,
);
