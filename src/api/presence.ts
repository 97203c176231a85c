/**
 * Presence endpoints (https://zulip.com/api/get-presence; Zulip's zerver/views/presence.py):
 *
 * - `POST /users/me/presence` — human users only; `status` active|idle, `ping_only`,
 *   `new_user_input` (accepted; parley keeps one "website" client so it changes nothing),
 *   `slim_presence`, `last_update_id` (FL 263). Runs the record-less `update_presence` command:
 *   no durable commit per ping (see `domain/presence.ts`).
 * - `GET /realm/presence` — the legacy entry (`website` + `aggregated`) of every user the caller
 *   can access whose `presence_enabled` is on (`domain/presence-visibility.ts`).
 * - `GET /users/{user_id_or_email}/presence` — one user; `aggregated.status` is `offline` when
 *   the last report is older than the offline threshold `/register` announces.
 */
import { Errors, type ZulipError } from '../errors.js';
import { findUserByEmail } from '../domain/users.js';
import { accessUserForPresence } from '../domain/access.js';
import { presenceEnabled } from '../domain/presence-visibility.js';
import type { RealmState, User } from '../domain/realm-state.js';
import { presencesWire } from '../realm/handlers/presence.js';
import { SERVER_LIMITS } from '../domain/server-limits.js';
import { formatPresences } from '../events/register/presence.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/**
 * `GET /users/{id}/presence`'s body for `target` as `viewer` sees it at `now` (UNIX seconds), or
 * its error: no such (or inactive) user and bots ({@link accessUserForPresence}), no presence data. `client`/`pushable` are stripped and the
 * aggregated status reads `offline` past the offline threshold.
 */
export function userPresenceWire(state: RealmState, viewer: User, requestedUser: User | undefined, requested: string, now: number): Record<string, unknown> | ZulipError {
  const access = accessUserForPresence(state, viewer, requestedUser);
  if (!access.ok) return access.error;
  const target = access.value;
  const entry = state.presence.get(target.id);
  // A user with presence_enabled off reports nothing (see domain/presence-visibility.ts).
  if (entry === undefined || !presenceEnabled(state, target.id)) return Errors.badRequest(`No presence data for ${requested}`);
  const row = {
    userId: target.id,
    email: 'x',
    lastActiveTime: entry.lastActiveTime ?? Math.floor(target.dateJoined),
    lastConnectedTime: entry.lastConnectedTime,
  };
  const legacy = formatPresences([row], false)['x'] as Record<'aggregated' | 'website', { status: string; timestamp: number }>;
  const website = { status: legacy.website.status, timestamp: legacy.website.timestamp };
  const aggregated = { status: legacy.aggregated.status, timestamp: legacy.aggregated.timestamp };
  if (now - aggregated.timestamp > SERVER_LIMITS.server_presence_offline_threshold_seconds) aggregated.status = 'offline';
  return { presence: { aggregated, website } };
}

const nowSeconds = () => Date.now() / 1000;

/** `POST /users/me/presence` (Zulip's zerver/views/presence.py `update_active_status_backend`). */
export const updatePresence = defineEndpoint({
  auth: 'user',
  params: {
    status: P.string({ required: true }),
    ping_only: P.bool({ default: false }),
    new_user_input: P.bool({ default: false }),
    slim_presence: P.bool({ default: false }),
    last_update_id: P.int(),
  },
  handler: async ({ realm, user, params }) => {
    if (user.isBot) return Errors.noBots();
    if (params.status !== 'active' && params.status !== 'idle') return Errors.badRequest(`Invalid status: ${params.status}`);
    return runCommand(realm, {
      type: 'update_presence',
      userId: user.id,
      status: params.status,
      pingOnly: params.ping_only,
      slim: params.slim_presence,
      ...(params.last_update_id !== undefined && { lastUpdateId: params.last_update_id }),
    }, (reply) => reply);
  },
});

/** `GET /realm/presence` (Zulip's zerver/views/presence.py `get_statuses_for_realm`). */
export const getRealmPresence = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => {
    const now = nowSeconds();
    return { presences: presencesWire(realm.state, user, now, false), server_timestamp: now };
  },
});

/**
 * `GET /users/{user_id}/presence`: by user id (Zulip's zerver/views/presence.py
 * `get_presence_backend`).
 */
export const getUserPresenceById = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) =>
    userPresenceWire(realm.state, user, realm.state.users.get(path.user_id), String(path.user_id), nowSeconds()),
});

/**
 * `GET /users/{email:string}/presence`: by email (Zulip's zerver/views/presence.py
 * `get_presence_backend`).
 */
export const getUserPresenceByEmail = defineEndpoint({
  auth: 'user',
  pathParams: { email: 'string' },
  params: {},
  handler: ({ realm, user, path }) =>
    userPresenceWire(realm.state, user, findUserByEmail(realm.state, path.email), path.email, nowSeconds()),
});

