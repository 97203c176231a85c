/**
 * `POST /fetch_api_key` (https://zulip.com/api/fetch-api-key): password login that returns the
 * user's API key. Unauthenticated; the realm comes from the Host header. Password checks run on
 * argon2's thread pool, outside the realm actor. Failed attempts are rate-limited per username
 * (5 per 30 minutes, Zulip's `authenticate_by_username`).
 */
import { Errors, ZulipError } from '../errors.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { User } from '../domain/realm-state.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { isValidEmail } from '../domain/users.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { randomToken } from '../auth/api-keys.js';
import { FailureLimiter } from './rate-limit.js';
import { log } from '../log.js';
import { rateLimitHits } from '../metrics.js';

/** Zulip's `authenticate_by_username` rule: 5 failures per 1800 s. */
export const loginLimiter = new FailureLimiter(5, 1800);

/** A hash verified when the user does not exist, so response timing does not reveal it. */
let dummyHash: Promise<string> | undefined;
const getDummyHash = () => (dummyHash ??= hashPassword(randomToken(32)));

/**
 * Checks a username (delivery email) and password against `realm` (Zulip's
 * `authenticate_by_username` + `EmailAuthBackend`), for `POST /fetch_api_key` and the login form.
 * Returns the user, or: 400 "Enter a valid email address." for a malformed username; 429
 * RATE_LIMIT_HIT after 5 failures in 30 minutes (`loginLimiter`); 401 USER_DEACTIVATED,
 * REALM_DEACTIVATED; 401 AUTHENTICATION_FAILED for an unknown user, a bot or a wrong password
 * (timing does not reveal which: a dummy hash is verified for unknown users).
 */
export async function authenticateByPassword(realm: RealmHandle, rawUsername: string, password: string, remoteAddress: string): Promise<User | ZulipError> {
  const username = rawUsername.trim().toLowerCase();
  if (!isValidEmail(username)) return Errors.invalidEmailAddress();
  const retryAfter = loginLimiter.blockedFor(username);
  if (retryAfter > 0) {
    rateLimitHits.inc({ domain: 'authenticate_by_username' });
    return Errors.rateLimited(retryAfter);
  }
  const userId = realm.state.usersByEmail.get(username);
  const user = userId === undefined ? undefined : realm.state.users.get(userId);
  if (user !== undefined && !user.isActive) return Errors.userDeactivated();
  if (realm.state.settings.deactivated) return Errors.realmDeactivated();
  const valid = await verifyPassword(user?.passwordHash ?? (await getDummyHash()), password);
  if (user === undefined || user.passwordHash === null || !valid) {
    loginLimiter.fail(username);
    log.warn({ event: 'login_failed', realm: realm.subdomain, username, ip: remoteAddress }, 'failed login');
    return Errors.authenticationFailed();
  }
  loginLimiter.clear(username);
  return user;
}

/**
 * `POST /fetch_api_key`: exchanges a username and password for the API key (Zulip's
 * zerver/views/auth.py `api_fetch_api_key`). Never served under `/json` (`web: false`).
 */
export const fetchApiKey = defineEndpoint({
  auth: 'none',
  web: false,
  params: { username: P.string({ required: true }), password: P.string({ required: true }) },
  handler: async ({ realm, params, remoteAddress }) => {
    if (realm === null) return Errors.invalidSubdomain();
    const user = await authenticateByPassword(realm, params.username, params.password, remoteAddress);
    if (user instanceof ZulipError) return user;
    return { api_key: user.apiKey, email: user.email, user_id: user.id };
  },
});
