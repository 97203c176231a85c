/**
 * Web sessions and CSRF protection for the browser app (Django's session and CSRF middleware as
 * Zulip configures them: zproject/computed_settings.py `SESSION_COOKIE_*`, `CSRF_*`; the failure
 * answer is zerver/middleware.py `csrf_failure` / zerver/lib/exceptions.py `CsrfFailureError`).
 *
 * The contract the browser app relies on:
 * - `sessionid` cookie: HttpOnly, SameSite=Lax, Path=/, Secure when the realm URL is https,
 *   Max-Age two weeks (`SESSION_COOKIE_AGE`). Its value is 32 random bytes (base64url, 43
 *   characters); the server stores only the SHA-256 of it, so a stolen snapshot or log holds no
 *   usable session.
 * - `csrftoken` cookie: readable by script (not HttpOnly), SameSite=Lax, Path=/, Secure like the
 *   session; 32 characters of [A-Za-z0-9] (Django's `CSRF_SECRET_LENGTH`), Max-Age one year.
 *   Unsafe requests (anything but GET/HEAD/OPTIONS/TRACE) to `/json/...` and the HTML form posts
 *   must carry the same value in the `X-CSRFToken` header (or, for form posts, the
 *   `csrfmiddlewaretoken` field), else 403 `CSRF_FAILED` (Django's reasons, see `checkCsrf`).
 * - A browser's `Origin` header, when present on an unsafe request, must be the origin the request
 *   was made to (`scheme://Host`) or the realm URL's (Django's `CsrfViewMiddleware._origin_verified`
 *   with the realm URL as trusted origin).
 *
 * Pure functions and constants only: no realm, no I/O beyond `crypto`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parse as parseCookieHeader, serialize as serializeCookie } from 'cookie';
import { Errors, type ZulipError } from '../errors.js';
import { keysEqual, randomToken } from './api-keys.js';

/** Name of the session cookie (Django's `SESSION_COOKIE_NAME`). */
export const SESSION_COOKIE = 'sessionid';
/** Name of the CSRF cookie (Django's `CSRF_COOKIE_NAME`). */
export const CSRF_COOKIE = 'csrftoken';
/** Header the app echoes the CSRF cookie in (Django's `CSRF_HEADER_NAME`, `HTTP_X_CSRFTOKEN`). */
export const CSRF_HEADER = 'x-csrftoken';
/** Hidden form field carrying the CSRF token in HTML forms (Django's name). */
export const CSRF_FORM_FIELD = 'csrfmiddlewaretoken';

/** Session lifetime in seconds: two weeks (Zulip's `SESSION_COOKIE_AGE`). */
export const SESSION_AGE_SECONDS = 14 * 24 * 3600;
/** CSRF cookie lifetime in seconds: one year (Django's `CSRF_COOKIE_AGE`). */
export const CSRF_COOKIE_AGE_SECONDS = 365 * 24 * 3600;
/** Length of a CSRF token in characters (Django's `CSRF_SECRET_LENGTH`). */
export const CSRF_TOKEN_LENGTH = 32;
/** Bytes of randomness in a session id. */
export const SESSION_ID_BYTES = 32;

/** Methods that never need a CSRF token (Django's `CsrfViewMiddleware`, RFC 9110 safe methods). */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** A new session id: 32 random bytes, base64url (43 characters). Goes only into the cookie. */
export function newSessionId(): string {
  return randomBytes(SESSION_ID_BYTES).toString('base64url');
}

/** What the server stores for a session id: its SHA-256, lower-case hex (64 characters). */
export function sessionIdHash(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex');
}

/** A new CSRF token: 32 characters of [A-Za-z0-9]. */
export function newCsrfToken(): string {
  return randomToken(CSRF_TOKEN_LENGTH);
}

/** Whether `token` has the shape of a CSRF token this server hands out. */
export function isWellFormedCsrfToken(token: string): boolean {
  return /^[A-Za-z0-9]{32}$/.test(token);
}

/** The cookies of a `Cookie` header by name (first occurrence wins; malformed pairs skipped). */
export function parseCookies(header: string | undefined): Record<string, string | undefined> {
  if (header === undefined || header === '') return {};
  return parseCookieHeader(header);
}

/** Cookie attributes shared by both cookies. `secure`: the realm URL is https. */
interface CookieOptions {
  readonly secure: boolean;
}

