/**
 * Zulip-style parameter decoding (Zulip's zerver/lib/request.py `REQ` / `has_request_variables` and
 * zerver/lib/typed_endpoint.py `typed_endpoint`).
 *
 * - Lookup order: form body first, then query string (body wins). Repeated names: the last
 *   occurrence wins (Django's `QueryDict.__getitem__`).
 * - `P.string`: used verbatim. `P.bool` / `P.int` / `P.json(schema)`: JSON-decoded, then checked
 *   with a typebox validator compiled once, when the spec is defined (never per request).
 *   `P.jsonOrString`: JSON if it parses, else the raw string (`to` of `POST /messages`).
 * - Aliases (`topic` / `subject`): either name may carry the value; both → REQUEST_CONFUSING_VAR.
 * - Every name that was looked up and found is added to `consumed`, which the registry uses for
 *   `ignored_parameters_unsupported`. `client` is always consumed (it only names the client).
 * - Error wording follows one of Zulip's two dialects (`Dialect`); all are 400 BAD_REQUEST
 *   except missing (REQUEST_VARIABLE_MISSING) and confusing (REQUEST_CONFUSING_VAR) arguments.
 */
import Type, { type TSchema, type Static } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';
import { Errors } from '../errors.js';

/** `req`: old `REQ()` wording (`Argument "x" is not valid JSON.`); `typed`: `@typed_endpoint` wording. */
export type Dialect = 'req' | 'typed';

/** Name/value pairs in request order, as parsed from a form body or a query string. */
export type ParamPairs = readonly (readonly [string, string])[];

/**
 * How one parameter is decoded. Build with `P`; never construct by hand.
 *
 * `T` is the decoded value type. `Opt` is `false` when the decoded value is always present
 * (required, or has a default) and `true` when it may be `undefined`; `DecodedParams` reads it.
 */
export interface ParamSpec<T, Opt extends boolean = boolean> {
  readonly kind: 'string' | 'json' | 'jsonOrString';
  readonly required: boolean;
  /** Used when the parameter is absent. Shared across requests: handlers must not mutate it. */
  readonly default?: T;
  readonly aliases?: readonly string[];
  /** The typebox schema a `json` parameter is validated against. */
  readonly schema?: TSchema;
  /** `schema` compiled once at definition time. */
  readonly validator?: Validator;
  /** phantom: the decoded type */
  readonly __type?: T;
  /** phantom: whether the decoded value may be undefined */
  readonly __optional?: Opt;
}

/** An endpoint's parameter declarations, keyed by wire name. */
export type ParamSpecs = Readonly<Record<string, ParamSpec<unknown>>>;

/** Decoded value type of a spec map: required or defaulted → T, else T | undefined. */
export type DecodedParams<S extends ParamSpecs> = {
  [K in keyof S]: S[K] extends ParamSpec<infer T, infer O> ? ([O] extends [false] ? T : T | undefined) : never;
};

interface Aliased {
  aliases?: readonly string[];
}

/** Options for `P.string` / `P.jsonOrString`. */
interface Opts<T> extends Aliased {
  required?: boolean;
  default?: T;
}

/** Overloads shared by every builder: required or defaulted → always present; else optional. */
interface Builder<T> {
  (opts: Aliased & { required: true }): ParamSpec<T, false>;
  (opts: Aliased & { required?: false; default: T }): ParamSpec<T, false>;
  (opts?: Aliased & { required?: false }): ParamSpec<T, true>;
  (opts?: Opts<T>): ParamSpec<T, boolean>;
}

/** `P.json`: the schema comes first and fixes `T`. */
interface JsonBuilder {
  <S extends TSchema>(schema: S, opts: Aliased & { required: true }): ParamSpec<Static<S>, false>;
  <S extends TSchema>(schema: S, opts: Aliased & { required?: false; default: Static<S> }): ParamSpec<Static<S>, false>;
  <S extends TSchema>(schema: S, opts?: Aliased & { required?: false }): ParamSpec<Static<S>, true>;
  <S extends TSchema>(schema: S, opts?: Opts<Static<S>>): ParamSpec<Static<S>, boolean>;
}

const boolSchema = Type.Boolean();
const intSchema = Type.Integer();
const boolValidator = Compile(boolSchema);
const intValidator = Compile(intSchema);

function make<T>(
  kind: ParamSpec<T>['kind'],
  opts: Opts<T> | undefined,
  schema?: TSchema,
  validator?: Validator,
): ParamSpec<T, boolean> {
  return Object.freeze({
    kind,
    required: opts?.required === true,
    default: opts?.default,
    aliases: opts?.aliases && opts.aliases.length > 0 ? Object.freeze([...opts.aliases]) : undefined,
    schema,
    validator,
  });
}

/**
 * Parameter spec builders:
 * - `P.string(opts?)`: plain string, verbatim;
 * - `P.bool(opts?)`: JSON `true`/`false` (not `1`, `yes`, `True`);
 * - `P.int(opts?)`: JSON integer;
 * - `P.json(schema, opts?)`: JSON value validated by a typebox schema (compiled here, once);
 * - `P.jsonOrString(opts?)`: JSON if it parses, else the raw string; not validated.
 *
 * `opts`: `required: true` (missing → REQUEST_VARIABLE_MISSING), `default` (used when absent),
 * `aliases` (alternative wire names; both present → REQUEST_CONFUSING_VAR).
 */
