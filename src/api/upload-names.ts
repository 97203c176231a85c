/**
 * Names, media types and temporary URLs of uploads (Zulip's zerver/lib/upload/__init__.py
 * `sanitize_name`, zerver/lib/upload/base.py `INLINE_MIME_TYPES`, zerver/lib/upload/local.py
 * `generate_unauthed_file_access_url` / `get_local_file_path_id_from_token`).
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import mime from 'mime-types';

/**
 * Zulip's `sanitize_name` (non-strict): NFKC, drop everything but letters, digits, `_`, spaces,
 * `.` and `-`, trim, runs of spaces/dashes → one `-`; `''`, `.`, `..` → `uploaded-file`.
 */
export function sanitizeName(value: string): string {
  let name = value.normalize('NFKC').replace(/[^\p{L}\p{N}_\s.-]/gu, '').trim();
  name = name.replace(/[-\s]+/gu, '-');
  return name === '' || name === '.' || name === '..' ? 'uploaded-file' : name;
}

/**
 * A new upload's `path_id`: `{realm_id}/{0-ff hex}/{24 url-safe random}/{sanitized name}` (Zulip's
 * `create_attachment` path layout).
 */
export function newPathId(realmId: number, sanitizedName: string): string {
  return `${realmId}/${randomInt(256).toString(16)}/${randomBytes(18).toString('base64url')}/${sanitizedName}`;
}

/**
 * The media type an upload is stored and served with: the part's declared type unless absent or
 * `application/octet-stream`, then a guess from the name (Zulip's `guess_type`), else
 * `application/octet-stream`.
 */
export function uploadContentType(declared: string, name: string): string {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  if (type !== '' && type !== 'application/octet-stream' && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) return type;
  return mime.lookup(name) || 'application/octet-stream';
}

/**
 * Types a browser may show inline (Zulip's `INLINE_MIME_TYPES`). Never HTML, SVG, XML or
 * anything that can run script: those are always sent as attachments.
 */
export const INLINE_MIME_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'audio/aac', 'audio/flac', 'audio/mp4', 'audio/mpeg', 'audio/wav', 'audio/webm',
  'image/apng', 'image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp',
  'text/plain',
  'video/mp4', 'video/webm',
]);

/**
 * `Content-Disposition` as Zulip's `patch_disposition_header` (RFC 6266 / 8187): `inline` or
 * `attachment`; ASCII names quoted with `\` and `"` escaped, others as `filename*=utf-8''…`.
 */
export function contentDisposition(name: string, attachment: boolean): string {
  const kind = attachment ? 'attachment' : 'inline';
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(name)) return `${kind}; filename="${name.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return `${kind}; filename*=utf-8''${encodeURIComponent(name)}`;
}

/** Temporary URLs live this long (Zulip: 60 s). */
export const TEMPORARY_URL_SECONDS = 60;

const sign = (key: string, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

/**
 * `/user_uploads/temporary/{token}/{name}` for `pathId` of realm `realmId`, valid
 * `TEMPORARY_URL_SECONDS` from `nowSeconds`. The token is a `realm:path:expiry` signed with
 * HMAC-SHA256 under `key` (the data directory's `upload-url-key` secret, so a restart keeps it valid).
 */
export function temporaryUrl(key: string, realmId: number, pathId: string, nowSeconds: number): string {
  const payload = `${realmId}:${Math.floor(nowSeconds) + TEMPORARY_URL_SECONDS}:${pathId}`;
  const token = `${Buffer.from(payload).toString('base64url')}.${sign(key, payload)}`;
  return `/user_uploads/temporary/${token}/${encodeURIComponent(pathId.slice(pathId.lastIndexOf('/') + 1))}`;
}

/** The realm and path a temporary token signed with `key` names, or null when forged, malformed or expired. */
export function readTemporaryToken(key: string, token: string, nowSeconds: number): { realmId: number; pathId: string } | null {
  const dot = token.indexOf('.');
  if (dot < 0) return null;
  const payload = Buffer.from(token.slice(0, dot), 'base64url').toString('utf8');
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(token.slice(dot + 1));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const m = /^(\d+):(\d+):(.+)$/s.exec(payload);
  if (m === null || Number(m[2]) < nowSeconds) return null;
  return { realmId: Number(m[1]), pathId: m[3]! };
}
