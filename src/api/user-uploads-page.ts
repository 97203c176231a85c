/**
 * Serving uploaded files outside `/api/v1` (Zulip's zproject/urls.py `user_uploads/...` rows,
 * zerver/views/upload.py `serve_file_backend` and `serve_local_file_unauthed`):
 *
 * - `GET /user_uploads/{realm_id}/{hex}/{random}/{name}` (and HEAD), authenticated with HTTP
 *   Basic `email:api_key` (Zulip's `override_api_url_scheme`) or, without an Authorization
 *   header, by the browser's `sessionid` cookie (a logged-in web app shows uploaded images; a
 *   GET needs no CSRF token): the realm chosen by the Host header must be the path's realm, and
 *   the user must be allowed to read the file (`accessAttachmentByPath`); missing and not
 *   allowed are the same 404. `?download` (Zulip's `/user_uploads/download/...` form) forces an
 *   attachment.
 * - `GET /user_uploads/thumbnail/{realm_id}/{hex}/{random}/{name}/{format}`: a thumbnail of an
 *   uploaded image (`domain/upload-thumbnails.ts`), same authentication and access as the file
 *   itself; a format never generated for it is the same 404 (Zulip's `serve_file` thumbnail path).
 * - `GET /user_uploads/temporary/{token}/{name}`: no authentication; the signed token (60 s)
 *   names the realm and path, `name` must be the path's last segment ("Invalid filename");
 *   a bad or expired token is "Invalid token".
 *
 * Path segments are percent-decoded one by one; nothing here touches the file system: a path only
 * selects an attachment record, whose digest selects the bytes.
 */
import { Errors, ZulipError } from '../errors.js';
import { accessAttachmentByPath } from '../domain/access.js';
import { findAttachmentByPath } from '../domain/attachments.js';
import { findThumbnail } from '../domain/upload-thumbnails.js';
import { parseBasicAuth } from '../auth/basic-auth.js';
import { sessionFromCookie } from './session-auth.js';
import { errorResponse, type ApiRequest, type ApiResponse, type ApiServices } from './registry.js';
import { fileResponse } from './file-response.js';
import { readTemporaryToken } from './upload-names.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { User } from '../domain/realm-state.js';

const PREFIX = '/user_uploads/';

/** Whether the HTTP layer should route `path` here. */
export function isUserUploadsPath(path: string): boolean {
  return path.startsWith(PREFIX);
}

function decodeSegments(rest: string): string[] | null {
  const out: string[] = [];
  for (const seg of rest.split('/')) {
    try {
      out.push(decodeURIComponent(seg));
    } catch {
      return null;
    }
  }
  return out;
}

/** Answers a `/user_uploads/...` request (see the module header). Never throws for bad input. */
export async function handleUserUploads(req: ApiRequest, services: ApiServices): Promise<ApiResponse> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const error = Errors.methodNotAllowed(['GET']);
    return { status: error.status, headers: { Allow: 'GET' }, body: error.toBody() };
  }
  const uploads = services.uploads;
  const notFound = errorResponse(Errors.fileNotFound());
  const segs = decodeSegments(req.path.slice(PREFIX.length));
  if (uploads === undefined || segs === null) return notFound;
  const realm = services.realmForHost((req.headers.host ?? '').toLowerCase());
  const range = req.headers.range;
  const download = req.query.some(([name]) => name === 'download');

  if (segs[0] === 'temporary') {
    if (segs.length !== 3) return notFound;
    const token = readTemporaryToken(uploads.urlKey, segs[1]!, Date.now() / 1000);
    if (token === null || realm === null || token.realmId !== realm.id) return errorResponse(Errors.invalidUploadToken());
    if (token.pathId.slice(token.pathId.lastIndexOf('/') + 1) !== segs[2]) return errorResponse(Errors.invalidUploadFilename());
    const a = findAttachmentByPath(realm.state, token.pathId);
    return a === undefined ? notFound : fileResponse(uploads, a, range, download);
  }

  const principal = authenticateDownload(req, services, realm);
  if (principal instanceof ZulipError) return errorResponse(principal);
  const thumbnail = segs[0] === 'thumbnail';
  const pathSegs = thumbnail ? segs.slice(1, 5) : segs;
  if (segs.length !== (thumbnail ? 6 : 4) || pathSegs[0] !== String(principal.realm.id)) return notFound;
  const access = accessAttachmentByPath(principal.realm.state, principal.user, pathSegs.join('/'));
  if (!access.ok) return errorResponse(access.error);
  if (!thumbnail) return fileResponse(uploads, access.value, range, download);
  const stored = findThumbnail(access.value, segs[5]!);
  if (stored === undefined) return notFound;
  return fileResponse(uploads, { sha256: stored.sha256, contentType: 'image/webp', name: stored.format }, range, download);
}

/**
 * The user of a download: HTTP Basic when an Authorization header is sent (API clients), else the
 * `sessionid` cookie (the browser); neither → "Not logged in" (401).
 */
function authenticateDownload(req: ApiRequest, services: ApiServices, realm: RealmHandle | null): { realm: RealmHandle; user: User } | ZulipError {
  if (req.headers.authorization === undefined) {
    const session = sessionFromCookie(realm, req.headers);
    if (session === null) return Errors.notLoggedIn();
    if (session.realm.state.settings.deactivated) return Errors.realmDeactivated();
    return session;
  }
  const credentials = parseBasicAuth(req.headers.authorization);
  if (credentials === null) return Errors.notLoggedIn();
  if (credentials instanceof ZulipError) return credentials;
  return services.authenticate(realm, credentials.email, credentials.apiKey);
}
