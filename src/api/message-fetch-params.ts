/**
 * Parameter parsing of `GET /messages` in the wording of Zulip's `REQ` form
 * (zerver/views/message_fetch.py `get_messages_backend`, zerver/lib/narrow.py
 * `parse_anchor_value`): Python `int()` numbers, JSON booleans, the anchor keywords.
 * Errors are thrown as ZulipError (the registry answers them).
 */
import { Errors, ZulipError } from '../errors.js';
import { LARGER_THAN_MAX_MESSAGE_ID } from '../domain/narrow.js';

/** Zulip's `MAX_MESSAGES_PER_FETCH`. */
export const MAX_MESSAGES_PER_FETCH = 5000;

/** Largest `num_before` / `num_after` (`to_non_negative_int`'s default bound, 2^32 − 1). */
const MAX_NUM = 2n ** 32n - 1n;

/** Python's `int(s)` for ASCII input: surrounding whitespace, a sign, `_` between digits. */
function pythonInt(raw: string): bigint | null {
  const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(raw);
  if (m === null) return null;
  const value = BigInt(m[2]!.replace(/_/g, ''));
  return m[1] === '-' ? -value : value;
}

/** A JSON boolean parameter, `REQ(json_validator=check_bool)` wording. */
export function jsonBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw Errors.badRequest(`Argument "${name}" is not valid JSON.`);
  }
  if (typeof value !== 'boolean') throw Errors.badRequest(`${name} is not a boolean`);
  return value;
}

/** A required `to_non_negative_int` parameter: `Bad value for '<name>': <raw>` when invalid. */
export function nonNegativeInt(name: string, raw: string | undefined): number {
  if (raw === undefined) throw Errors.missingArgument(name);
  const value = pythonInt(raw);
  if (value === null || value < 0n || value > MAX_NUM) throw Errors.badValue(name, raw);
  return Number(value);
}

/**
 * Zulip's `parse_anchor_value`: `oldest` → 0, `newest` → 10^16, `first_unread` (or
 * `use_first_unread_anchor`) → null; an integer clamped to [0, 10^16]. Errors:
 * `Missing 'anchor' argument.` and `Invalid anchor` (400 BAD_REQUEST).
 */
export function parseAnchor(raw: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (raw === undefined) throw Errors.badRequest("Missing 'anchor' argument.");
  if (raw === 'oldest') return 0;
  if (raw === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (raw === 'first_unread') return null;
  const value = pythonInt(raw);
  if (value === null) throw Errors.badRequest('Invalid anchor');
  if (value < 0n) return 0;
  if (value > BigInt(LARGER_THAN_MAX_MESSAGE_ID)) return LARGER_THAN_MAX_MESSAGE_ID;
  return Number(value);
}

/** Raises a returned ZulipError. */
export function unwrap<T>(value: T | ZulipError): T {
  if (value instanceof ZulipError) throw value;
  return value;
}
