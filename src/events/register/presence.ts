/**
 * `presences` in `POST /register` (https://zulip.com/api/get-presence). Two formats:
 *
 * - legacy (default), keyed by the user's API email:
 *   `{aggregated: {client: "website", status, timestamp}, website: {client: "website", status,
 *   timestamp, pushable: false}}` where status is `active` when
 *   `last_active_time + 70 s >= last_connected_time` (timestamp = last active), else `idle`
 *   (timestamp = last connected);
 * - slim (`slim_presence=true`), keyed by the user id as a string:
 *   `{active_timestamp, idle_timestamp}` (= last active, last connected).
 *
 * Timestamps are integer UNIX seconds. Bots never appear. parley has no presence store yet, so
 * the register state passes no rows; this formatter is the one the presence feature will feed.
 */
import type { EventPayloadOf } from '../schemas.js';

/** One user's presence record. */
export interface PresenceRow {
  userId: number;
  /** API email (legacy format key). */
  email: string;
  /** UNIX seconds. */
  lastActiveTime: number;
  /** UNIX seconds. */
  lastConnectedTime: number;
}

/** `PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS`. */
const ACTIVE_OFFSET_SECONDS = 70;

/** One user's presence in the legacy format: `website` is also what a `presence` event carries. */
export interface LegacyPresence {
  aggregated: { client: 'website'; status: 'active' | 'idle'; timestamp: number };
  website: EventPayloadOf<'presence'>['presence']['website'];
}

/** `row` in the legacy format. */
export function legacyPresence(row: PresenceRow): LegacyPresence {
  const active = Math.floor(row.lastActiveTime);
  const connected = Math.floor(row.lastConnectedTime);
  const isActive = active + ACTIVE_OFFSET_SECONDS >= connected;
  const status = isActive ? 'active' : 'idle';
  const timestamp = isActive ? active : connected;
  return {
    aggregated: { client: 'website', status, timestamp },
    website: { client: 'website', status, timestamp, pushable: false },
  };
}

/** The `presences` object for `rows` in the requested format. */
export function formatPresences(rows: readonly PresenceRow[], slim: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const row of rows) {
    if (slim) {
      out[String(row.userId)] = { active_timestamp: Math.floor(row.lastActiveTime), idle_timestamp: Math.floor(row.lastConnectedTime) };
    } else {
      out[row.email] = legacyPresence(row);
    }
  }
  return out;
}
