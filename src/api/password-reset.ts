/**
 * Password reset pages (Zulip's zproject/urls.py `accounts/password/reset/…` routes: Django's
 * `PasswordResetView` with zerver/forms.py `ZulipPasswordResetForm`, `PasswordResetConfirmView`):
 *
 * - `GET /accounts/password/reset/`: the form (one "Email" field, CSRF hidden field);
 * - `POST /accounts/password/reset/`: CSRF checked, per-IP limit; for an active human account with
 *   this address, a mail with a one-time link; for an unknown address, a mail saying there is no
 *   account here (as Zulip does: the requester learns nothing, the address owner is told). Either
 *   way (and when the per-address limit, Zulip's `password_reset_form_by_email`, drops the mail)
 *   the answer is the same 302 to `/accounts/password/reset/done/`;
 * - `GET /accounts/password/reset/{uidb64}/{token}/`: the new-password form, or an "Invalid link"
 *   page (404) for a malformed, forged, expired or already used link;
 * - `POST` to the same: CSRF checked; `new_password1` = `new_password2`, strong enough; the argon2
 *   hash recorded and every session of the user ended (`change_password` without a kept session:
 *   Django's session auth hash no longer matches), then 302 to `/accounts/password/done/`.
 *
 * The token (`auth/password-reset-token.ts`) is bound to the current password hash, so it works
 * once. Mail is queued after nothing but a read: no record is written by a request.
 */
import { LRUCache } from 'lru-cache';
import { escapeHtml } from '../errors.js';
import { checkCsrf, CSRF_FORM_FIELD } from '../auth/sessions.js';
import { hashPassword } from '../auth/passwords.js';
import { isPasswordStrongEnough } from '../auth/password-strength.js';
import { checkResetToken, decodeUid, encodeUid, makeResetToken, PASSWORD_RESET_VALID_SECONDS } from '../auth/password-reset-token.js';
import { findUserByEmail } from '../domain/users.js';
import type { User } from '../domain/realm-state.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { Mailer } from '../mail/mailer.js';
import { passwordResetEmail } from '../mail/emails.js';
import type { ApiRequest } from './registry.js';
import type { ApiRateLimits } from './api-rate-limits.js';
import { csrfFailurePage, htmlPage, redirect, type WebResponse } from './html-page.js';
import { csrfToken } from './web-pages.js';

/** What the reset pages need from the server. */
export interface PasswordResetServices {
  realmForHost(host: string): RealmHandle | null;
  rateLimits?: ApiRateLimits | null;
  mailer: Mailer;
  /** HMAC key of reset tokens (a server secret kept beside the data). */
  secret: string;
  /** Clock in UNIX seconds (tests move it); default the wall clock. */
  now?: () => number;
}

const REQUEST_PATH = /^\/accounts\/password\/reset\/?$/;
const REQUEST_DONE_PATH = /^\/accounts\/password\/reset\/done\/?$/;
const CONFIRM_PATH = /^\/accounts\/password\/reset\/([^/]+)\/([^/]+)\/?$/;
const DONE_PATH = /^\/accounts\/password\/done\/?$/;

/** Whether `path` is one of these pages. */
export function isPasswordResetPath(path: string): boolean {
  return REQUEST_PATH.test(path) || REQUEST_DONE_PATH.test(path) || CONFIRM_PATH.test(path) || DONE_PATH.test(path);
}

/** Zulip's `password_reset_form_by_email` limit: 2 mails per hour and 5 per day per address. */
const PER_EMAIL_LIMITS: ReadonlyArray<[seconds: number, count: number]> = [
  [3600, 2],
  [86400, 5],
];
/** Send times per address (bounded: the oldest addresses are forgotten first). */
const sentByEmail = new LRUCache<string, number[]>({ max: 10_000 });

function emailLimited(key: string, nowSeconds: number): boolean {
  const times = (sentByEmail.get(key) ?? []).filter((s) => s > nowSeconds - 86400);
  if (PER_EMAIL_LIMITS.some(([window, count]) => times.filter((s) => s > nowSeconds - window).length >= count)) return true;
  sentByEmail.set(key, [...times, nowSeconds]);
  return false;
}

