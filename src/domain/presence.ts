/**
 * Presence (https://zulip.com/api/get-presence): per user `lastActiveTime` and
 * `lastConnectedTime` (UNIX seconds) plus Zulip's FL 263 `last_update_id` counter.
 *
 * **The one exception to "only `evolve` mutates state".** Presence pings are the most frequent
 * request a server sees (every client, every 60 s), so they produce no records and cost no LMDB
 * commit. The `update_presence` handler mutates this store directly (it runs inside the realm
 * actor, one command at a time, so updates are serialized and ordered with all other events). The
 * store is persisted only in realm snapshots (the optional `presence` core field): periodically,
 * whenever the snapshot policy's time elapses with presence changes, and on graceful shutdown.
 * **A crash (kill -9) loses the presence changes since the last snapshot** — at most the last
 * seconds/minutes of "who was online", which Zulip clients tolerate (they only show presence); no
 * acknowledged message or setting is affected.
 */

/** Seconds; Zulip's `PRESENCE_UPDATE_MIN_FREQ_SECONDS`: a timestamp moves only when older than this. */
export const PRESENCE_UPDATE_MIN_FREQ_SECONDS = 55;

/** One user's presence. */
export interface PresenceEntry {
  /** UNIX seconds (integer); null until the first `active` report (reported as the user's date joined). */
  lastActiveTime: number | null;
  /** UNIX seconds (integer). */
  lastConnectedTime: number;
  /** Value of the realm's update counter when this entry last changed. */
  lastUpdateId: number;
}

/** Snapshot form of the store. */
export interface PresenceCore {
  lastUpdateId: number;
  entries: Array<[userId: number, lastActiveTime: number | null, lastConnectedTime: number, lastUpdateId: number]>;
}

/** What one `update` did. */
export interface PresenceUpdate {
  /** The entry did not exist before. */
  created: boolean;
  /** Any timestamp moved. */
  changed: boolean;
  /** Previous `lastActiveTime` (undefined when created). */
  previousActiveTime: number | null | undefined;
  entry: PresenceEntry;
}

/** The per-realm presence store (in memory; see the file comment for durability). */
export class PresenceStore {
  private readonly entries = new Map<number, PresenceEntry>();
  /** Realm-wide counter, incremented on every change (`presence_last_update_id`); -1 = none yet. */
  lastUpdateId = -1;
  /** Changed since the last snapshot was taken. */
  dirty = false;

  get(userId: number): PresenceEntry | undefined {
    return this.entries.get(userId);
  }

  /**
   * Applies one report (Zulip's `do_update_user_presence` rules): the first report creates the
   * entry (connected = now; active = now when `active`, else connected); later, connected moves to
   * now only if older than 55 s, and on `active` the active time moves to now if older than 55 s
   * (connected is bumped so that connected ≥ active). `now` is UNIX seconds.
   */
  update(userId: number, status: 'active' | 'idle', now: number): PresenceUpdate {
    const t = Math.floor(now);
    const prev = this.entries.get(userId);
    if (prev === undefined) {
      const entry: PresenceEntry = { lastActiveTime: status === 'active' ? t : null, lastConnectedTime: t, lastUpdateId: ++this.lastUpdateId };
      this.entries.set(userId, entry);
      this.dirty = true;
      return { created: true, changed: true, previousActiveTime: undefined, entry };
    }
    const previousActiveTime = prev.lastActiveTime;
    let connected = prev.lastConnectedTime;
    let active = prev.lastActiveTime;
    if (t - connected > PRESENCE_UPDATE_MIN_FREQ_SECONDS) connected = t;
    if (status === 'active' && (active === null || t - active > PRESENCE_UPDATE_MIN_FREQ_SECONDS)) {
      active = t;
      if (connected < t) connected = t;
    }
    const changed = connected !== prev.lastConnectedTime || active !== prev.lastActiveTime;
    if (changed) {
      prev.lastConnectedTime = connected;
      prev.lastActiveTime = active;
      prev.lastUpdateId = ++this.lastUpdateId;
      this.dirty = true;
    }
    return { created: false, changed, previousActiveTime, entry: prev };
  }

  /** Entries, optionally only those changed after `sinceUpdateId`. */
  *list(sinceUpdateId = -1): IterableIterator<[number, PresenceEntry]> {
    for (const pair of this.entries) if (pair[1].lastUpdateId > sinceUpdateId) yield pair;
  }

  toCore(): PresenceCore {
    return {
      lastUpdateId: this.lastUpdateId,
      entries: [...this.entries].map(([id, e]) => [id, e.lastActiveTime, e.lastConnectedTime, e.lastUpdateId]),
    };
  }

  /** Rebuilds a store from `toCore` output; undefined (an old snapshot) gives an empty store. */
  static fromCore(core: PresenceCore | undefined): PresenceStore {
    const store = new PresenceStore();
    if (core === undefined) return store;
    store.lastUpdateId = core.lastUpdateId;
    for (const [id, active, connected, updateId] of core.entries) {
      store.entries.set(id, { lastActiveTime: active, lastConnectedTime: connected, lastUpdateId: updateId });
    }
    return store;
  }
}

/** Zulip lists only users whose last connection is this recent. */
const LISTED_WITHIN_SECONDS = 14 * 24 * 3600;

/** A reportable presence row (see `events/register/presence.ts` `formatPresences`). */
export interface PresenceRowSource {
  userId: number;
  lastActiveTime: number;
  lastConnectedTime: number;
}

/**
 * The rows Zulip reports: active human users with an entry whose last connection is within 14
 * days of `now`, changed after `sinceUpdateId` (FL 263); a null active time reads as date joined.
 */
export function presenceRows(
  state: { users: ReadonlyMap<number, { isActive: boolean; isBot: boolean; dateJoined: number }>; presence: PresenceStore },
  now: number,
  sinceUpdateId = -1,
): PresenceRowSource[] {
  const rows: PresenceRowSource[] = [];
  for (const [userId, entry] of state.presence.list(sinceUpdateId)) {
    const user = state.users.get(userId);
    if (user === undefined || !user.isActive || user.isBot) continue;
    if (entry.lastConnectedTime < now - LISTED_WITHIN_SECONDS) continue;
    rows.push({ userId, lastActiveTime: entry.lastActiveTime ?? Math.floor(user.dateJoined), lastConnectedTime: entry.lastConnectedTime });
  }
  return rows;
}
