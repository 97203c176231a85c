/**
 * The browser's way in (Zulip's zerver/views/auth.py `login_page`, `logout_view`; zerver/views/home.py
 * `home`): server-rendered pages, no script.
 *
 * - `GET /login/`: the login form (inputs labelled "Email" and "Password", button "Log in"),
 *   posting `username`, `password`, `next` and Django's hidden `csrfmiddlewaretoken` (the value of
 *   the `csrftoken` cookie, set here when missing). Already logged in → 302 to `/`.
 * - `POST /accounts/login/` (a GET shows the form, as Zulip's `accounts/login/` does): CSRF checked (403 HTML page on failure), the per-IP limit of
 *   unauthenticated requests and the per-username login limit (`auth.ts` `authenticateByPassword`)
 *   applied; success → a new session (`session-auth.ts` `logIn`) and 302 to `next` when it is a
 *   local path, else `/`; failure → the form again with the error.
 * - `POST /accounts/logout/`: CSRF checked; the session ended, its cookie deleted, 302 `/login/`.
 * - `GET /`: no session → 302 `/login/`; a session → the app's HTML shell (ensuring a `csrftoken`
 *   cookie for the app's `X-CSRFToken` header).
 */
import { ZulipError, escapeHtml } from '../errors.js';
import {
  checkCsrf,
  CSRF_COOKIE,
  CSRF_FORM_FIELD,
  csrfCookie,
  expiredSessionCookie,
  isSecureUrl,
  isWellFormedCsrfToken,
  newCsrfToken,
  parseCookies,
} from '../auth/sessions.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { ApiRequest } from './registry.js';
import type { ApiRateLimits } from './api-rate-limits.js';
import { authenticateByPassword } from './auth.js';
import { logIn, sessionFromCookie } from './session-auth.js';
import { csrfFailurePage, htmlHeaders, htmlPage, redirect, type WebResponse } from './html-page.js';

/** What the pages need from the server. */
export interface WebPageServices {
  realmForHost(host: string): RealmHandle | null;
  /** The per-IP limit of unauthenticated requests (`api_by_ip`); absent or null = off. */
  rateLimits?: ApiRateLimits | null;
  /** The app's HTML shell (`dist/webapp/index.html`), or null when the app is not built. */
  appShell(): string | null;
}

/** The paths these pages answer (with or without the trailing slash). */
const PAGE_PATHS: ReadonlyMap<string, 'root' | 'login' | 'login_post' | 'logout'> = new Map([
  ['/', 'root'],
  ['/login', 'login'],
  ['/login/', 'login'],
  ['/accounts/login', 'login_post'],
  ['/accounts/login/', 'login_post'],
  ['/accounts/logout', 'logout'],
  ['/accounts/logout/', 'logout'],
]);

/** Whether `path` is one of these pages (the HTTP layer routes them here). */
export function isWebPagePath(path: string): boolean {
  return PAGE_PATHS.has(path);
}

/** Django's `AuthenticationForm` error for a wrong email or password. */
const INVALID_LOGIN = 'Please enter a correct email and password. Note that both fields may be case-sensitive.';

const field = (pairs: readonly (readonly [string, string])[], name: string) => pairs.find(([k]) => k === name)?.[1];

/**
 * `next` if it is a path on this site (Django's `url_has_allowed_host_and_scheme` for a relative
 * URL: starts with one `/`, no backslash, no control characters, at most 2000 characters), else `/`.
 */
export function safeNext(next: string | undefined): string {
  if (next === undefined || next.length > 2000) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(next)) return '/';
  return next;
}

/** The login form, with `error` above it; `csrf` fills the hidden field. */
function loginForm(realm: RealmHandle | null, csrf: string, next: string, error: string | null, email = '', status = 200, cookies?: string[]): WebResponse {
  const name = realm?.state.settings.name ?? 'parley';
  const err = error === null ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>\n`;
  const inner =
    `<h1>Log in to ${escapeHtml(name)}</h1>\n${err}<form method="post" action="/accounts/login/">\n` +
    `<input type="hidden" name="${CSRF_FORM_FIELD}" value="${escapeHtml(csrf)}">\n` +
    `<input type="hidden" name="next" value="${escapeHtml(next)}">\n` +
    `<label for="id_username">Email</label><input id="id_username" name="username" type="email" autocomplete="username" required autofocus value="${escapeHtml(email)}">\n` +
    `<label for="id_password">Password</label><input id="id_password" name="password" type="password" autocomplete="current-password" required>\n` +
    `<button type="submit">Log in</button>\n</form>\n<p><a href="/accounts/password/reset/">Forgot your password?</a></p>`;
  return htmlPage(status, `Log in | ${name}`, inner, cookies);
}

/** The request's CSRF token cookie, or a new one with the `Set-Cookie` to send it. */
export function csrfToken(req: ApiRequest, realm: RealmHandle | null): { token: string; cookies: string[] } {
  const existing = parseCookies(req.headers.cookie)[CSRF_COOKIE];
  if (existing !== undefined && isWellFormedCsrfToken(existing)) return { token: existing, cookies: [] };
  const token = newCsrfToken();
  return { token, cookies: [csrfCookie(token, { secure: realm !== null && isSecureUrl(realm.url) })] };
}

/** A login failure as the form shows it. */
function loginErrorText(error: ZulipError): string {
  switch (error.code) {
    case 'USER_DEACTIVATED':
      return 'Your account is no longer active.';
    case 'REALM_DEACTIVATED':
      return 'This organization has been deactivated.';
    case 'RATE_LIMIT_HIT':
      return `You're making too many attempts to sign in. Try again in ${Math.ceil(Number(error.data['retry-after']))} seconds or contact your organization administrator for help.`;
    default:
      return INVALID_LOGIN;
  }
}

