/**
 * Linkifier handlers (https://zulip.com/api/get-linkifiers; Zulip's `do_add_linkifier`,
 * `do_update_linkifier`,
 * `do_remove_linkifier`, `check_reorder_linkifiers`). Administrators only. Every change writes one
 * `linkifiers_changed` record with the whole list and sends
 * `{type: "realm_linkifiers", realm_linkifiers: [...]}` to all active users of the realm.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { linkifiersOf, validateLinkifier, type Linkifier, type LinkifiersChanged } from '../../domain/linkifiers.js';
import { requireRealmAdmin } from '../../domain/access.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Decision, Handler } from '../decision.js';

/** `POST /realm/filters`: append a linkifier. Reply `{id}`. */
export interface AddLinkifier {
  type: 'add_linkifier';
  actorId: number;
  pattern: string;
  urlTemplate: string;
}

/** `PATCH /realm/filters/{filter_id}`: replace pattern and URL template, keeping the position. */
export interface UpdateLinkifier {
  type: 'update_linkifier';
  actorId: number;
  id: number;
  pattern: string;
  urlTemplate: string;
}

/** `DELETE /realm/filters/{filter_id}`. */
export interface RemoveLinkifier {
  type: 'remove_linkifier';
  actorId: number;
  id: number;
}

/** `PATCH /realm/linkifiers`: `orderedIds` must enumerate every linkifier exactly once. */
export interface ReorderLinkifiers {
  type: 'reorder_linkifiers';
  actorId: number;
  orderedIds: number[];
}

export type LinkifierCommand = AddLinkifier | UpdateLinkifier | RemoveLinkifier | ReorderLinkifiers;

/** The acting administrator, or Zulip's `require_realm_admin` error. */
const admin = (state: RealmState, actorId: number): Result<User> => requireRealmAdmin(state.users.get(actorId));

/** The record and the event for the new list. */
function change<R>(state: RealmState, items: Linkifier[], nextId: number, reply: R): Result<Decision<R>> {
  const record: LinkifiersChanged = { type: 'linkifiers_changed', v: 1, linkifiers: items, nextId };
  const userIds = [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
  const event: RealmEvent = {
    userIds,
    payload: {
      type: 'realm_linkifiers',
      realm_linkifiers: items.map((l) => ({ pattern: l.pattern, url_template: l.urlTemplate, id: l.id })),
    },
  };
  return ok({ records: [record], events: [event], reply });
}

const notFound = () => Errors.badRequest('Linkifier not found.');

export const addLinkifier: Handler<AddLinkifier, { id: number }> = (state, cmd) => {
  const actor = admin(state, cmd.actorId);
  if (!actor.ok) return actor;
  const invalid = validateLinkifier(state, cmd.pattern, cmd.urlTemplate);
  if (invalid) return fail(invalid);
  const current = linkifiersOf(state);
  const id = current.nextId;
  const items = [...current.items, { id, pattern: cmd.pattern, urlTemplate: cmd.urlTemplate }];
  return change(state, items, id + 1, { id });
};

export const updateLinkifier: Handler<UpdateLinkifier, Record<string, never>> = (state, cmd) => {
  const actor = admin(state, cmd.actorId);
  if (!actor.ok) return actor;
  const current = linkifiersOf(state);
  if (!current.items.some((l) => l.id === cmd.id)) return fail(notFound());
  const invalid = validateLinkifier(state, cmd.pattern, cmd.urlTemplate, cmd.id);
  if (invalid) return fail(invalid);
  const items = current.items.map((l) => (l.id === cmd.id ? { id: l.id, pattern: cmd.pattern, urlTemplate: cmd.urlTemplate } : l));
  return change(state, items, current.nextId, {});
};

export const removeLinkifier: Handler<RemoveLinkifier, Record<string, never>> = (state, cmd) => {
  const actor = admin(state, cmd.actorId);
  if (!actor.ok) return actor;
  const current = linkifiersOf(state);
  if (!current.items.some((l) => l.id === cmd.id)) return fail(notFound());
  return change(state, current.items.filter((l) => l.id !== cmd.id), current.nextId, {});
};

export const reorderLinkifiers: Handler<ReorderLinkifiers, Record<string, never>> = (state, cmd) => {
  const actor = admin(state, cmd.actorId);
  if (!actor.ok) return actor;
  const current = linkifiersOf(state);
  const ids = new Set(cmd.orderedIds);
  if (ids.size !== cmd.orderedIds.length) return fail(Errors.badRequest('The ordered list must not contain duplicated linkifiers'));
  const existing = new Set(current.items.map((l) => l.id));
  if (ids.size !== existing.size || [...ids].some((id) => !existing.has(id))) {
    return fail(Errors.badRequest('The ordered list must enumerate all existing linkifiers exactly once'));
  }
  // Zulip: an empty realm with [] succeeds without an event.
  if (current.items.length === 0) return ok({ records: [], events: [], reply: {} });
  const byId = new Map(current.items.map((l) => [l.id, l]));
  return change(state, cmd.orderedIds.map((id) => byId.get(id)!), current.nextId, {});
};
