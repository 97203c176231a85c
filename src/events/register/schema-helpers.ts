/** Shorthands for the register-response schemas (typebox), shared by `schemas.ts` and `realm-schemas.ts`. */
import Type, { type TSchema } from 'typebox';

/** Objects are strict, like Zulip's event-schema checker: an extra key is an error. */
export const strict = { additionalProperties: false } as const;
export const Int = () => Type.Integer();
export const Str = () => Type.String();
export const Bool = () => Type.Boolean();
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const IntList = () => Type.Array(Type.Integer());

/**
 * One property per key, all with the same schema, typed per key so that `Static<>` of the object
 * keeps the key names (`Object.fromEntries` alone types them as `string`, which would let any key
 * through the static type).
 */
export function keyed<K extends string, S extends TSchema>(keys: readonly K[], schema: S): { [P in K]: S } {
  return Object.fromEntries(keys.map((k) => [k, schema])) as { [P in K]: S };
}
