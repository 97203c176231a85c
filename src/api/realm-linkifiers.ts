/**
 * Linkifier endpoints (https://zulip.com/api/get-linkifiers; Zulip's zerver/views/realm_linkifiers.py):
 * - `GET /realm/linkifiers` (any user): `{linkifiers: [{pattern, url_template, id}, ...]}` in order;
 * - `POST /realm/filters` (admin): `pattern`, `url_template` (both stripped) → `{id}`, appended last;
 * - `PATCH /realm/filters/{filter_id}` (admin): `pattern`, `url_template` (both required);
 * - `DELETE /realm/filters/{filter_id}` (admin);
 * - `PATCH /realm/linkifiers` (admin): `ordered_linkifier_ids`, a JSON list of every id once.
 *
 * As Zulip's `@require_realm_admin`, the administrator check comes before parameter checks, so the
 * admin-only parameters are declared optional and their absence reported here with Zulip's
 * `Missing '<name>' argument`. Validation (RE2 patterns, RFC 6570 templates, group checks, the
 * `errors` dict) lives in `domain/linkifiers.ts`.
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { linkifiersWire } from '../domain/linkifiers.js';
import { requireRealmAdmin } from '../domain/access.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Zulip's `require_realm_admin` (zerver/views/realm_linkifiers.py). */
const notAdmin = requireRealmAdmin;

/** Python `str.strip()` (Unicode whitespace). */
const strip = (s: string) => s.replace(/^\s+|\s+$/gu, '');


const patternParams = { pattern: P.string(), url_template: P.string() };

/** `GET /realm/linkifiers` (Zulip's zerver/views/realm_linkifiers.py `list_linkifiers`). */
export const getLinkifiers = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm }) => ({ linkifiers: linkifiersWire(realm.state) }),
});

/** `POST /realm/filters` (Zulip's zerver/views/realm_linkifiers.py `create_linkifier`). */
export const addLinkifier = defineEndpoint({
  auth: 'user',
  params: patternParams,
  handler: async ({ realm, user, params }) => {
    const denied = notAdmin(user);
    if (denied) return denied;
    if (params.pattern === undefined) return Errors.missingArgument('pattern');
    if (params.url_template === undefined) return Errors.missingArgument('url_template');
    return runCommand(
      realm,
      { type: 'add_linkifier', actorId: user.id, pattern: strip(params.pattern), urlTemplate: strip(params.url_template) },
      (reply) => ({ id: reply.id }),
    );
  },
});

/** `PATCH /realm/filters/{filter_id}` (Zulip's zerver/views/realm_linkifiers.py `update_linkifier`). */
export const updateLinkifier = defineEndpoint({
  auth: 'user',
  pathParams: { filter_id: 'int' },
  params: patternParams,
  handler: async ({ realm, user, path, params }) => {
    const denied = notAdmin(user);
    if (denied) return denied;
    if (params.pattern === undefined) return Errors.missingArgument('pattern');
    if (params.url_template === undefined) return Errors.missingArgument('url_template');
    return runCommand(realm, {
      type: 'update_linkifier',
      actorId: user.id,
      id: path.filter_id,
      pattern: strip(params.pattern),
      urlTemplate: strip(params.url_template),
    });
  },
});

/** `DELETE /realm/filters/{filter_id}` (Zulip's zerver/views/realm_linkifiers.py `delete_linkifier`). */
export const removeLinkifier = defineEndpoint({
  auth: 'user',
  pathParams: { filter_id: 'int' },
  params: {},
  handler: async ({ realm, user, path }) => {
    const denied = notAdmin(user);
    if (denied) return denied;
    return runCommand(realm, { type: 'remove_linkifier', actorId: user.id, id: path.filter_id });
  },
});

/** `PATCH /realm/linkifiers` (Zulip's zerver/views/realm_linkifiers.py `reorder_linkifiers`). */
export const reorderLinkifiers = defineEndpoint({
  auth: 'user',
  params: { ordered_linkifier_ids: P.json(Type.Array(Type.Integer())) },
  handler: async ({ realm, user, params }) => {
    const denied = notAdmin(user);
    if (denied) return denied;
    if (params.ordered_linkifier_ids === undefined) return Errors.missingArgument('ordered_linkifier_ids');
    return runCommand(realm, { type: 'reorder_linkifiers', actorId: user.id, orderedIds: params.ordered_linkifier_ids });
  },
});
