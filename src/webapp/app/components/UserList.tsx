/**
 * The user list (right sidebar) with presence: active (seen in the last 140 s, Zulip's
 * `OFFLINE_THRESHOLD_SECS`), idle, or offline, from `presences` and `presence` events. Clicking
 * a user opens the direct-message narrow with them.
 */
import { me, presence, users } from '../state.js';
import { go } from './Sidebar.js';

/** Zulip's presence thresholds (`web/src/presence.ts`): offline after 140 s without a report. */
const OFFLINE_THRESHOLD_SECONDS = 140;

/** A user's presence status at `nowSeconds`. */
export function presenceStatus(p: { active: number; idle: number } | undefined, nowSeconds: number): 'active' | 'idle' | 'offline' {
  if (p === undefined) return 'offline';
  if (nowSeconds - p.active < OFFLINE_THRESHOLD_SECONDS) return 'active';
  if (nowSeconds - p.idle < OFFLINE_THRESHOLD_SECONDS) return 'idle';
  return 'offline';
}

export function UserList() {
  const now = Date.now() / 1000;
  const rank = { active: 0, idle: 1, offline: 2 };
  const people = [...users.value.values()]
    .filter((u) => !u.is_bot && u.is_active !== false)
    .map((u) => ({ user: u, status: u.user_id === me.value.userId ? ('active' as const) : presenceStatus(presence.value.get(u.user_id), now) }))
    .sort((a, b) => rank[a.status] - rank[b.status] || a.user.full_name.localeCompare(b.user.full_name));
  return (
    <aside class="user-list" aria-label="Users">
      <h2 class="sidebar-heading">Users</h2>
      <ul>
        {people.map(({ user, status }) => (
          <li key={user.user_id}>
            <button type="button" onClick={() => go([{ operator: 'dm', operand: user.email }])} title={user.email}>
              <span class={`presence presence-${status}`} role="img" aria-label={status} />
              {user.full_name}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