/** `Set-Cookie` value for a new session (`sessionId` is the raw id, never its hash). */
export function sessionCookie(sessionId: string, opts: CookieOptions): string {
  return serializeCookie(SESSION_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: 'lax',
    secure: opts.secure,
    path: '/',
    maxAge: SESSION_AGE_SECONDS,
  });
}

/** `Set-Cookie` value deleting the session cookie (logout, or a session that no longer exists). */
export function expiredSessionCookie(opts: CookieOptions): string {
  return serializeCookie(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: opts.secure, path: '/', maxAge: 0 });
}

/** `Set-Cookie` value for the CSRF token (readable by the app's script on purpose). */
export function csrfCookie(token: string, opts: CookieOptions): string {
  return serializeCookie(CSRF_COOKIE, token, {
    httpOnly: false,
    sameSite: 'lax',
    secure: opts.secure,
    path: '/',
    maxAge: CSRF_COOKIE_AGE_SECONDS,
  });
}

/** What `checkCsrf` looks at in a request. */
export interface CsrfInput {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Form fields of the body (for `csrfmiddlewaretoken` on POST). */
  readonly body: readonly (readonly [string, string])[];
  /** The realm's URL (`https://chat.example.com`): its origin is always trusted. */
  readonly realmUrl: string;
  /** The request's scheme (per trusted proxies); with the `Host` header it gives the request's own origin. */
  readonly scheme?: 'http' | 'https';
}

/**
 * Django's `CsrfViewMiddleware.process_view` for a session-authenticated request, as Zulip applies
 * it to `/json` (zerver/lib/rest.py `rest_dispatch`: `csrf_protect` once the session is known):
 * safe methods pass; otherwise, in Django's order,
 * 1. an `Origin` header that is neither the request's own origin nor the realm URL's →
 *    "Origin checking failed - <origin> does not match any trusted origins.";
 * 2. no `csrftoken` cookie → "CSRF cookie not set.";
 * 3. the token from the `csrfmiddlewaretoken` field (POST), else the `X-CSRFToken` header; none →
 *    "CSRF token missing.";
 * 4. wrong length → "CSRF token from <source> has incorrect length.", different from the cookie →
 *    "CSRF token from <source> incorrect." (`<source>`: `POST` or `the 'X-Csrftoken' HTTP header`).
 * Returns null when the request passes, else the 403 CSRF_FAILED error (`reason` field set).
 * Tokens are compared in constant time.
 */
export function checkCsrf(req: CsrfInput): ZulipError | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const originError = checkOrigin(req.headers, req.realmUrl, req.scheme ?? 'http');
  if (originError !== null) return originError;
  const cookie = parseCookies(req.headers.cookie)[CSRF_COOKIE];
  if (cookie === undefined || !isWellFormedCsrfToken(cookie)) return Errors.csrfFailed('CSRF cookie not set.');
  let token = req.method === 'POST' ? (req.body.find(([name]) => name === CSRF_FORM_FIELD)?.[1] ?? '') : '';
  let source = 'POST';
  if (token === '') {
    const header = req.headers[CSRF_HEADER];
    if (header === undefined) return Errors.csrfFailed('CSRF token missing.');
    token = header;
    source = "the 'X-Csrftoken' HTTP header";
  }
  if (token.length !== CSRF_TOKEN_LENGTH) return Errors.csrfFailed(`CSRF token from ${source} has incorrect length.`);
  if (!keysEqual(token, cookie)) return Errors.csrfFailed(`CSRF token from ${source} incorrect.`);
  return null;
}

/**
 * Django's origin check (`CsrfViewMiddleware._origin_verified`): no `Origin` header passes (non-browser
 * clients; the token check still applies); otherwise it must be `scheme://Host` of the request
 * itself (a cross-site page cannot make the browser send our Host with its own Origin) or the realm
 * URL's origin. Returns the 403 CSRF_FAILED error, or null.
 */
export function checkOrigin(headers: Readonly<Record<string, string>>, realmUrl: string, scheme: 'http' | 'https'): ZulipError | null {
  const origin = headers.origin;
  if (origin === undefined) return null;
  const host = headers.host;
  if (host !== undefined && origin.toLowerCase() === `${scheme}://${host.toLowerCase()}`) return null;
  if (origin === originOf(realmUrl)) return null;
  return Errors.csrfFailed(`Origin checking failed - ${origin} does not match any trusted origins.`);
}

/** `scheme://host[:port]` of a URL, as browsers send it in `Origin`. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Whether cookies for this realm URL get the `Secure` attribute. */
export function isSecureUrl(url: string): boolean {
  return url.startsWith('https:');
}