const methodNotAllowed = (allow: string): WebResponse => ({
  status: 405,
  headers: { Allow: allow, 'Content-Type': 'text/plain; charset=utf-8' },
  body: 'Method Not Allowed\n',
});

/** Answers one of the page paths (`isWebPagePath`). */
export async function handleWebPage(req: ApiRequest, services: WebPageServices): Promise<WebResponse> {
  const kind = PAGE_PATHS.get(req.path);
  const realm = services.realmForHost(req.headers.host ?? '');
  const isGet = req.method === 'GET' || req.method === 'HEAD';
  switch (kind) {
    case 'root':
      if (!isGet) return methodNotAllowed('GET, HEAD');
      return appPage(req, realm, services);
    case 'login':
    case 'login_post': {
      if (kind === 'login_post' && req.method === 'POST') return loginPost(req, realm, services);
      if (!isGet) return methodNotAllowed(kind === 'login' ? 'GET, HEAD' : 'GET, HEAD, POST');
      const limited = limitByIp(req, services);
      if (limited !== null) return limited;
      const next = safeNext(field(req.query, 'next'));
      if (sessionFromCookie(realm, req.headers) !== null) return redirect(next);
      const { token, cookies } = csrfToken(req, realm);
      if (realm === null) return noOrganization(cookies);
      return loginForm(realm, token, next, null, '', 200, cookies);
    }
    case 'logout':
      if (req.method !== 'POST') return methodNotAllowed('POST');
      return logout(req, realm);
    default:
      return htmlPage(404, 'Page not found', '<h1>Page not found</h1>');
  }
}

/** The per-IP limit of unauthenticated requests: a 429 page past it, else null. */
function limitByIp(req: ApiRequest, services: WebPageServices): WebResponse | null {
  const limit = services.rateLimits?.takeIp(req.remoteAddress);
  if (!limit?.limited) return null;
  const page = htmlPage(429, 'Too many requests', '<p>API usage exceeded rate limit. Try again in a moment.</p>');
  return { ...page, headers: { ...page.headers, ...limit.headers } };
}

function noOrganization(cookies?: string[]): WebResponse {
  return htmlPage(404, 'No organization', '<h1>No organization</h1>\n<p>There is no organization at this URL.</p>', cookies);
}

async function loginPost(req: ApiRequest, realm: RealmHandle | null, services: WebPageServices): Promise<WebResponse> {
  const limited = limitByIp(req, services);
  if (limited !== null) return limited;
  if (realm === null) return noOrganization();
  const csrf = checkCsrf({ method: 'POST', headers: req.headers, body: req.body, realmUrl: realm.url, scheme: req.scheme ?? 'http' });
  if (csrf !== null) return csrfFailurePage(String(csrf.data.reason));
  const next = safeNext(field(req.body, 'next') ?? field(req.query, 'next'));
  const username = field(req.body, 'username') ?? '';
  const password = field(req.body, 'password') ?? '';
  const token = parseCookies(req.headers.cookie)[CSRF_COOKIE]!;
  if (username.trim() === '' || password === '') return loginForm(realm, token, next, INVALID_LOGIN, username, 200);
  const user = await authenticateByPassword(realm, username, password, req.remoteAddress);
  if (user instanceof ZulipError) {
    return loginForm(realm, token, next, loginErrorText(user), username, user.code === 'RATE_LIMIT_HIT' ? 429 : 200);
  }
  const cookies = await logIn(realm, user.id);
  if (cookies instanceof ZulipError) return loginForm(realm, token, next, loginErrorText(cookies), username, 200);
  return redirect(next, cookies);
}

async function logout(req: ApiRequest, realm: RealmHandle | null): Promise<WebResponse> {
  if (realm === null) return redirect('/login/');
  const csrf = checkCsrf({ method: 'POST', headers: req.headers, body: req.body, realmUrl: realm.url, scheme: req.scheme ?? 'http' });
  if (csrf !== null) return csrfFailurePage(String(csrf.data.reason));
  const session = sessionFromCookie(realm, req.headers);
  if (session !== null) {
    const ended = await realm.execute({ type: 'end_session', idHash: session.idHash });
    if (!ended.ok) throw ended.error;
  }
  return redirect('/login/', [expiredSessionCookie({ secure: isSecureUrl(realm.url) })]);
}

/** A page shown while the browser app has not been built (`npm run build`); `csrf` for its logout form. */
function placeholderShell(csrf: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>parley</title></head>\n' +
    '<body><main><h1>parley</h1><p>You are logged in. The web app is not built on this server (run <code>npm run build</code>).</p>' +
    `<form method="post" action="/accounts/logout/"><input type="hidden" name="${CSRF_FORM_FIELD}" value="${escapeHtml(csrf)}">` +
    '<button type="submit">Log out</button></form></main></body></html>\n'
  );
}

function appPage(req: ApiRequest, realm: RealmHandle | null, services: WebPageServices): WebResponse {
  const session = sessionFromCookie(realm, req.headers);
  if (session === null) return redirect('/login/');
  const { token, cookies } = csrfToken(req, realm);
  const shell = services.appShell() ?? placeholderShell(token);
  return { status: 200, headers: htmlHeaders(), body: shell, ...(cookies.length > 0 && { cookies }) };
}
