/**
 * Navigation view endpoints (https://zulip.com/api/add-navigation-view; Zulip FL 390,
 * `zerver/views/navigation_views.py`),
 * Zulip's typed-endpoint dialect, every user acting on their own views only:
 * - `GET /navigation_views` → `{navigation_views: [{fragment, is_pinned, name}, ...]}` in creation order;
 * - `POST /navigation_views`: `fragment` (required), `is_pinned` (JSON bool, required), `name`
 *   (optional; required for custom views, forbidden for built-in ones);
 * - `PATCH /navigation_views/{fragment}`: `is_pinned`, `name` (both optional);
 * - `DELETE /navigation_views/{fragment}`.
 *
 * As pydantic's `StringConstraints(strip_whitespace=True, min_length=1)`, `fragment` and `name` are
 * stripped (Python `str.strip()`), and a blank one is "<name> cannot be blank"
 * (https://zulip.com/api/rest-error-handling). Parameters
 * are checked in Zulip's declaration order (fragment, is_pinned, name), which is why `is_pinned` is
 * declared optional and its absence reported here.
 *
 * Path fragments: `{fragment:string}` is one URL-decoded path segment, so a fragment containing
 * `/` (custom views such as `narrow/is/alerted`) must be sent percent-encoded (`narrow%2Fis%2Falerted`,
 * as `encodeURIComponent` does); Zulip's `<path:fragment>` route also takes raw slashes, parley's
 * router does not yet.
 *
 * The rules and the other error strings are in `realm/handlers/navigation-views.ts`.
 */
import { Errors } from '../errors.js';
import { navigationViewsWire } from '../domain/navigation-views.js';
import type { NavigationViewCommand } from '../realm/handlers/navigation-views.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Python `str.strip()` (Unicode whitespace). */
const strip = (s: string) => s.replace(/^\s+|\s+$/gu, '');

/** pydantic's blank-string error in the typed dialect (no final period). */
const blank = (name: string) => Errors.badRequest(`${name} cannot be blank`);


export const navigationViewEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/navigation_views',
    auth: 'user',
    dialect: 'typed',
    params: {},
    handler: ({ realm, user }) => ({ navigation_views: navigationViewsWire(realm!.state, user!.id) }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/navigation_views',
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
      return runCommand(realm!, {
        type: 'add_navigation_view',
        actorId: user!.id,
        fragment,
        isPinned: params.is_pinned,
        ...(name !== undefined && { name }),
      });
    },
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/navigation_views/{fragment:string}',
    auth: 'user',
    dialect: 'typed',
    params: { is_pinned: P.bool(), name: P.string() },
    handler: async ({ realm, user, params, stringPath }) => {
      const fragment = strip(stringPath.fragment!);
      if (fragment === '') return blank('fragment');
      const name = params.name === undefined ? undefined : strip(params.name);
      if (name === '') return blank('name');
      return runCommand(realm!, {
        type: 'update_navigation_view',
        actorId: user!.id,
        fragment,
        ...(params.is_pinned !== undefined && { isPinned: params.is_pinned }),
        ...(name !== undefined && { name }),
      });
    },
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/navigation_views/{fragment:string}',
    auth: 'user',
    dialect: 'typed',
    params: {},
    handler: async ({ realm, user, stringPath }) => {
      const fragment = strip(stringPath.fragment!);
      if (fragment === '') return blank('fragment');
      return runCommand(realm!, { type: 'remove_navigation_view', actorId: user!.id, fragment });
    },
  }),
];
