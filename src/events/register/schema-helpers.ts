/** Shorthands for the register-response schemas (typebox), shared by `schemas.ts` and `realm-schemas.ts`. */
import Type, { type TSchema } from 'typebox';

/** Objects are strict, like Zulip's event-schema checker: an extra key is an error. */
export const strict = { additionalProperties: false } as const;
export const Int = () => Type.Integer();
export const Str = () => Type.String();
export const Bool = () => Type.Boolean();
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const IntList = () => Type.Array(Type.Integer());
