/**
 * Session authentication for `/json/...` and the browser pages (Zulip's zerver/lib/rest.py
 * `rest_dispatch` for `/json`: the Django session identifies the user, then `csrf_protect`, then
 * `authenticated_json_view`). The session id comes from the `sessionid` cookie; only its SHA-256
 * is looked up (`auth/sessions.ts`, `domain/sessions.ts`).
 *
 * Errors, in Zulip's order:
 * - no realm for the Host, no cookie, an unknown, expired or ended session → 401 UNAUTHORIZED
 *   "Not logged in: API authentication or user session required" with the session challenge;
 * - a deactivated organization → 401 REALM_DEACTIVATED (the `/json` form, not re-wrapped);
 * - then, for unsafe methods, the CSRF check → 403 CSRF_FAILED (`auth/sessions.ts` `checkCsrf`).
 */
import { Errors, ZulipError } from '../errors.js';
import { findSession } from '../domain/sessions.js';
import type { User } from '../domain/realm-state.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import {
  checkCsrf,
  csrfCookie,
  isSecureUrl,
  newCsrfToken,
  newSessionId,
  parseCookies,
  SESSION_AGE_SECONDS,
  SESSION_COOKIE,
  sessionCookie,
  sessionIdHash,
} from '../auth/sessions.js';

/** A request authenticated by its session cookie. */
export interface SessionPrincipal {
  readonly realm: RealmHandle;
  readonly user: User;
  /** SHA-256 (hex) of the session id: what `end_session` and `change_password` name it by. */
  readonly idHash: string;
}

/** What session authentication reads from a request (lower-case header names). */
export interface SessionRequest {
  readonly method: string;
  /** The request's scheme per trusted proxies (absent = http). */
  readonly scheme?: 'http' | 'https';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: readonly (readonly [string, string])[];
}

/** The server clock in UNIX seconds (sessions expire by it). */
const nowSeconds = () => Date.now() / 1000;

/**
 * The live session the request's cookie names in `realm`, or null (no realm, no cookie, unknown,
 * expired, ended, or its user deactivated). Does not check CSRF.
 */
export function sessionFromCookie(realm: RealmHandle | null, headers: Readonly<Record<string, string>>): SessionPrincipal | null {
  if (realm === null) return null;
  const id = parseCookies(headers.cookie)[SESSION_COOKIE];
  if (id === undefined || id === '' || id.length > 128) return null;
  const idHash = sessionIdHash(id);
  const session = findSession(realm.state, idHash, nowSeconds());
  if (session === undefined) return null;
  const user = realm.state.users.get(session.userId);
  return user === undefined ? null : { realm, user, idHash };
}

/**
 * Authenticates a `/json` request for an `auth: 'user'` endpoint: session, organization, then CSRF
 * (see the module comment). Returns the principal or the error to send.
 */
export function authenticateJson(realm: RealmHandle | null, req: SessionRequest): SessionPrincipal | ZulipError {
  const principal = sessionFromCookie(realm, req.headers);
  if (principal === null) return Errors.notLoggedInSession();
  if (principal.realm.state.settings.deactivated) return Errors.realmDeactivated();
  const csrf = checkCsrf({ method: req.method, headers: req.headers, body: req.body, realmUrl: principal.realm.url, scheme: req.scheme ?? 'http' });
  return csrf ?? principal;
}

/**
 * Zulip's client name for a browser session request (zerver/decorator.py `get_client_name` with
 * `is_browser_view`): an explicit `client` parameter wins; otherwise "website" unless the
 * User-Agent's product starts with "Zulip".
 */
export function browserClientName(explicitClient: string | undefined, userAgentName: string): string {
  if (explicitClient) return explicitClient;
  return userAgentName.startsWith('Zulip') ? userAgentName : 'website';
}

/**
 * Logs `userId` in to `realm` (Django's `login()`: a new session, and the CSRF token rotated):
 * stores the session through the realm actor (`create_session`, durable before the answer) and
 * returns the two `Set-Cookie` values (`sessionid`, `csrftoken`), or the handler's error (user
 * deactivated meanwhile, organization deactivated).
 */
export async function logIn(realm: RealmHandle, userId: number): Promise<string[] | ZulipError> {
  const id = newSessionId();
  const result = await realm.execute({ type: 'create_session', userId, idHash: sessionIdHash(id), lifetimeSeconds: SESSION_AGE_SECONDS });
  if (!result.ok) return result.error;
  const secure = isSecureUrl(realm.url);
  return [sessionCookie(id, { secure }), csrfCookie(newCsrfToken(), { secure })];
}
