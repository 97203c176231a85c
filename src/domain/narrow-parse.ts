/**
 * Parsing of the `narrow` parameter of `GET /messages` (https://zulip.com/api/get-messages): dict terms
 * `{operator, operand, negated?}` and legacy `[operator, operand]` pairs, with Zulip's operand
 * type rules and `BAD_NARROW` errors. Compiling terms into tests lives in `narrow.ts`.
 */
import { Errors, ZulipError } from '../errors.js';

/** An operand: a string, an integer (ids) or a list of integers (`dm` by user ids). */
export type NarrowOperand = string | number | number[];

/** One narrow term, normalized from either wire form. */
export interface NarrowTerm {
  operator: string;
  operand: NarrowOperand;
  negated: boolean;
}

/** Zulip's `LARGER_THAN_MAX_MESSAGE_ID` (10^16): the `newest` anchor. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;
/** Zulip's `Message.MAX_POSSIBLE_MESSAGE_ID` (the `id` operator's upper bound). */
export const MAX_POSSIBLE_MESSAGE_ID = 2 ** 31 - 1;
/** Prefix Zulip puts on resolved topics. */
export const RESOLVED_TOPIC_PREFIX = '✔ ';

export const CHANNEL_OPERATORS = new Set(['channel', 'stream']);
export const CHANNELS_OPERATORS = new Set(['channels', 'streams']);
/** Operators whose operand may be a string or an integer. */
const ID_OPERATORS = new Set(['channel', 'stream', 'id', 'sender', 'group-pm-with', 'dm-including', 'with']);
/** Operators whose operand may be a string or a list of integers. */
const IDS_OPERATORS = new Set(['pm-with', 'dm']);

/** `Invalid narrow operator: <desc>` (BAD_NARROW, extra field `desc`). */
export function badNarrow(desc: string): ZulipError {
  return new ZulipError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400, { desc });
}

/** `Invalid narrow operator combination: <desc>` (BAD_NARROW, extra field `desc`). */
export function badNarrowCombination(desc: string): ZulipError {
  return new ZulipError('BAD_NARROW', `Invalid narrow operator combination: ${desc}`, 400, { desc });
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Python's `str()` of an operand, for error descriptions (`[1, 2]` for lists). */
export function operandText(operand: NarrowOperand): string {
  return Array.isArray(operand) ? `[${operand.join(', ')}]` : String(operand);
}

/** Validates one dict-form term (Zulip's `check_dict` with the operand validator of its operator). */
function checkDictTerm(elem: Record<string, unknown>): NarrowTerm | ZulipError {
  const operatorValue = 'operator' in elem ? elem.operator : '';
  if (!('operator' in elem)) return Errors.badRequest('operator key is missing from elem');
  if (typeof operatorValue !== 'string') return Errors.badRequest('elem["operator"] is not a string');
  const operator = operatorValue;
  if (!('operand' in elem)) return Errors.badRequest('operand key is missing from elem');
  const operand = elem.operand;
  const v = 'elem["operand"]';
  if (ID_OPERATORS.has(operator)) {
    if (typeof operand !== 'string' && !isInt(operand)) return Errors.badRequest(`${v} is not a string or integer`);
  } else if (IDS_OPERATORS.has(operator)) {
    if (typeof operand !== 'string') {
      if (!Array.isArray(operand)) return Errors.badRequest(`${v} is not a string or an integer list`);
      for (let i = 0; i < operand.length; i++) {
        if (!isInt(operand[i])) return Errors.badRequest(`${v}[${i}] is not an integer`);
      }
    }
  } else if (operator === 'search') {
    if (typeof operand !== 'string') return Errors.badRequest(`${v} is not a string`);
    if (operand.trim() === '') return Errors.badRequest(`${v} cannot be blank.`);
  } else if (typeof operand !== 'string') {
    return Errors.badRequest(`${v} is not a string`);
  }
  if ('negated' in elem && typeof elem.negated !== 'boolean') return Errors.badRequest('elem["negated"] is not a boolean');
  return { operator, operand: operand as NarrowOperand, negated: elem.negated === true };
}

/**
 * Parses the raw `narrow` parameter (https://zulip.com/api/get-messages): a JSON list of
 * `{"operator","operand","negated"?}` dicts or legacy `["operator","operand"]` string pairs.
 *
 * Returns null for `[]` (no narrow), the terms, or the error: `Bad value for 'narrow': <raw>`
 * (REQUEST_VARIABLE_INVALID) when the value is not JSON, not a list, or has an element that is
 * neither a dict nor a pair of strings; a 400 BAD_REQUEST naming `elem[...]` when a dict term
 * has a missing key or a value of the wrong type.
 */
export function parseNarrow(raw: string): NarrowTerm[] | null | ZulipError {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return Errors.badValue('narrow', raw);
  }
  if (!Array.isArray(data)) return Errors.badValue('narrow', raw);
  if (data.length === 0) return null;
  const terms: NarrowTerm[] = [];
  for (const elem of data) {
    if (Array.isArray(elem)) {
      if (elem.length !== 2 || typeof elem[0] !== 'string' || typeof elem[1] !== 'string') {
        return Errors.badValue('narrow', raw);
      }
      terms.push({ operator: elem[0], operand: elem[1], negated: false });
    } else if (elem !== null && typeof elem === 'object') {
      const term = checkDictTerm(elem as Record<string, unknown>);
      if (term instanceof ZulipError) return term;
      terms.push(term);
    } else {
      return Errors.badValue('narrow', raw);
    }
  }
  return terms;
}
