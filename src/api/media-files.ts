/**
 * `GET /user_avatars/...`: uploaded avatars and custom emoji images, public as in Zulip (whose
 * nginx serves its `LOCAL_UPLOADS_DIR/avatars` without authentication):
 * - `/user_avatars/{realm_id}/{key}.png` and `…/{key}-medium.png` (avatars, `domain/avatars.ts`);
 * - `/user_avatars/{realm_id}/emoji/images/{file_name}` and
 *   `…/emoji/images/still/{name}.png` (custom emoji, `domain/realm-emoji.ts`);
 * - `/user_avatars/{realm_id}/realm/icon.png` (the uploaded organization icon, `domain/realm-icon.ts`).
 *
 * The realm is the one the Host names, and `{realm_id}` must be its id. The path is only ever
 * compared with names the realm's state holds; the bytes are read by digest from the file store,
 * so no path reaches the filesystem. Unknown → Zulip's JSON 404. Images are served with their
 * type, `nosniff`, and a long cache lifetime (every URL changes when its content does).
 */
import { Errors } from '../errors.js';
import { avatarDigestForPath } from '../domain/avatars.js';
import { realmIconDigestForPath } from '../domain/realm-icon.js';
import { realmEmojiByFileName } from '../domain/realm-emoji.js';
import type { RealmState } from '../domain/realm-state.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import { errorResponse, type ApiRequest, type ApiResponse } from './registry.js';
import type { RawAnswer, RawRoute } from './raw-route.js';

const PREFIX = '/user_avatars/';

/** The stored digest and type of a `/user_avatars/` path (after the prefix), or undefined. */
export function mediaFileFor(state: RealmState, path: string): { sha256: string; contentType: string } | undefined {
  const slash = path.indexOf('/');
  if (slash < 0 || path.slice(0, slash) !== String(state.id)) return undefined;
  const rest = path.slice(slash + 1);
  const still = /^emoji\/images\/still\/([0-9a-f]{8})\.png$/.exec(rest);
  if (still !== null) {
    for (const e of state.realmEmoji?.items.values() ?? []) {
      if (e.stillSha256 !== null && e.fileName.startsWith(`${still[1]}.`)) return { sha256: e.stillSha256, contentType: 'image/png' };
    }
    return undefined;
  }
  const image = /^emoji\/images\/([0-9a-f]{8}\.[a-z]+)$/.exec(rest);
  if (image !== null) {
    const emoji = realmEmojiByFileName(state, image[1]!);
    return emoji === undefined ? undefined : { sha256: emoji.sha256, contentType: emoji.contentType };
  }
  const icon = realmIconDigestForPath(state, rest);
  if (icon !== undefined) return { sha256: icon, contentType: 'image/png' };
  const avatar = avatarDigestForPath(state, path);
  return avatar === undefined ? undefined : { sha256: avatar, contentType: 'image/png' };
}

/** The `/user_avatars/` route, resolving realms by Host. */
export function userAvatarsRoute(realmForHost: (host: string) => RealmHandle | null): RawRoute {
  return {
    name: '/user_avatars/{path}',
    matches: (path) => path.startsWith(PREFIX),
    async handle(req: ApiRequest): Promise<RawAnswer | ApiResponse> {
      const notFound = errorResponse(Errors.notFound());
      const realm = realmForHost(req.headers.host ?? '');
      if (realm === null) return notFound;
      const file = mediaFileFor(realm.state, req.path.slice(PREFIX.length));
      if (file === undefined) return notFound;
      const body = await realm.files.readAll(file.sha256);
      if (body === undefined) return notFound;
      return {
        status: 200,
        headers: { 'Content-Type': file.contentType, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
        body,
      };
    },
  };
}
