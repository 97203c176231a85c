/**
 * Draft endpoints (https://zulip.com/api/get-drafts, https://zulip.com/api/edit-draft,
 * https://zulip.com/api/create-drafts; Zulip's `zerver/views/drafts.py`),
 * Zulip's typed-endpoint dialect, every user acting on their own drafts only:
 * - `GET /drafts` → `{count, drafts}` least recently edited first;
 * - `POST /drafts`: `drafts` = JSON list of draft objects → `{ids}` in input order (seed: optional;
 *   absent = an empty list);
 * - `PATCH /drafts/{draft_id}`: `draft` = one JSON draft object (required), a full replacement;
 * - `DELETE /drafts/{draft_id}`.
 *
 * All four first check the caller's `enable_drafts_synchronization` setting ("User has disabled
 * synchronizing drafts.", before any parameter is parsed: Zulip's `draft_endpoint` wraps the typed
 * endpoint), which is why `drafts`/`draft` are declared as plain strings and decoded here.
 *
 * A draft object is Zulip's `DraftData` (pydantic, strict, `extra="forbid"`), validated field by
 * field in declaration order, then unknown keys (the first pydantic error is reported):
 * `type` ∈ {"stream", "private", ""} (`Invalid drafts[0]["type"]`), `to` a list of integers
 * (`… is not a list`, `…["to"][0] is not an integer`), `topic` a string, `content` a string that
 * is whitespace-stripped (pydantic's `strip_whitespace`: Unicode White_Space) and must not be blank
 * (`drafts[0]["content"] cannot be blank`), `timestamp` an optional JSON number or null; a missing
 * key is `drafts[0]["topic"] field is missing`, an unknown one `Argument "id" at drafts[0] is
 * unexpected`. For PATCH the variable is `draft` (`Invalid draft["type"]`). Timestamps past year
 * 9999 (which crash Zulip's `timestamp_to_datetime`) are `… is too large`.
 *
 * The remaining rules and their error strings are in `realm/handlers/drafts.ts`.
 */
import { Errors, type ZulipError } from '../errors.js';
import { draftsForFetch } from '../domain/drafts.js';
import { draftsSyncEnabled, DraftErrors, type DraftInput } from '../realm/handlers/drafts.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Largest timestamp Python's `datetime` accepts (9999-12-31T23:59:59Z). */
const MAX_TIMESTAMP = 253402300799;

const DRAFT_KEYS = ['type', 'to', 'topic', 'content', 'timestamp'] as const;

/** pydantic's `str_strip_whitespace` (Rust `str::trim`: the Unicode White_Space property). */
const strip = (s: string) => s.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `name["key"]` as Zulip renders a location in the typed dialect. */
const at = (name: string, key: string) => `${name}[${JSON.stringify(key)}]`;

/**
 * Validates one JSON draft object named `name` (`drafts[0]`, `draft`) as pydantic's `DraftData`.
 * Returns the parsed draft or the first error.
 */
export function parseDraftData(value: unknown, name: string): DraftInput | ZulipError {
  const bad = Errors.badRequest;
  if (!isDict(value)) return bad(`${name} is not a dict`);
  const missing = (key: string) => bad(`${at(name, key)} field is missing`);

  if (!('type' in value)) return missing('type');
  const type = value.type;
  if (type !== 'stream' && type !== 'private' && type !== '') return bad(`Invalid ${at(name, 'type')}`);

  if (!('to' in value)) return missing('to');
  const to = value.to;
  if (!Array.isArray(to)) return bad(`${at(name, 'to')} is not a list`);
  for (const [i, id] of to.entries()) {
    if (typeof id !== 'number' || !Number.isInteger(id)) return bad(`${at(name, 'to')}[${i}] is not an integer`);
  }

  if (!('topic' in value)) return missing('topic');
  if (typeof value.topic !== 'string') return bad(`${at(name, 'topic')} is not a string`);

  if (!('content' in value)) return missing('content');
  if (typeof value.content !== 'string') return bad(`${at(name, 'content')} is not a string`);
  const content = strip(value.content);
  if (content === '') return bad(`${at(name, 'content')} cannot be blank`);

  const timestamp = value.timestamp;
  if (timestamp !== undefined && timestamp !== null) {
    if (typeof timestamp !== 'number') return bad(`${at(name, 'timestamp')} is not a float`);
    if (!(timestamp <= MAX_TIMESTAMP)) return bad(`${at(name, 'timestamp')} is too large`);
  }

  for (const key of Object.keys(value)) {
    if (!(DRAFT_KEYS as readonly string[]).includes(key)) return bad(`Argument "${key}" at ${name} is unexpected`);
  }
  return {
    type,
    to: to as number[],
    topic: value.topic,
    content,
    ...(typeof timestamp === 'number' && { timestamp }),
  };
}

/** JSON-decodes a typed-endpoint parameter (`x is not valid JSON`). */
function decodeJson(name: string, raw: string): { value: unknown } | ZulipError {
  // (A wrapper object, since the decoded value may itself be anything.)
  try {
    return { value: JSON.parse(raw) };
  } catch {
    return Errors.badRequest(`${name} is not valid JSON`);
  }
}

/** `POST /drafts`'s `drafts`: a JSON list of draft objects (absent = empty). */
export function parseDraftList(raw: string | undefined): DraftInput[] | ZulipError {
  if (raw === undefined) return [];
  const decoded = decodeJson('drafts', raw);
  if (decoded instanceof Error) return decoded;
  if (!Array.isArray(decoded.value)) return Errors.badRequest('drafts is not a list');
  const out: DraftInput[] = [];
  for (const [i, item] of decoded.value.entries()) {
    const draft = parseDraftData(item, `drafts[${i}]`);
    if (draft instanceof Error) return draft;
    out.push(draft);
  }
  return out;
}

export const draftEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/drafts',
    auth: 'user',
    dialect: 'typed',
    params: {},
    handler: ({ realm, user }) => {
      if (!draftsSyncEnabled(user!)) return DraftErrors.syncDisabled();
      const drafts = draftsForFetch(realm!.state, user!.id);
      return { count: drafts.length, drafts };
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/drafts',
    auth: 'user',
    dialect: 'typed',
    params: { drafts: P.string() },
    handler: async ({ realm, user, params }) => {
      if (!draftsSyncEnabled(user!)) return DraftErrors.syncDisabled();
      const drafts = parseDraftList(params.drafts);
      if (drafts instanceof Error) return drafts;
      return runCommand(realm!, { type: 'create_drafts', actorId: user!.id, drafts }, (reply) => ({ ids: reply.ids }));
    },
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/drafts/{draft_id}',
    auth: 'user',
    dialect: 'typed',
    params: { draft: P.string() },
    handler: async ({ realm, user, params, path }) => {
      if (!draftsSyncEnabled(user!)) return DraftErrors.syncDisabled();
      if (params.draft === undefined) return Errors.missingArgument('draft');
      const decoded = decodeJson('draft', params.draft);
      if (decoded instanceof Error) return decoded;
      const draft = parseDraftData(decoded.value, 'draft');
      if (draft instanceof Error) return draft;
      return runCommand(realm!, { type: 'edit_draft', actorId: user!.id, draftId: path.draft_id!, draft });
    },
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/drafts/{draft_id}',
    auth: 'user',
    dialect: 'typed',
    params: {},
    handler: async ({ realm, user, path }) => {
      if (!draftsSyncEnabled(user!)) return DraftErrors.syncDisabled();
      return runCommand(realm!, { type: 'delete_draft', actorId: user!.id, draftId: path.draft_id! });
    },
  }),
];