export const P: {
  string: Builder<string>;
  bool: Builder<boolean>;
  int: Builder<number>;
  json: JsonBuilder;
  jsonOrString: Builder<unknown>;
} = {
  string: ((opts?: Opts<string>) => make('string', opts)) as Builder<string>,
  bool: ((opts?: Opts<boolean>) => make('json', opts, boolSchema, boolValidator)) as Builder<boolean>,
  int: ((opts?: Opts<number>) => make('json', opts, intSchema, intValidator)) as Builder<number>,
  json: ((schema: TSchema, opts?: Opts<unknown>) => make('json', opts, schema, Compile(schema))) as JsonBuilder,
  jsonOrString: ((opts?: Opts<unknown>) => make('jsonOrString', opts)) as Builder<unknown>,
};

// ---------------------------------------------------------------------------------------------
// Validation error wording (zerver/lib/typed_endpoint.py, zerver/lib/validator.py): typebox errors
// → Zulip's message for the
// first failure, with nested locations rendered `name[0]["key"]`.

const TYPE_WORDS: Readonly<Record<string, string>> = {
  integer: 'is not an integer',
  number: 'is not a float',
  string: 'is not a string',
  boolean: 'is not a boolean',
  array: 'is not a list',
  object: 'is not a dict',
};

/** True for errors that belong to one branch of a union (reported through the union's own error). */
function isBranchError(e: TLocalizedValidationError): boolean {
  return e.schemaPath.includes('/anyOf/') || e.schemaPath.includes('/oneOf/');
}

/**
 * Renders a JSON-pointer `instancePath` as `name[0]["key"]`, walking `value` to tell lists from
 * dicts.
 */
function varName(name: string, value: unknown, instancePath: string, dialect: Dialect): string {
  if (instancePath === '') return name;
  let out = name;
  let cur: unknown = value;
  for (const rawSeg of instancePath.slice(1).split('/')) {
    const seg = rawSeg.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      out += `[${seg}]`;
      cur = cur[Number(seg)];
    } else {
      out += dialect === 'req' ? `["${seg}"]` : `[${JSON.stringify(seg)}]`;
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  return out;
}

/** The errors reported by the branches of the union whose own error is `union` (not nested deeper). */
function unionCandidates(union: TLocalizedValidationError, errors: readonly TLocalizedValidationError[]) {
  const prefixes = [`${union.schemaPath}/anyOf/`, `${union.schemaPath}/oneOf/`];
  return errors.filter((e) => {
    const prefix = prefixes.find((p) => e.schemaPath.startsWith(p));
    if (prefix === undefined) return false;
    const rest = e.schemaPath.slice(prefix.length);
    return !rest.includes('/anyOf/') && !rest.includes('/oneOf/') && !isAdditionalKeyError(e);
  });
}

/** typebox reports each extra key as a `boolean` error before the `additionalProperties` summary. */
function isAdditionalKeyError(e: TLocalizedValidationError): boolean {
  return e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties');
}

/** Zulip's wording for one typebox error. */
function describe(
  e: TLocalizedValidationError,
  name: string,
  value: unknown,
  errors: readonly TLocalizedValidationError[],
  dialect: Dialect,
): string {
  const v = varName(name, value, e.instancePath, dialect);
  switch (e.keyword) {
    case 'type': {
      const t = Array.isArray(e.params.type) ? e.params.type[0] : e.params.type;
      const words = t === undefined ? undefined : TYPE_WORDS[t];
      return words === undefined ? `Invalid ${v}` : `${v} ${words}`;
    }
    case 'required': {
      const key = e.params.requiredProperties[0] ?? '';
      return dialect === 'req' ? `${key} key is missing from ${v}` : `${v}[${JSON.stringify(key)}] field is missing`;
    }
    case 'additionalProperties': {
      const keys = e.params.additionalProperties;
      return dialect === 'req' ? `Unexpected arguments: ${keys.join(', ')}` : `Argument "${keys[0] ?? ''}" at ${v} is unexpected`;
    }
    case 'anyOf':
    case 'oneOf': {
      const candidates = unionCandidates(e, errors);
      if (candidates.every((c) => c.keyword === 'const' || c.keyword === 'enum')) return `Invalid ${v}`;
      if (dialect === 'req') return `${v} is not an allowed_type`;
      // typed: report the branch that got furthest into the value.
      let best = candidates[0]!;
      for (const c of candidates) if (c.instancePath.length > best.instancePath.length) best = c;
      return describe(best, name, value, errors, dialect);
    }
    case 'const':
    case 'enum':
      return `Invalid ${v}`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${v} is too small`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${v} is too large`;
    case 'maxLength':
      return `${v} is too long (limit: ${e.params.limit} characters)`;
    case 'minLength':
      if (e.params.limit === 1) return dialect === 'req' ? `${v} cannot be blank.` : `${v} cannot be blank`;
      return `${v} is too short.`;
    default:
      return `Invalid ${v}`;
  }
}

/**
 * Zulip's message for the first validation failure of `value` (the JSON-decoded parameter `name`),
 * given typebox's error list for it. Unions are reported as a whole: `Invalid x` when every branch
 * is a literal, else `x is not an allowed_type` (`req`) or the deepest branch failure (`typed`).
 */
function validationMessage(
  name: string,
  value: unknown,
  errors: readonly TLocalizedValidationError[],
  dialect: Dialect,
): string {
  for (const e of errors) {
    if (isBranchError(e) || isAdditionalKeyError(e)) continue;
    return describe(e, name, value, errors, dialect);
  }
  return `Invalid ${name}`;
}

/** Last value for `name` in `pairs`, or undefined. */
export function lastValue(pairs: ParamPairs, name: string): string | undefined {
  let last: string | undefined;
  for (const [key, value] of pairs) if (key === name) last = value;
  return last;
}

/** Where `decodeParams` records the names it found: a `Set<string>` or a `ConsumedNames`. */
export interface NameSet {
  add(name: string): unknown;
  has(name: string): boolean;
}

/**
 * The parameter names a request used (`ignored_parameters_unsupported` is the rest): a handful
 * per request, so a short array searched linearly. A `Set` per request cost its hash table and,
 * from the fifth name (every send), a bigger one (issue 17).
 */
export class ConsumedNames implements NameSet {
  private readonly names: string[] = [];

  add(name: string): this {
    if (!this.names.includes(name)) this.names.push(name);
    return this;
  }

  has(name: string): boolean {
    return this.names.includes(name);
  }
}

/** Body value if present, else query value; records the name as consumed when found. */
function lookup(name: string, body: ParamPairs, query: ParamPairs, consumed: NameSet): string | undefined {
  let v = lastValue(body, name);
  if (v === undefined) v = lastValue(query, name);
  if (v !== undefined) consumed.add(name);
  return v;
}

/** JSON-decodes and validates one `json` parameter; throws the dialect's ZulipError on failure. */
function decodeJson(name: string, raw: string, spec: ParamSpec<unknown>, dialect: Dialect): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw Errors.badRequest(dialect === 'req' ? `Argument "${name}" is not valid JSON.` : `${name} is not valid JSON`);
  }
  const validator = spec.validator;
  if (validator !== undefined && !validator.Check(value)) {
    throw Errors.badRequest(validationMessage(name, value, validator.Errors(value), dialect));
  }
  return value;
}

