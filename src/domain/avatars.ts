/**
 * Avatars (https://zulip.com/api/set-avatar, https://zulip.com/api/delete-avatar; Zulip's
 * zerver/lib/avatar.py `get_avatar_field`, zerver/lib/upload/local.py `get_avatar_url`,
 * zerver/actions/user_settings.py `do_change_avatar_fields`).
 *
 * A user's `avatar_source` is "G" (gravatar, the default: `users.ts` `gravatarUrl`) or "U"
 * (uploaded: `User.avatar` set). Every change bumps `avatar_version`, which every avatar URL
 * carries as `?version=N` so caches never show an old picture.
 *
 * Uploaded avatars are stored twice in the file store, as Zulip does: 100×100 px
 * (`DEFAULT_AVATAR_SIZE`) and 500×500 px "medium" (`MEDIUM_AVATAR_SIZE`), both PNG, served at
 * `/user_avatars/{realm_id}/{key}.png` and `/user_avatars/{realm_id}/{key}-medium.png` (clients
 * such as zulip-mobile derive the medium URL by that `-medium` suffix). Record:
 * `avatar_changed` v1.
 */
import { createHash } from 'node:crypto';
import type { RealmState, User } from './realm-state.js';

/** Zulip's `DEFAULT_AVATAR_SIZE` and `MEDIUM_AVATAR_SIZE` (zerver/lib/thumbnail.py), pixels. */
export const AVATAR_SIZE_PX = 100;
export const MEDIUM_AVATAR_SIZE_PX = 500;
/** Zulip's `MAX_AVATAR_FILE_SIZE_MIB` default (register's `max_avatar_file_size_mib`). */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** An uploaded avatar: its public path and the digests of its two stored PNGs. */
export interface UploadedAvatar {
  /** `{realm_id}/{key}`: the URL path under `/user_avatars/` without `.png`. */
  readonly path: string;
  /** SHA-256 (hex) of the 100 px PNG. */
  readonly sha256: string;
  /** SHA-256 of the 500 px PNG. */
  readonly mediumSha256: string;
}

/** `avatar_changed` v1: the avatar became `avatar` (null = back to gravatar) at `version`. */
export interface AvatarChanged {
  type: 'avatar_changed';
  v: 1;
  userId: number;
  version: number;
  avatar: UploadedAvatar | null;
}

/** `evolve` for `avatar_changed`. */
export function avatarChanged(state: RealmState, r: AvatarChanged): void {
  const user = state.users.get(r.userId);
  if (user === undefined) return;
  user.avatarVersion = r.version;
  if (r.avatar === null) delete user.avatar;
  else user.avatar = { ...r.avatar };
}

/**
 * The public key of a new avatar: not enumerable (Zulip hashes the user id and version with a
 * server salt; here with the image's digest too) and deterministic, so replay is exact.
 */
export function avatarPath(realmId: number, userId: number, version: number, sha256: string): string {
  return `${realmId}/${createHash('sha256').update(`${userId}:${version}:${sha256}`).digest('hex').slice(0, 40)}`;
}

/** `avatar_source`: "U" for an uploaded avatar, "G" for gravatar. */
export function avatarSource(user: User): 'U' | 'G' {
  return user.avatar === undefined ? 'G' : 'U';
}

/** The uploaded avatar's URL (`medium`: the 500 px one), with `?version=`; relative, as Zulip's local backend. */
export function uploadedAvatarUrl(avatar: UploadedAvatar, avatarVersion: number, medium: boolean): string {
  return `/user_avatars/${avatar.path}${medium ? '-medium' : ''}.png?version=${avatarVersion}`;
}

/**
 * A path under `/user_avatars/` (`{realm_id}/{key}.png` or `{realm_id}/{key}-medium.png`) → the
 * stored digest to serve, or undefined when no user of this realm has that avatar now.
 */
export function avatarDigestForPath(state: RealmState, path: string): string | undefined {
  const m = /^(\d+\/[0-9a-f]{40})(-medium)?\.png$/.exec(path);
  if (m === null) return undefined;
  for (const user of state.users.values()) {
    if (user.avatar?.path === m[1]) return m[2] === undefined ? user.avatar.sha256 : user.avatar.mediumSha256;
  }
  return undefined;
}

/** Every file digest the realm's avatars name (for the file store's sweep). */
export function avatarDigests(state: RealmState): string[] {
  const out: string[] = [];
  for (const user of state.users.values()) if (user.avatar !== undefined) out.push(user.avatar.sha256, user.avatar.mediumSha256);
  return out;
}
