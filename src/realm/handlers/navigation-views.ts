/**
 * Navigation view commands (https://zulip.com/api/add-navigation-view; Zulip FL 390,
 * `zerver/views/navigation_views.py` and
 * `zerver/actions/navigation_views.py`). Per user: every command acts on the actor's own views
 * only, and each success sends one `navigation_view` event to the actor alone.
 *
 * Checks, in Zulip's order (the endpoint has already stripped whitespace and rejected blank
 * `fragment` / `name` with "<name> cannot be blank"):
 * - add: a built-in fragment with a name → "Built-in views cannot have a custom name."; a custom
 *   fragment without a name → "Custom views must have a valid name."; the fragment, or the name,
 *   already used by one of the actor's views → "Navigation view already exists.";
 * - update: a built-in fragment with a name → the built-in error; a name already used by any of the
 *   actor's views (the view itself included, as in Zulip) → "Navigation view already exists.";
 *   then an unknown fragment → "Navigation view does not exist." (HTTP 404, code BAD_REQUEST:
 *   Zulip's `ResourceNotFoundError`);
 * - remove: an unknown fragment → the same 404.
 *
 * Events: `{type: "navigation_view", op: "add", navigation_view: {fragment, is_pinned, name}}`,
 * `{…, op: "update", fragment, data: {name?, is_pinned?}}` (only the supplied keys; like Zulip, an
 * update passing neither still succeeds and notifies, with `data: {}`),
 * `{…, op: "remove", fragment}`.
 */
import { ok, fail, Errors, ZulipError } from '../../errors.js';
import {
  BUILT_IN_VIEW_FRAGMENTS,
  findNavigationView,
  navigationViewsOf,
  navigationViewWire,
  type NavigationViewAdded,
  type NavigationViewUpdated,
} from '../../domain/navigation-views.js';
import type { RealmState } from '../../domain/realm-state.js';
import type { Handler } from '../decision.js';
import type { EventPayloadOf } from '../../events/schemas.js';

/** `POST /navigation_views`. `fragment` and `name` already stripped and non-blank. */
export interface AddNavigationView {
  type: 'add_navigation_view';
  actorId: number;
  fragment: string;
  isPinned: boolean;
  /** Undefined = not passed. */
  name?: string;
}

/** `PATCH /navigation_views/{fragment}`: keys left undefined were not passed. */
export interface UpdateNavigationView {
  type: 'update_navigation_view';
  actorId: number;
  fragment: string;
  isPinned?: boolean;
  name?: string;
}

/** `DELETE /navigation_views/{fragment}`. */
export interface RemoveNavigationView {
  type: 'remove_navigation_view';
  actorId: number;
  fragment: string;
}

export type NavigationViewCommand = AddNavigationView | UpdateNavigationView | RemoveNavigationView;

/** Replies of the navigation view commands (merged into `CommandReplies`). */
export interface NavigationViewReplies {
  add_navigation_view: Record<string, never>;
  update_navigation_view: Record<string, never>;
  remove_navigation_view: Record<string, never>;
}

/** Zulip's error strings, byte for byte. */
export const NavigationViewErrors = {
  builtInName: () => Errors.badRequest('Built-in views cannot have a custom name.'),
  customNeedsName: () => Errors.badRequest('Custom views must have a valid name.'),
  alreadyExists: () => Errors.badRequest('Navigation view already exists.'),
  /** `ResourceNotFoundError`: HTTP 404, code BAD_REQUEST. */
  doesNotExist: () => new ZulipError('BAD_REQUEST', 'Navigation view does not exist.', 404),
} as const;

const nameTaken = (state: RealmState, userId: number, name: string) =>
  navigationViewsOf(state, userId).some((v) => v.name === name);

const activeActor = (state: RealmState, actorId: number) => {
  const actor = state.users.get(actorId);
  return actor !== undefined && actor.isActive;
};

export const addNavigationView: Handler<AddNavigationView, Record<string, never>> = (state, cmd) => {
  if (!activeActor(state, cmd.actorId)) return fail(Errors.noSuchUser());
  if (BUILT_IN_VIEW_FRAGMENTS.has(cmd.fragment)) {
    if (cmd.name !== undefined) return fail(NavigationViewErrors.builtInName());
  } else if (cmd.name === undefined || cmd.name === '') {
    return fail(NavigationViewErrors.customNeedsName());
  }
  if (findNavigationView(state, cmd.actorId, cmd.fragment) !== undefined) return fail(NavigationViewErrors.alreadyExists());
  if (cmd.name !== undefined && nameTaken(state, cmd.actorId, cmd.name)) return fail(NavigationViewErrors.alreadyExists());

  const record: NavigationViewAdded = {
    type: 'navigation_view_added',
    v: 1,
    userId: cmd.actorId,
    fragment: cmd.fragment,
    isPinned: cmd.isPinned,
    name: cmd.name ?? null,
  };
  const view = navigationViewWire({ fragment: record.fragment, isPinned: record.isPinned, name: record.name });
  const payload: EventPayloadOf<'navigation_view'> = { type: 'navigation_view', op: 'add', navigation_view: view };
  return ok({ records: [record], events: [{ userIds: [cmd.actorId], payload }], reply: {} });
};

export const updateNavigationView: Handler<UpdateNavigationView, Record<string, never>> = (state, cmd) => {
  if (!activeActor(state, cmd.actorId)) return fail(Errors.noSuchUser());
  if (BUILT_IN_VIEW_FRAGMENTS.has(cmd.fragment) && cmd.name !== undefined) return fail(NavigationViewErrors.builtInName());
  if (cmd.name !== undefined && nameTaken(state, cmd.actorId, cmd.name)) return fail(NavigationViewErrors.alreadyExists());
  if (findNavigationView(state, cmd.actorId, cmd.fragment) === undefined) return fail(NavigationViewErrors.doesNotExist());

  const record: NavigationViewUpdated = { type: 'navigation_view_updated', v: 1, userId: cmd.actorId, fragment: cmd.fragment };
  const data: { name?: string; is_pinned?: boolean } = {};
  if (cmd.name !== undefined) data.name = record.name = cmd.name;
  if (cmd.isPinned !== undefined) data.is_pinned = record.isPinned = cmd.isPinned;
  const payload: EventPayloadOf<'navigation_view'> = { type: 'navigation_view', op: 'update', fragment: cmd.fragment, data };
  return ok({ records: [record], events: [{ userIds: [cmd.actorId], payload }], reply: {} });
};

export const removeNavigationView: Handler<RemoveNavigationView, Record<string, never>> = (state, cmd) => {
  if (!activeActor(state, cmd.actorId)) return fail(Errors.noSuchUser());
  if (findNavigationView(state, cmd.actorId, cmd.fragment) === undefined) return fail(NavigationViewErrors.doesNotExist());
  return ok({
    records: [{ type: 'navigation_view_removed', v: 1, userId: cmd.actorId, fragment: cmd.fragment }],
    events: [{ userIds: [cmd.actorId], payload: { type: 'navigation_view', op: 'remove', fragment: cmd.fragment } }],
    reply: {},
  });
};
