/**
 * Navigation view endpoints (https://zulip.com/api/get-navigation-views; Zulip FL 390,
 * `zerver/views/navigation_views.py`), Zulip's typed-endpoint dialect, every user acting on their
 * own views only:
 * - `GET /navigation_views` → `{navigation_views: [{fragment, is_pinned, name}, ...]}` in creation order;
 * - `POST /navigation_views`: `fragment` (required), `is_pinned` (JSON bool, required), `name`
 *   (optional; required for custom views, forbidden for built-in ones);
 * - `PATCH /navigation_views/{fragment}`: `is_pinned`, `name` (both optional);
 * - `DELETE /navigation_views/{fragment}`.
 *
 * As pydantic's `StringConstraints(strip_whitespace=True, min_length=1)`, `fragment` and `name` are
 * stripped (Python `str.strip()`), and a blank one is "<name> cannot be blank" (Zulip's
 * `check_string` after strip). Parameters are checked in Zulip's declaration order (fragment,
 * is_pinned, name), which is why `is_pinned` is declared optional and its absence reported here.
 *
 * Path fragments: `{fragment:path}` is, as Zulip's `<path:fragment>` route, the rest of the path:
 * a fragment containing `/` (custom views such as `narrow/is/alerted`) may be sent raw, as Zulip's
 * API examples do (`PATCH /navigation_views/narrow/is/alerted`), or percent-encoded
 * (`narrow%2Fis%2Falerted`, as `encodeURIComponent` does).
 *
 * The rules and the other error strings are in `realm/handlers/navigation-views.ts`.
 */
import { Errors } from '../errors.js';
import { navigationViewsWire } from '../domain/navigation-views.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Python `str.strip()` (Unicode whitespace). */
const strip = (s: string) => s.replace(/^\s+|\s+$/gu, '');

/** pydantic's blank-string error in the typed dialect (no final period). */
const blank = (name: string) => Errors.badRequest(`${name} cannot be blank`);


/** `GET /navigation_views` (Zulip's zerver/views/navigation_views.py `get_navigation_views`). */
export const getNavigationViews = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: {},
  handler: ({ realm, user }) => ({ navigation_views: navigationViewsWire(realm.state, user.id) }),
});

/** `POST /navigation_views` (Zulip's zerver/views/navigation_views.py `add_navigation_view`). */
export const addNavigationView = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { fragment: P.string(), is_pinned: P.bool(), name: P.string() },
  handler: async ({ realm, user, params }) => {
    if (params.fragment === undefined) return Errors.missingArgument('fragment');
    const fragment = strip(params.fragment);
    if (fragment === '') return blank('fragment');
    if (params.is_pinned === undefined) return Errors.missingArgument('is_pinned');
    const name = params.name === undefined ? undefined : strip(params.name);
    if (name === '') return blank('name');
    return runCommand(realm, {
      type: 'add_navigation_view',
      actorId: user.id,
      fragment,
      isPinned: params.is_pinned,
      ...(name !== undefined && { name }),
    });
  },
});

/**
 * `PATCH /navigation_views/{fragment:path}` (Zulip's zerver/views/navigation_views.py
 * `update_navigation_view`).
 */
export const editNavigationView = defineEndpoint({
  auth: 'user',
  pathParams: { fragment: 'path' },
  dialect: 'typed',
  params: { is_pinned: P.bool(), name: P.string() },
  handler: async ({ realm, user, params, path }) => {
    const fragment = strip(path.fragment);
    if (fragment === '') return blank('fragment');
    const name = params.name === undefined ? undefined : strip(params.name);
    if (name === '') return blank('name');
    return runCommand(realm, {
      type: 'update_navigation_view',
      actorId: user.id,
      fragment,
      ...(params.is_pinned !== undefined && { isPinned: params.is_pinned }),
      ...(name !== undefined && { name }),
    });
  },
});

/**
 * `DELETE /navigation_views/{fragment:path}` (Zulip's zerver/views/navigation_views.py
 * `remove_navigation_view`).
 */
export const removeNavigationView = defineEndpoint({
  auth: 'user',
  pathParams: { fragment: 'path' },
  dialect: 'typed',
  params: {},
  handler: async ({ realm, user, path }) => {
    const fragment = strip(path.fragment);
    if (fragment === '') return blank('fragment');
    return runCommand(realm, { type: 'remove_navigation_view', actorId: user.id, fragment });
  },
});