const field = (pairs: readonly (readonly [string, string])[], name: string) => pairs.find(([k]) => k === name)?.[1];
const hidden = (csrf: string) => `<input type="hidden" name="${CSRF_FORM_FIELD}" value="${escapeHtml(csrf)}">\n`;
const methodNotAllowed = (allow: string): WebResponse => ({ status: 405, headers: { Allow: allow, 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Method Not Allowed\n' });
const invalidLink = () =>
  htmlPage(404, 'Invalid link', '<h1>Invalid link</h1>\n<p>The password reset link was invalid, possibly because it has already been used. Please request a new password reset.</p>\n<p><a href="/accounts/password/reset/">Reset your password</a></p>');

function requestForm(csrf: string, cookies: string[]): WebResponse {
  return htmlPage(
    200,
    'Reset your password',
    `<h1>Reset your password</h1>\n<form method="post" action="/accounts/password/reset/">\n${hidden(csrf)}` +
      `<label for="id_email">Email</label><input id="id_email" name="email" type="email" autocomplete="email" required autofocus>\n` +
      `<button type="submit">Send reset link</button>\n</form>`,
    cookies,
  );
}

function confirmForm(path: string, csrf: string, cookies: string[], error: string | null): WebResponse {
  const err = error === null ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>\n`;
  return htmlPage(
    error === null ? 200 : 400,
    'Set a new password',
    `<h1>Set a new password</h1>\n${err}<form method="post" action="${escapeHtml(path)}">\n${hidden(csrf)}` +
      `<label for="id_new_password1">New password</label><input id="id_new_password1" name="new_password1" type="password" autocomplete="new-password" required autofocus>\n` +
      `<label for="id_new_password2">Confirm password</label><input id="id_new_password2" name="new_password2" type="password" autocomplete="new-password" required>\n` +
      `<button type="submit">Change password</button>\n</form>`,
    cookies,
  );
}

/** The active human account a link names, if its token is valid now. */
function linkUser(realm: RealmHandle, secret: string, uid: string, token: string, nowSeconds: number): User | null {
  const userId = decodeUid(uid);
  const user = userId === null ? undefined : realm.state.users.get(userId);
  if (user === undefined || !user.isActive || user.isBot) return null;
  const subject = { realmId: realm.id, userId: user.id, email: user.email, passwordHash: user.passwordHash };
  return checkResetToken(secret, subject, token, nowSeconds) ? user : null;
}

/** Answers the reset pages (`isPasswordResetPath`). */
export async function handlePasswordReset(req: ApiRequest, services: PasswordResetServices): Promise<WebResponse> {
  const limit = services.rateLimits?.takeIp(req.remoteAddress);
  if (limit?.limited) {
    const page = htmlPage(429, 'Too many requests', '<p>API usage exceeded rate limit. Try again in a moment.</p>');
    return { ...page, headers: { ...page.headers, ...limit.headers } };
  }
  const realm = services.realmForHost(req.headers.host ?? '');
  if (realm === null) return htmlPage(404, 'No organization', '<h1>No organization</h1>\n<p>There is no organization at this URL.</p>');
  const nowSeconds = (services.now ?? (() => Date.now() / 1000))();
  const isGet = req.method === 'GET' || req.method === 'HEAD';
  const csrfError = () => checkCsrf({ method: 'POST', headers: req.headers, body: req.body, realmUrl: realm.url, scheme: req.scheme ?? 'http' });

  if (REQUEST_DONE_PATH.test(req.path)) {
    if (!isGet) return methodNotAllowed('GET, HEAD');
    return htmlPage(200, 'Check your email', '<h1>Check your email</h1>\n<p>If an account exists for the address you entered, we have sent it an email with a link to reset your password. The link works once, for 24 hours.</p>');
  }
  if (DONE_PATH.test(req.path)) {
    if (!isGet) return methodNotAllowed('GET, HEAD');
    return htmlPage(200, 'Password reset complete', '<h1>Password reset complete</h1>\n<p>Your password has been set. You can now <a href="/login/">log in</a>.</p>');
  }
  if (REQUEST_PATH.test(req.path)) {
    if (isGet) {
      const { token, cookies } = csrfToken(req, realm);
      return requestForm(token, cookies);
    }
    if (req.method !== 'POST') return methodNotAllowed('GET, HEAD, POST');
    const csrf = csrfError();
    if (csrf !== null) return csrfFailurePage(String(csrf.data.reason));
    const email = (field(req.body, 'email') ?? '').trim();
    if (email !== '' && !emailLimited(`${realm.id}:${email.toLowerCase()}`, nowSeconds)) sendResetMail(realm, services, email, nowSeconds);
    return redirect('/accounts/password/reset/done/');
  }
  const match = CONFIRM_PATH.exec(req.path);
  if (match === null) return htmlPage(404, 'Page not found', '<h1>Page not found</h1>');
  const user = linkUser(realm, services.secret, match[1]!, match[2]!, nowSeconds);
  if (user === null) return invalidLink();
  if (isGet) {
    const { token, cookies } = csrfToken(req, realm);
    return confirmForm(req.path, token, cookies, null);
  }
  if (req.method !== 'POST') return methodNotAllowed('GET, HEAD, POST');
  const csrf = csrfError();
  if (csrf !== null) return csrfFailurePage(String(csrf.data.reason));
  const token = csrfToken(req, realm).token;
  const password = field(req.body, 'new_password1') ?? '';
  if (password === '') return confirmForm(req.path, token, [], 'This field is required.');
  if (password !== (field(req.body, 'new_password2') ?? '')) return confirmForm(req.path, token, [], 'The two password fields didn\u2019t match.');
  if (!isPasswordStrongEnough(password)) return confirmForm(req.path, token, [], 'The password is too weak.');
  const passwordHash = await hashPassword(password);
  // Hashing took time: the link must still be valid (a concurrent reset used it up).
  if (linkUser(realm, services.secret, match[1]!, match[2]!, nowSeconds)?.id !== user.id) return invalidLink();
  const changed = await realm.execute({ type: 'change_password', actorId: user.id, passwordHash, keepIdHash: null });
  if (!changed.ok) return invalidLink();
  return redirect('/accounts/password/done/');
}

/** Queues the reset mail for `email` (a link for an active human account, else the "no account" notice). */
function sendResetMail(realm: RealmHandle, services: PasswordResetServices, email: string, nowSeconds: number): void {
  const user = findUserByEmail(realm.state, email);
  const settings = realm.state.settings;
  if (user === undefined || !user.isActive || user.isBot) {
    if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) return;
    services.mailer.send(passwordResetEmail({ to: email, realmName: settings.name, realmUrl: realm.url, link: null, validHours: PASSWORD_RESET_VALID_SECONDS / 3600 }));
    return;
  }
  const token = makeResetToken(services.secret, { realmId: realm.id, userId: user.id, email: user.email, passwordHash: user.passwordHash }, nowSeconds);
  const link = `${realm.url}/accounts/password/reset/${encodeUid(user.id)}/${token}/`;
  services.mailer.send(passwordResetEmail({ to: user.email, realmName: settings.name, realmUrl: realm.url, link, validHours: PASSWORD_RESET_VALID_SECONDS / 3600 }));
}
