/**
 * Navigation views (https://zulip.com/api/add-navigation-view; Zulip FL 390,
 * `zerver/models/navigation_views.py`,
 * `zerver/lib/navigation_views.py`): per user, an ordered list of views shown in the web app's
 * left sidebar (`is_pinned`) or its "More views" menu. A view is identified by its URL
 * `fragment`; built-in views (`BUILT_IN_VIEW_FRAGMENTS`) have no name, custom ones have one.
 *
 * State shape: `RealmState.navigationViews` = user id → that user's views in creation order
 * (Zulip lists them in primary-key order); a user without views has no entry. The field is
 * optional (states built by hand and snapshots written before navigation views lack it: none).
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/**
 * Zulip's `BUILT_IN_VIEW_FRAGMENTS` (zerver/views/navigation_views.py, newest stored version:
 * inbox, recent conversations, combined feed, drafts, reactions, mentions, starred, scheduled
 * messages, reminders). Its feature-level history only ever adds entries; parley takes the newest
 * list, since clients at our feature level know all of them.
 */
export const BUILT_IN_VIEW_FRAGMENTS: ReadonlySet<string> = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'scheduled',
  'reminders',
]);

/** One user's navigation view. */
export interface NavigationView {
  /** Whitespace-stripped, non-blank; unique per user. */
  fragment: string;
  isPinned: boolean;
  /** null for built-in views; custom views' names are unique per user. */
  name: string | null;
}

/** A user added a navigation view (`POST /navigation_views`). */
export interface NavigationViewAdded {
  type: 'navigation_view_added';
  v: 1;
  userId: number;
  fragment: string;
  isPinned: boolean;
  name: string | null;
}

/** A user changed a navigation view (`PATCH /navigation_views/{fragment}`): only the keys present changed. */
export interface NavigationViewUpdated {
  type: 'navigation_view_updated';
  v: 1;
  userId: number;
  fragment: string;
  isPinned?: boolean;
  name?: string;
}

/** A user removed a navigation view (`DELETE /navigation_views/{fragment}`). */
export interface NavigationViewRemoved {
  type: 'navigation_view_removed';
  v: 1;
  userId: number;
  fragment: string;
}

export type NavigationViewRecord = NavigationViewAdded | NavigationViewUpdated | NavigationViewRemoved;

/** A user's views in order (a shared empty list when none: do not mutate). */
export function navigationViewsOf(state: RealmState, userId: number): readonly NavigationView[] {
  return state.navigationViews?.get(userId) ?? [];
}

/** A user's view with this fragment, or undefined. */
export function findNavigationView(state: RealmState, userId: number, fragment: string): NavigationView | undefined {
  return navigationViewsOf(state, userId).find((v) => v.fragment === fragment);
}

/** `evolve` of the navigation view records. */
export function evolveNavigationViews(state: RealmState, r: NavigationViewRecord): void {
  const all = (state.navigationViews ??= new Map<number, NavigationView[]>());
  const views = all.get(r.userId) ?? [];
  switch (r.type) {
    case 'navigation_view_added':
      views.push({ fragment: r.fragment, isPinned: r.isPinned, name: r.name });
      all.set(r.userId, views);
      return;
    case 'navigation_view_updated': {
      const view = views.find((v) => v.fragment === r.fragment);
      if (view === undefined) return;
      if (r.isPinned !== undefined) view.isPinned = r.isPinned;
      if (r.name !== undefined) view.name = r.name;
      return;
    }
    case 'navigation_view_removed': {
      const rest = views.filter((v) => v.fragment !== r.fragment);
      if (rest.length === 0) all.delete(r.userId);
      else all.set(r.userId, rest);
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** Wire form of one view (Zulip's `NavigationViewDict`). */
export function navigationViewWire(v: NavigationView): { fragment: string; is_pinned: boolean; name: string | null } {
  return { fragment: v.fragment, is_pinned: v.isPinned, name: v.name };
}

/** `GET /navigation_views` and `/register` `navigation_views`: the user's views in order. */
export function navigationViewsWire(state: RealmState, userId: number): Array<ReturnType<typeof navigationViewWire>> {
  return navigationViewsOf(state, userId).map(navigationViewWire);
}

/** Snapshot form (see realm-snapshot.ts; absent in snapshots written before navigation views: none). */
export type NavigationViewsCore = Array<[userId: number, views: NavigationView[]]>;

export function navigationViewsToCore(state: RealmState): NavigationViewsCore {
  return [...(state.navigationViews ?? [])];
}

/** Restores `state.navigationViews` (`undefined` = an older snapshot: no views). */
export function navigationViewsFromCore(state: RealmState, core: NavigationViewsCore | undefined): void {
  const all = new Map<number, NavigationView[]>();
  for (const [userId, views] of core ?? []) all.set(userId, views.map((v) => ({ ...v })));
  state.navigationViews = all;
}
