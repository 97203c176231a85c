/**
 * `GET /thumbnail?url=…&size=full|thumbnail`: where the inline image previews of rendered
 * messages point (the markup of Zulip's Markdown fixture; Zulip's former
 * zerver/views/thumbnail.py `backend_serve_thumbnail`). Authenticated users are redirected (302):
 * an external http(s) image to its signed camo URL (`/external_content/…`, served by
 * `http/external-content.ts`), an uploaded file (`/user_uploads/…`) to itself, where the upload
 * access rules apply. Signing only for authenticated users keeps the proxy from being an open one.
 * Errors are Zulip's JSON errors: not logged in 401, a bad `size` or `url` 400.
 */
import { Errors, ZulipError } from '../errors.js';
import { camoUrl, EXTERNAL_CONTENT_PREFIX } from '../domain/camo.js';
import { parseBasicAuth } from '../auth/basic-auth.js';
import { lastValue } from './params.js';
import { errorResponse, type ApiRequest, type ApiResponse, type ApiServices } from './registry.js';
import type { RawAnswer, RawRoute } from './raw-route.js';

const EMPTY = new Uint8Array(0);

/** The redirect target for `url`, or an error. */
export function thumbnailTarget(url: string, camoKey: string | undefined): string | ZulipError {
  if (url.startsWith('/user_uploads/')) return url;
  if (/^https?:\/\/[^/]/i.test(url) && camoKey !== undefined) return camoUrl(url, { uri: EXTERNAL_CONTENT_PREFIX, key: camoKey });
  return Errors.badValue('url', url);
}

/** The `/thumbnail` route (also reachable as `/api/v1/thumbnail`'s twin for API clients). */
export function thumbnailRoute(services: Pick<ApiServices, 'realmForHost' | 'authenticate'>): RawRoute {
  return {
    name: '/thumbnail',
    matches: (path) => path === '/thumbnail' || path === '/api/v1/thumbnail',
    async handle(req: ApiRequest): Promise<RawAnswer | ApiResponse> {
      const credentials = parseBasicAuth(req.headers.authorization);
      if (credentials === null) return errorResponse(Errors.notLoggedIn());
      if (credentials instanceof ZulipError) return errorResponse(credentials);
      const principal = services.authenticate(services.realmForHost(req.headers.host ?? ''), credentials.email, credentials.apiKey);
      if (principal instanceof ZulipError) return errorResponse(principal);
      const url = lastValue(req.query, 'url');
      if (url === undefined) return errorResponse(Errors.missingArgument('url'));
      const size = lastValue(req.query, 'size');
      if (size === undefined) return errorResponse(Errors.missingArgument('size'));
      if (size !== 'full' && size !== 'thumbnail') return errorResponse(Errors.badValue('size', size));
      const target = thumbnailTarget(url, principal.realm.state.camoKey);
      if (target instanceof ZulipError) return errorResponse(target);
      // An empty body, not none: a bodiless 302 would leave keep-alive clients waiting for one.
      return { status: 302, headers: { Location: target, 'Cache-Control': 'private, max-age=3600' }, body: EMPTY };
    },
  };
}
