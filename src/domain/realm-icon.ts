/**
 * The organization icon (https://zulip.com/api/register-queue `realm_icon_url`,
 * `realm_icon_source`; Zulip's zerver/views/realm_icon.py, zerver/actions/realm_icon.py
 * `do_change_icon_source`, zerver/lib/realm_icon.py `realm_icon_url`).
 *
 * Source "G" (the default; Zulip shows a gravatar identicon, parley its own default icon, since
 * the server reaches no outside network) or "U" (uploaded: a 100×100 PNG in the file store,
 * served at `/user_avatars/{realm_id}/realm/icon.png`, as Zulip's local upload backend). Every
 * change bumps `icon_version`, carried in the URL as `?version=N` so caches never show an old
 * icon. State: `RealmState.realmIcon` (absent = the default at version 1, Zulip's initial
 * `icon_version`). Record: `realm_icon_changed` v1.
 */
import type { RealmState } from './realm-state.js';

/** Zulip's `MAX_ICON_FILE_SIZE_MIB` default. */
export const MAX_ICON_FILE_SIZE_MIB = 5;
/** Zulip's `DEFAULT_AVATAR_SIZE`: uploaded icons are resized to a square of this side, pixels. */
export const ICON_SIZE_PX = 100;
/** Where parley serves its default icon (a PNG rendered once by `api/realm-icon.ts`). */
export const DEFAULT_ICON_PATH = '/static/images/logo/zulip-icon-128x128.png';

/** The realm's icon: an uploaded PNG's digest (null = the default) and its version. */
export interface RealmIcon {
  sha256: string | null;
  version: number;
}

/** `realm_icon_changed` v1: the icon became `sha256` (null = back to the default) at `version`. */
export interface RealmIconChanged {
  type: 'realm_icon_changed';
  v: 1;
  sha256: string | null;
  version: number;
}

/** The realm's icon state (the default at version 1 when never changed). */
export function realmIcon(state: RealmState): RealmIcon {
  return state.realmIcon ?? { sha256: null, version: 1 };
}

/** `realm_icon_source`: "U" uploaded, "G" the default. */
export function realmIconSource(icon: RealmIcon): 'U' | 'G' {
  return icon.sha256 === null ? 'G' : 'U';
}

/**
 * `realm_icon_url`: uploaded → relative `/user_avatars/{realm_id}/realm/icon.png?version=N` (as
 * Zulip's local backend); default → parley's default icon under the realm's URL.
 */
export function realmIconUrl(state: RealmState, icon: RealmIcon = realmIcon(state)): string {
  return icon.sha256 === null ? `${state.url}${DEFAULT_ICON_PATH}?version=${icon.version}` : `/user_avatars/${state.id}/realm/icon.png?version=${icon.version}`;
}

/** The stored digest for `/user_avatars/{realm_id}/realm/icon.png` (`rest` = the part after the id), or undefined. */
export function realmIconDigestForPath(state: RealmState, rest: string): string | undefined {
  return rest === 'realm/icon.png' ? (state.realmIcon?.sha256 ?? undefined) : undefined;
}

/** The uploaded icon's digest, for the file store's sweep. */
export function realmIconDigests(state: RealmState): string[] {
  const sha = state.realmIcon?.sha256;
  return sha === null || sha === undefined ? [] : [sha];
}

/** `evolve` for `realm_icon_changed`. */
export function realmIconChanged(state: RealmState, r: RealmIconChanged): void {
  state.realmIcon = { sha256: r.sha256, version: r.version };
}
