/**
 * The organization icon (Zulip's zerver/views/realm_icon.py; https://zulip.com/api/register-queue
 * `realm_icon_url`, `realm_icon_source`):
 * - `POST /realm/icon` (administrators, multipart, exactly one image) → `{icon_url}` (rules and
 *   storage in `realm/media.ts uploadRealmIcon`, the event in `realm/handlers/realm-icon.ts`);
 * - `DELETE /realm/icon`: back to the default icon → `{icon_url}`;
 * - `GET /static/images/logo/zulip-icon-128x128.png`: parley's default icon (a raw route, public
 *   as Zulip's static files), rendered once; uploaded icons are served under `/user_avatars/`.
 */
import { defaultRealmIcon, uploadRealmIcon } from '../realm/media.js';
import { DEFAULT_ICON_PATH } from '../domain/realm-icon.js';
import { defineEndpoint } from './define-endpoint.js';
import { runCommand } from './run-command.js';
import type { RawAnswer, RawRoute } from './raw-route.js';

/** `POST /realm/icon` (Zulip's `upload_icon`). */
export const uploadIcon = defineEndpoint({
  auth: 'user',
  params: {},
  handler: async ({ realm, user, files }) => {
    const result = await uploadRealmIcon(realm, user.id, files);
    return result.ok ? { icon_url: result.value.icon_url } : result.error;
  },
});

/** `DELETE /realm/icon` (Zulip's `delete_icon_backend`). */
export const deleteIcon = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => runCommand(realm, { type: 'change_realm_icon', actorId: user.id, sha256: null }, (reply) => ({ icon_url: reply.icon_url })),
});

/** Side of the default icon, pixels (its URL says 128×128). */
const DEFAULT_ICON_SIZE_PX = 128;

/** The raw route serving the default icon (public; a day of caching, the URL carries `?version=`). */
export function defaultRealmIconRoute(): RawRoute {
  return {
    name: DEFAULT_ICON_PATH,
    matches: (path) => path === DEFAULT_ICON_PATH,
    async handle(): Promise<RawAnswer> {
      return {
        status: 200,
        headers: { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' },
        body: await defaultRealmIcon(DEFAULT_ICON_SIZE_PX),
      };
    },
  };
}
