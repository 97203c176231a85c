/**
 * Client-side folds of `realm_user` add and administrative updates into a register state, as
 * Zulip's `apply_event` does; used by `event-folds.ts`.
 */
type Json = Record<string, any>;

/**
 * Zulip's apply_event for `realm_user` add: the person joins `realm_users` (sorted by id here, as
 * register sorts) without `is_active`; with `client_gravatar` (seen here as a null avatar_url on any
 * other user with a public email) a gravatar URL becomes null.
 */
export function applyRealmUserAdd(state: Json, person: Json): void {
  const users = state.realm_users as Json[] | undefined;
  if (users === undefined) return;
  const added = structuredClone(person);
  delete added.is_active;
  const clientGravatar = users.some((u) => u.avatar_url === null);
  const publicEmail = added.delivery_email !== null && added.email === added.delivery_email;
  if (clientGravatar && publicEmail && typeof added.avatar_url === 'string' && added.avatar_url.startsWith('https://secure.gravatar.com/')) added.avatar_url = null;
  users.push(added);
  users.sort((a, b) => a.user_id - b.user_id);
}

/**
 * Zulip's apply_event for the `realm_user` update forms of user administration: `full_name`,
 * `role` (with `is_admin`/`is_owner`/`is_guest`), `timezone`, `delivery_email`, `new_email`
 * (the API `email`), `is_active` (moves the person between `realm_users` and
 * `realm_non_active_users`, kept sorted by id), and the current user's own keys.
 */
export function applyRealmUserAdminUpdate(state: Json, person: Json, user: { id: number }): void {
  const roleKeys = (role: number) => ({ role, is_admin: role <= 200, is_owner: role === 100, is_guest: role === 600 });
  const lists = ['realm_users', 'realm_non_active_users'].filter((k) => Array.isArray(state[k]));
  for (const key of lists) {
    for (const p of state[key] as Json[]) {
      if (p.user_id !== person.user_id) continue;
      if ('full_name' in person) p.full_name = person.full_name;
      if ('role' in person) Object.assign(p, roleKeys(person.role));
      if ('timezone' in person) p.timezone = person.timezone;
      if ('delivery_email' in person) p.delivery_email = person.delivery_email;
      if ('new_email' in person) p.email = person.new_email;
      if ('avatar_version' in person) p.avatar_version = person.avatar_version;
      if ('bot_owner_id' in person) p.bot_owner_id = person.bot_owner_id;
      // Zulip's apply_event respects client_gravatar (seen here as a null avatar_url on any user):
      // a gravatar of a user whose email is public (not `user<id>@…`) becomes null.
      if ('avatar_url' in person) {
        const clientGravatar = lists.some((k) => (state[k] as Json[]).some((u) => u.avatar_url === null));
        const publicEmail = !String(p.email).startsWith(`user${p.user_id}@`);
        p.avatar_url = clientGravatar && publicEmail && String(person.avatar_url).startsWith('https://secure.gravatar.com/') ? null : person.avatar_url;
      }
    }
  }
  if ('is_active' in person && lists.length === 2) {
    const from = (person.is_active ? state.realm_non_active_users : state.realm_users) as Json[];
    const to = (person.is_active ? state.realm_users : state.realm_non_active_users) as Json[];
    const i = from.findIndex((p) => p.user_id === person.user_id);
    if (i >= 0) {
      to.push(...from.splice(i, 1));
      to.sort((a, b) => a.user_id - b.user_id);
    }
  }
  if (person.user_id === user.id && 'user_id' in state) {
    if ('full_name' in person) state.full_name = person.full_name;
    if ('delivery_email' in person) state.delivery_email = person.delivery_email;
    if ('new_email' in person) state.email = person.new_email;
    if ('avatar_url' in person && 'avatar_url' in state) Object.assign(state, { avatar_url: person.avatar_url, avatar_url_medium: person.avatar_url_medium });
    if ('avatar_source' in person && 'avatar_source' in state) state.avatar_source = person.avatar_source;
    if ('role' in person) {
      const { is_admin, is_owner, is_guest } = roleKeys(person.role);
      Object.assign(state, { is_admin, is_owner, is_guest, is_moderator: person.role <= 300 });
    }
  }
}
