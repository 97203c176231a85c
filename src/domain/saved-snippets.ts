/**
 * Saved snippets (https://zulip.com/api/get-saved-snippets, Zulip FL 297;
 * `zerver/models/saved_snippets.py`, `zerver/actions/saved_snippets.py`): per user, reusable
 * message texts with a title.
 *
 * State shape: `RealmState.savedSnippets` = `{byUser: user id → (snippet id → snippet, in id
 * order), nextId}`. Ids are realm-wide (Zulip's are server-wide); the owner is part of every
 * lookup, so another user's id is "Saved snippet does not exist.". Optional: states built by hand
 * and snapshots written before saved snippets lack it.
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** Zulip's `SavedSnippet.MAX_TITLE_LENGTH` (characters). */
export const MAX_SNIPPET_TITLE_LENGTH = 60;

/** One stored snippet. */
export interface SavedSnippet {
  id: number;
  title: string;
  content: string;
  /** UNIX seconds, integer. */
  dateCreated: number;
}

/** Every user's snippets and the next snippet id. */
export interface SavedSnippetState {
  byUser: Map<number, Map<number, SavedSnippet>>;
  nextId: number;
}

/** A user created a snippet (`POST /saved_snippets`). */
export interface SavedSnippetCreated {
  type: 'saved_snippet_created';
  v: 1;
  userId: number;
  snippet: SavedSnippet;
}

/** A user edited a snippet (`PATCH /saved_snippets/{id}`): only the keys present changed. */
export interface SavedSnippetEdited {
  type: 'saved_snippet_edited';
  v: 1;
  userId: number;
  id: number;
  title?: string;
  content?: string;
}

/** A user deleted a snippet (`DELETE /saved_snippets/{id}`). */
export interface SavedSnippetDeleted {
  type: 'saved_snippet_deleted';
  v: 1;
  userId: number;
  id: number;
}

export type SavedSnippetRecord = SavedSnippetCreated | SavedSnippetEdited | SavedSnippetDeleted;

/** Zulip's `SavedSnippet.to_api_dict()`. */
export interface SavedSnippetWire {
  id: number;
  title: string;
  content: string;
  date_created: number;
}

export function savedSnippetWire(s: SavedSnippet): SavedSnippetWire {
  return { id: s.id, title: s.title, content: s.content, date_created: s.dateCreated };
}

/** The user's snippet with this id, or undefined (another user's too). */
export function findSavedSnippet(state: RealmState, userId: number, id: number): SavedSnippet | undefined {
  return state.savedSnippets?.byUser.get(userId)?.get(id);
}

/** `GET /saved_snippets` and register `saved_snippets`: the user's snippets in id order. */
export function savedSnippetsWire(state: RealmState, userId: number): SavedSnippetWire[] {
  return [...(state.savedSnippets?.byUser.get(userId)?.values() ?? [])].map(savedSnippetWire);
}

/** The id the next snippet gets. */
export function nextSavedSnippetId(state: RealmState): number {
  return state.savedSnippets?.nextId ?? 1;
}

/** `evolve` of the saved-snippet records. */
export function evolveSavedSnippets(state: RealmState, r: SavedSnippetRecord): void {
  const all = (state.savedSnippets ??= { byUser: new Map(), nextId: 1 });
  switch (r.type) {
    case 'saved_snippet_created': {
      const mine = all.byUser.get(r.userId) ?? new Map<number, SavedSnippet>();
      mine.set(r.snippet.id, { ...r.snippet });
      all.byUser.set(r.userId, mine);
      if (r.snippet.id >= all.nextId) all.nextId = r.snippet.id + 1;
      return;
    }
    case 'saved_snippet_edited': {
      const snippet = all.byUser.get(r.userId)?.get(r.id);
      if (snippet === undefined) return;
      if (r.title !== undefined) snippet.title = r.title;
      if (r.content !== undefined) snippet.content = r.content;
      return;
    }
    case 'saved_snippet_deleted': {
      const mine = all.byUser.get(r.userId);
      mine?.delete(r.id);
      if (mine?.size === 0) all.byUser.delete(r.userId);
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** Snapshot form. */
export interface SavedSnippetsCore {
  byUser: Array<[userId: number, snippets: SavedSnippet[]]>;
  nextId: number;
}

export function savedSnippetsToCore(state: RealmState): SavedSnippetsCore | undefined {
  const all = state.savedSnippets;
  if (all === undefined) return undefined;
  return { byUser: [...all.byUser].map(([userId, m]) => [userId, [...m.values()]]), nextId: all.nextId };
}

/** Restores `state.savedSnippets` (`undefined` = none yet). */
export function savedSnippetsFromCore(state: RealmState, core: SavedSnippetsCore | undefined): void {
  if (core === undefined) return;
  state.savedSnippets = {
    byUser: new Map(core.byUser.map(([userId, list]) => [userId, new Map(list.map((s) => [s.id, { ...s }]))])),
    nextId: core.nextId,
  };
}
