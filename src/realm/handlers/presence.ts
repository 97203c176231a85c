/**
 * `update_presence` (https://zulip.com/api/update-presence, https://zulip.com/api/get-events): a
 * user's presence report. No records and no
 * durable commit: the handler updates the realm's in-memory presence store directly — the single,
 * documented exception to "handlers are pure" (see `domain/presence.ts` for why and for what a
 * crash loses). Running it in the actor keeps updates serialized and the `presence` event ordered
 * with every other event.
 *
 * A `presence` event goes to every active user of the realm (only when it has at most 100 of them,
 * Zulip's `USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS`) when the entry is created or the user
 * "came back online": status active and the previous active time older than
 * offline threshold − ping interval − 10 s. Not on every ping.
 */
import { ok, fail, Errors } from '../../errors.js';
import { apiEmail } from '../../domain/users.js';
import { presenceEnabled, visiblePresenceRows } from '../../domain/presence-visibility.js';
import { canAccessUser } from '../../domain/access.js';
import { SERVER_LIMITS } from '../../domain/server-limits.js';
import { formatPresences, legacyPresence } from '../../events/register/presence.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import type { CommandReplies } from '../commands.js';
import type { Handler, RealmEvent } from '../decision.js';

/**
 * A presence report (`POST /users/me/presence`, zulip-behavior.md §8.1): no records; the handler
 * updates the in-memory presence store (see `domain/presence.ts`) and may emit a `presence` event.
 */
export interface UpdatePresence {
  type: 'update_presence';
  userId: number;
  status: 'active' | 'idle';
  /** Reply without `presences`. */
  pingOnly: boolean;
  slim: boolean;
  /** FL 263: only presences changed after this id; undefined = all. */
  lastUpdateId?: number;
}

/** Zulip's `USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS`. */
export const USER_LIMIT_FOR_PRESENCE_EVENTS = 100;

/** Seconds of inactivity after which an `active` report counts as coming back online. */
export const BACK_ONLINE_AFTER_SECONDS =
  SERVER_LIMITS.server_presence_offline_threshold_seconds - SERVER_LIMITS.server_presence_ping_interval_seconds - 10;

/**
 * `presences` (legacy or slim) that `viewer` sees as of `now` (`domain/presence-visibility.ts`:
 * accessible users with presence enabled), optionally only changes after `since`.
 */
export function presencesWire(state: RealmState, viewer: User, now: number, slim: boolean, since = -1): Record<string, unknown> {
  const rows = visiblePresenceRows(state, viewer, now, since).map((r) => ({ ...r, email: apiEmail(state.users.get(r.userId)!, state.host) }));
  return formatPresences(rows, slim);
}

export const updatePresence: Handler<UpdatePresence, CommandReplies['update_presence']> = (state, cmd, ctx) => {
  const user = state.users.get(cmd.userId);
  if (user === undefined || !user.isActive) return fail(Errors.noSuchUser());
  if (user.isBot) return fail(Errors.noBots());
  const now = ctx.now();
  // Zulip's update_active_status_backend records nothing for a user with presence_enabled off.
  if (!presenceEnabled(state, user.id)) {
    return ok({ records: [], events: [], reply: cmd.pingOnly ? {} : { presences: presencesWire(state, user, now, cmd.slim, cmd.lastUpdateId ?? -1), server_timestamp: now, presence_last_update_id: state.presence.lastUpdateId } });
  }
  const update = state.presence.update(user.id, cmd.status, now);
  const previous = update.previousActiveTime;
  const backOnline =
    cmd.status === 'active' && update.changed && (previous === null || previous === undefined || Math.floor(now) - previous > BACK_ONLINE_AFTER_SECONDS);
  const events: RealmEvent[] = [];
  if (update.created || backOnline) {
    // Zulip sends presence only to those who can access the user (get_user_ids_who_can_access_user).
    const recipients = [...state.users.values()].filter((u) => u.isActive && !u.isBot && canAccessUser(state, u, user.id)).map((u) => u.id);
    if (recipients.length <= USER_LIMIT_FOR_PRESENCE_EVENTS) {
      const email = apiEmail(user, state.host);
      const row = { userId: user.id, email, lastActiveTime: update.entry.lastActiveTime ?? Math.floor(user.dateJoined), lastConnectedTime: update.entry.lastConnectedTime };
      const formatted = legacyPresence(row);
      events.push({
        userIds: recipients,
        payload: { type: 'presence', user_id: user.id, email, server_timestamp: now, presence: { website: formatted.website } },
      });
    }
  }
  if (cmd.pingOnly) return ok({ records: [], events, reply: {} });
  const reply = {
    presences: presencesWire(state, user, now, cmd.slim, cmd.lastUpdateId ?? -1),
    server_timestamp: now,
    presence_last_update_id: state.presence.lastUpdateId,
  };
  return ok({ records: [], events, reply });
};
