/**
 * `GET /messages`: fetch messages around an anchor, optionally narrowed (https://zulip.com/api/get-messages
 * Zulip's `get_messages_backend` at feature level 417, with the parameter
 * errors of its `REQ` form as https://zulip.com/api/get-messages documents them).
 *
 * Parameters are decoded in Zulip's declaration order, so that the first bad one is the one
 * reported: `anchor`, `include_anchor`, `num_before`, `num_after`, `narrow`,
 * `use_first_unread_anchor`, `client_gravatar`, `apply_markdown`, `allow_empty_topic_name`.
 * Then: the anchor value, the narrow's `with` / empty-topic preprocessing, the 5000-message cap,
 * the excluded-anchor rule, and finally the narrow's terms (BAD_NARROW) and the query itself
 * (`realm/queries/message-list.ts`), which runs synchronously on the realm state.
 */
import { Errors, ZulipError } from '../errors.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { LARGER_THAN_MAX_MESSAGE_ID, cleanNarrow, parseNarrow, type NarrowTerm } from '../domain/narrow.js';
import { fetchMessageList } from '../realm/queries/message-list.js';

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
function jsonBool(name: string, raw: string | undefined, fallback: boolean): boolean {
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
function nonNegativeInt(name: string, raw: string | undefined): number {
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
function unwrap<T>(value: T | ZulipError): T {
  if (value instanceof ZulipError) throw value;
  return value;
}

export const messageFetchEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/messages',
    auth: 'user',
    params: {
      anchor: P.string(),
      include_anchor: P.string(),
      num_before: P.string(),
      num_after: P.string(),
      narrow: P.string(),
      use_first_unread_anchor: P.string(),
      client_gravatar: P.string(),
      apply_markdown: P.string(),
      allow_empty_topic_name: P.string(),
    },
    handler: ({ realm, user, params }) => {
      const includeAnchor = jsonBool('include_anchor', params.include_anchor, true);
      const numBefore = nonNegativeInt('num_before', params.num_before);
      const numAfter = nonNegativeInt('num_after', params.num_after);
      const narrow: NarrowTerm[] | null = params.narrow === undefined ? null : unwrap(parseNarrow(params.narrow));
      const useFirstUnread = jsonBool('use_first_unread_anchor', params.use_first_unread_anchor, false);
      const clientGravatar = jsonBool('client_gravatar', params.client_gravatar, true);
      const applyMarkdown = jsonBool('apply_markdown', params.apply_markdown, true);
      const allowEmptyTopicName = jsonBool('allow_empty_topic_name', params.allow_empty_topic_name, false);

      const anchor = parseAnchor(params.anchor, useFirstUnread);
      const state = realm!.state;
      const cleaned = unwrap(cleanNarrow(state, user!, narrow));
      if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) {
        return Errors.badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
      }
      if (numBefore > 0 && numAfter > 0 && !includeAnchor) {
        return Errors.badRequest('The anchor can only be excluded at an end of the range');
      }
      return fetchMessageList(
        state,
        user!,
        { anchor, includeAnchor, numBefore, numAfter, narrow: cleaned, applyMarkdown, clientGravatar, allowEmptyTopicName },
        (id) => realm!.messageBody(id),
      );
    },
  }),
];
