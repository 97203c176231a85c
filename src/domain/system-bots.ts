/**
 * System bots (Zulip's cross-realm bots `notification-bot@zulip.com` and `welcome-bot@zulip.com`,
 * `settings.INTERNAL_BOTS`). parley keeps one of each per realm as a bot account marked
 * `User.systemBot`; clients see them in `cross_realm_bots` (with `is_system_bot: true`), never in
 * `realm_users`, `GET /users` or system groups' member lists.
 */
import type { RealmState, User } from './realm-state.js';

export type SystemBotKind = 'notification' | 'welcome';

/** Email and name of each system bot, as Zulip's. */
export const SYSTEM_BOTS: Readonly<Record<SystemBotKind, { email: string; fullName: string }>> = {
  notification: { email: 'notification-bot@zulip.com', fullName: 'Notification Bot' },
  welcome: { email: 'welcome-bot@zulip.com', fullName: 'Welcome Bot' },
};

/** The realm's system bot of this kind, or undefined before its first use. */
export function systemBot(state: RealmState, kind: SystemBotKind): User | undefined {
  const id = state.usersByEmail.get(SYSTEM_BOTS[kind].email);
  const user = id === undefined ? undefined : state.users.get(id);
  return user?.systemBot === kind ? user : undefined;
}

/** True for system bots (which are not realm members from clients' point of view). */
export function isSystemBot(user: User): boolean {
  return user.systemBot !== undefined;
}
