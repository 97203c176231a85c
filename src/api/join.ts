/**
 * Consuming a reusable invitation link (Zulip's zerver/views/registration.py
 * `accounts_home_from_multiuse_invite`): `GET /join/{key}/` serves a minimal HTML registration
 * page; its form POSTs `full_name`, `email` and `password` to the same URL, which creates the
 * account (`accept_multiuse_invite`: the invite's role, channels, groups, realm defaults only when
 * the invite asks for them), sends the welcome message (see `sendWelcome`) and logs the new user in:
 * a 302 to the app (`/`) with the session and CSRF cookies (`session-auth.ts` `logIn`).
 *
 * The same page serves the links of email invitations (Zulip's `/accounts/do_confirm/<key>`): the
 * address is the invited one, shown read-only, and the invitation is used up by the sign-up.
 *
 * Like Zulip, a malformed key (not 24 characters), an unknown key, a key of another organization,
 * and an expired or revoked link are 404 pages. A multiuse link is never used up. This is the
 * one of the few non-`/api/v1` routes; `http/server.ts` hands it `{method, path, body, headers}` and writes
 * the `{status, headers, body}` returned here verbatim.
 */
import { hashPassword } from '../auth/passwords.js';
import { isPasswordStrongEnough } from '../auth/password-strength.js';
import { inviteByKey, inviteLink, isInviteUsable } from '../domain/invites.js';
import { emailInviteByKey, isEmailInviteUsable } from '../domain/email-invites.js';
import { LINK_EXPIRED } from '../realm/handlers/invites.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { ApiRequest } from './registry.js';
import type { ApiRateLimits } from './api-rate-limits.js';
import { ZulipError } from '../errors.js';
import { logIn } from './session-auth.js';
import { htmlHeaders, redirect, type WebResponse } from './html-page.js';

/** An HTML answer (with cookies once the sign-up logged the user in). */
export type HtmlResponse = WebResponse;

/** What the join page needs from the server. */
export interface JoinServices {
  realmForHost(host: string): RealmHandle | null;
  /** The per-IP limit of unauthenticated requests (`api_by_ip`); absent or null = off. */
  rateLimits?: ApiRateLimits | null;
}

const JOIN_PATH = /^\/join\/([^/]+)\/?$/;

/** Whether `path` is a join link path (the HTTP layer routes these here). */
export function isJoinPath(path: string): boolean {
  return JOIN_PATH.test(path);
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function page(status: number, title: string, inner: string): HtmlResponse {
  const body = `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body><h1>${escapeHtml(title)}</h1>\n${inner}\n</body></html>\n`;
  return { status, headers: htmlHeaders(), body };
}

const notFound = (msg: string) => page(404, 'Invalid link', `<p>${escapeHtml(msg)}</p>`);

/**
 * The sign-up form; it posts to the invite link itself (`realmUrl` = the configured organization
 * URL). `fixedEmail`: an email invitation's address, shown read-only (the account gets it whatever
 * is posted).
 */
function signUpForm(realmUrl: string, realmName: string, key: string, error: string | null, values: { full_name?: string; email?: string } = {}, fixedEmail: string | null = null): HtmlResponse {
  const err = error === null ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>\n`;
  const email = fixedEmail ?? values.email ?? '';
  const readonly = fixedEmail === null ? '' : ' readonly';
  return page(error === null ? 200 : 400, `Join ${realmName}`, `${err}<form method="post" action="${escapeHtml(inviteLink(realmUrl, key))}">
<label>Full name <input name="full_name" required value="${escapeHtml(values.full_name ?? '')}"></label><br>
<label>Email <input name="email" type="email" required${readonly} value="${escapeHtml(email)}"></label><br>
<label>Password <input name="password" type="password" required></label><br>
<button type="submit">Sign up</button>
</form>`);
}

/** Answers `GET` / `POST /join/{key}/`; counted per client IP like other unauthenticated requests (429 page past it). */
export async function handleJoin(req: ApiRequest, services: JoinServices): Promise<HtmlResponse> {
  const limit = services.rateLimits?.takeIp(req.remoteAddress);
  if (limit?.limited) {
    const limited = page(429, 'Too many requests', '<p>API usage exceeded rate limit. Try again in a moment.</p>');
    return { ...limited, headers: { ...limited.headers, ...limit.headers } };
  }
  const match = JOIN_PATH.exec(req.path);
  if (match === null) return notFound('Not Found');
  let key: string;
  try {
    key = decodeURIComponent(match[1]!);
  } catch {
    key = ''; // a malformed %-escape: a malformed link
  }
  if (key.length !== 24) return notFound('Whoops. The confirmation link is malformed.');
  const realm = services.realmForHost(req.headers.host ?? '');
  if (realm === null) return notFound('Whoops. We couldn\u2019t find that link. The link does not exist.');
  const invite = inviteByKey(realm.state, key);
  const emailInvite = invite === undefined ? emailInviteByKey(realm.state, key) : undefined;
  if (invite === undefined && emailInvite === undefined) return notFound('Whoops. We couldn\u2019t find that link. The link does not exist.');
  const nowSeconds = Date.now() / 1000;
  if (invite !== undefined ? !isInviteUsable(invite, nowSeconds) : !isEmailInviteUsable(emailInvite!, nowSeconds)) return notFound(LINK_EXPIRED);
  const fixedEmail = emailInvite?.email ?? null;
  const realmName = realm.state.settings.name;
  const form = (realmUrl: string, name: string, k: string, error: string | null, values: { full_name?: string; email?: string } = {}) =>
    signUpForm(realmUrl, name, k, error, values, fixedEmail);
  if (req.method === 'GET' || req.method === 'HEAD') return form(realm.url, realmName, key, null);
  if (req.method !== 'POST') return { status: 405, headers: { Allow: 'GET, HEAD, POST', 'Content-Type': 'text/plain' }, body: 'Method Not Allowed\n' };

  const field = (name: string) => req.body.find(([k]) => k === name)?.[1];
  const values = { full_name: field('full_name') ?? '', email: fixedEmail ?? field('email') ?? '' };
  const password = field('password') ?? '';
  if (values.full_name.trim() === '') return form(realm.url, realmName, key, 'This field is required: full name.', values);
  if (values.email.trim() === '') return form(realm.url, realmName, key, 'This field is required: email.', values);
  if (password === '') return form(realm.url, realmName, key, 'This field is required: password.', values);
  // Zulip's registration form message for a password failing check_password_strength.
  if (!isPasswordStrongEnough(password)) return form(realm.url, realmName, key, 'The password is too weak.', values);
  const passwordHash = await hashPassword(password);
  const timezone = field('timezone') ?? '';
  const result =
    emailInvite === undefined
      ? await realm.execute({ type: 'accept_multiuse_invite', key, email: values.email, fullName: values.full_name, passwordHash, timezone })
      : await realm.execute({ type: 'accept_email_invite', key, fullName: values.full_name, passwordHash, timezone });
  if (!result.ok) {
    if (result.error.message === LINK_EXPIRED) return notFound(LINK_EXPIRED);
    return form(realm.url, realmName, key, result.error.message, values);
  }
  // Zulip's registration ends logged in (`login_and_go_to_home`): a session, then the app.
  const cookies = await logIn(realm, result.value.userId);
  if (!(cookies instanceof ZulipError)) return redirect('/', cookies);
  return page(200, `Welcome to ${realmName}`, `<p>Your account ${escapeHtml(values.email.trim().toLowerCase())} has been created. Log in at <a href="${escapeHtml(realm.url)}/login/">${escapeHtml(realm.url)}/login/</a> with your email and password.</p>`);
}
