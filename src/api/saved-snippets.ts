/**
 * Saved snippets (https://zulip.com/api/get-saved-snippets,
 * https://zulip.com/api/create-saved-snippet, https://zulip.com/api/edit-saved-snippet,
 * https://zulip.com/api/delete-saved-snippet; Zulip FL 297/368, zerver/views/saved_snippets.py),
 * Zulip's typed-endpoint dialect:
 * - `GET /saved_snippets` → `{saved_snippets: [{id, title, content, date_created}]}` in id order;
 * - `POST /saved_snippets`: `title` (≤ 60 characters) and `content` (≤ 10000), both required,
 *   stripped first (pydantic's `strip_whitespace`), a blank one → "<name> cannot be blank", a long
 *   one → "<name> is too long (limit: N characters)" → `{saved_snippet_id}`;
 * - `PATCH /saved_snippets/{saved_snippet_id}`: `title` and/or `content`, same checks; neither →
 *   success without a change or an event (Zulip's early exit);
 * - `DELETE /saved_snippets/{saved_snippet_id}`.
 * Ownership and events: `realm/handlers/saved-snippets.ts`.
 */
import { Errors, type ZulipError } from '../errors.js';
import { MAX_SNIPPET_TITLE_LENGTH, savedSnippetsWire } from '../domain/saved-snippets.js';
import { MAX_MESSAGE_LENGTH } from '../domain/messages.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** pydantic `StringConstraints(min_length=1, max_length=limit, strip_whitespace=True)`: the stripped value or the error. */
function constrained(name: string, raw: string, limit: number): string | ZulipError {
  const value = raw.replace(/^\s+|\s+$/gu, '');
  if (value === '') return Errors.badRequest(`${name} cannot be blank`);
  if ([...value].length > limit) return Errors.badRequest(`${name} is too long (limit: ${limit} characters)`);
  return value;
}

/** `GET /saved_snippets` (Zulip's `get_saved_snippets`). */
export const getSavedSnippets = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {},
  handler: ({ realm, user }) => ({ saved_snippets: savedSnippetsWire(realm.state, user.id) }),
});

/** `POST /saved_snippets` (Zulip's `create_saved_snippet`). */
export const createSavedSnippet = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { title: P.string(), content: P.string() },
  handler: async ({ realm, user, params }) => {
    if (params.title === undefined) return Errors.missingArgument('title');
    const title = constrained('title', params.title, MAX_SNIPPET_TITLE_LENGTH);
    if (typeof title !== 'string') return title;
    if (params.content === undefined) return Errors.missingArgument('content');
    const content = constrained('content', params.content, MAX_MESSAGE_LENGTH);
    if (typeof content !== 'string') return content;
    return runCommand(realm, { type: 'create_saved_snippet', actorId: user.id, title, content }, (r) => r);
  },
});

/** `PATCH /saved_snippets/{saved_snippet_id}` (Zulip's `edit_saved_snippet`). */
export const editSavedSnippet = defineEndpoint({
  auth: 'user',
  pathParams: { saved_snippet_id: 'int' },
  dialect: 'typed',
  params: { title: P.string(), content: P.string() },
  handler: async ({ realm, user, params, path }) => {
    const title = params.title === undefined ? undefined : constrained('title', params.title, MAX_SNIPPET_TITLE_LENGTH);
    if (title !== undefined && typeof title !== 'string') return title;
    const content = params.content === undefined ? undefined : constrained('content', params.content, MAX_MESSAGE_LENGTH);
    if (content !== undefined && typeof content !== 'string') return content;
    if (title === undefined && content === undefined) return {};
    return runCommand(realm, {
      type: 'edit_saved_snippet',
      actorId: user.id,
      id: path.saved_snippet_id,
      ...(title !== undefined && { title }),
      ...(content !== undefined && { content }),
    });
  },
});

/** `DELETE /saved_snippets/{saved_snippet_id}` (Zulip's `delete_saved_snippet`). */
export const deleteSavedSnippet = defineEndpoint({
  auth: 'user',
  pathParams: { saved_snippet_id: 'int' },
  dialect: 'typed',
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'delete_saved_snippet', actorId: user.id, id: path.saved_snippet_id }),
});
