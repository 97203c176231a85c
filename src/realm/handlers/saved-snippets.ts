/**
 * Saved snippets (https://zulip.com/api/create-saved-snippet,
 * https://zulip.com/api/edit-saved-snippet, https://zulip.com/api/delete-saved-snippet; Zulip's
 * `zerver/views/saved_snippets.py`, `zerver/actions/saved_snippets.py`). The endpoint has already
 * stripped and length-checked `title` and `content`. Each user acts on their own snippets only:
 * another user's id, like an unknown one, is "Saved snippet does not exist." (HTTP 404).
 *
 * Events, to the owner only: `{type: "saved_snippets", op: "add" | "update", saved_snippet}`,
 * `{…, op: "remove", saved_snippet_id}`.
 */
import { ok, fail, Errors } from '../../errors.js';
import { findSavedSnippet, nextSavedSnippetId, savedSnippetWire, type SavedSnippet, type SavedSnippetEdited } from '../../domain/saved-snippets.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import type { Handler } from '../decision.js';

/** `POST /saved_snippets`. */
export interface CreateSavedSnippet {
  type: 'create_saved_snippet';
  actorId: number;
  title: string;
  content: string;
}

/** `PATCH /saved_snippets/{id}`: at least one of `title` / `content` (the endpoint answers an empty edit itself). */
export interface EditSavedSnippet {
  type: 'edit_saved_snippet';
  actorId: number;
  id: number;
  title?: string;
  content?: string;
}

/** `DELETE /saved_snippets/{id}`. */
export interface DeleteSavedSnippet {
  type: 'delete_saved_snippet';
  actorId: number;
  id: number;
}

export type SavedSnippetCommand = CreateSavedSnippet | EditSavedSnippet | DeleteSavedSnippet;

/** Replies of the saved-snippet commands (merged into `CommandReplies`). */
export interface SavedSnippetReplies {
  create_saved_snippet: { saved_snippet_id: number };
  edit_saved_snippet: Record<string, never>;
  delete_saved_snippet: Record<string, never>;
}

export const createSavedSnippet: Handler<CreateSavedSnippet, { saved_snippet_id: number }> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const snippet: SavedSnippet = { id: nextSavedSnippetId(state), title: cmd.title, content: cmd.content, dateCreated: Math.floor(ctx.now()) };
  const payload: EventPayloadOf<'saved_snippets'> = { type: 'saved_snippets', op: 'add', saved_snippet: savedSnippetWire(snippet) };
  return ok({
    records: [{ type: 'saved_snippet_created', v: 1, userId: actor.id, snippet }],
    events: [{ userIds: [actor.id], payload }],
    reply: { saved_snippet_id: snippet.id },
  });
};

export const editSavedSnippet: Handler<EditSavedSnippet, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const snippet = findSavedSnippet(state, actor.id, cmd.id);
  if (snippet === undefined) return fail(Errors.savedSnippetDoesNotExist());
  const record: SavedSnippetEdited = { type: 'saved_snippet_edited', v: 1, userId: actor.id, id: snippet.id };
  if (cmd.title !== undefined) record.title = cmd.title;
  if (cmd.content !== undefined) record.content = cmd.content;
  const edited = { ...snippet, ...(cmd.title !== undefined && { title: cmd.title }), ...(cmd.content !== undefined && { content: cmd.content }) };
  const payload: EventPayloadOf<'saved_snippets'> = { type: 'saved_snippets', op: 'update', saved_snippet: savedSnippetWire(edited) };
  return ok({ records: [record], events: [{ userIds: [actor.id], payload }], reply: {} });
};

export const deleteSavedSnippet: Handler<DeleteSavedSnippet, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  if (findSavedSnippet(state, actor.id, cmd.id) === undefined) return fail(Errors.savedSnippetDoesNotExist());
  const payload: EventPayloadOf<'saved_snippets'> = { type: 'saved_snippets', op: 'remove', saved_snippet_id: cmd.id };
  return ok({
    records: [{ type: 'saved_snippet_deleted', v: 1, userId: actor.id, id: cmd.id }],
    events: [{ userIds: [actor.id], payload }],
    reply: {},
  });
};