/**
 * Could `raw` be a JSON text? Cheap pre-check so that plain strings such as `to=general` skip
 * `JSON.parse` and its exception (a thrown SyntaxError costs microseconds on the hot path).
 */
function mayBeJson(raw: string): boolean {
  let i = 0;
  let c = raw.charCodeAt(0);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = raw.charCodeAt(++i);
  // [ { " - 0-9
  if (c === 91 || c === 123 || c === 34 || c === 45 || (c >= 48 && c <= 57)) return true;
  const word = i === 0 ? raw : raw.slice(i);
  return word.startsWith('true') || word.startsWith('false') || word.startsWith('null');
}

/**
 * JSON value of `raw` if it is valid JSON, else `raw` itself (zulip-js sends `to` as JSON, others
 * as text).
 */
function jsonOrString(raw: string): unknown {
  if (!mayBeJson(raw)) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Decodes `specs` from a request's body and query pairs (Zulip's `REQ` / `typed_endpoint` rules above).
 *
 * Returns one key per spec: the decoded value, the default, or undefined. Adds every parameter
 * name it found (and always `client`) to `consumed`.
 *
 * Throws ZulipError: `Errors.missingArgument(name)` (required and absent),
 * `Errors.confusingVar(name, alias)` (both names given), 400 BAD_REQUEST for bad JSON or a value
 * that fails the schema, worded per `dialect`. Error texts always use the declared name, even when
 * the value came under an alias.
 */
export function decodeParams<S extends ParamSpecs>(
  specs: S,
  body: ParamPairs,
  query: ParamPairs,
  dialect: Dialect,
  consumed: NameSet,
): DecodedParams<S> {
  consumed.add('client');
  const out: Record<string, unknown> = {};
  for (const name in specs) {
    const spec = specs[name]!;
    let raw = lookup(name, body, query, consumed);
    const aliases = spec.aliases;
    if (aliases !== undefined) {
      for (const alias of aliases) {
        const v = lookup(alias, body, query, consumed);
        if (v === undefined) continue;
        if (raw !== undefined) throw Errors.confusingVar(name, alias);
        raw = v;
      }
    }
    if (raw === undefined) {
      if (spec.required) throw Errors.missingArgument(name);
      out[name] = spec.default;
      continue;
    }
    switch (spec.kind) {
      case 'string':
        out[name] = raw;
        break;
      case 'json':
        out[name] = decodeJson(name, raw, spec, dialect);
        break;
      case 'jsonOrString':
        out[name] = jsonOrString(raw);
        break;
    }
  }
  return out as DecodedParams<S>;
}
