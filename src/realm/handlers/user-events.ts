/**
 * Events and helpers shared by the user handlers (`user-admin.ts`, `user-create.ts`,
 * `user-settings.ts`; Zulip's zerver/actions/create_user.py `notify_created_user`,
 * zerver/actions/user_settings.py `notify_avatar_url_change`, zerver/lib/users.py
 * `bot_owner_user_ids`): who is told about a user change, and the payloads.
 */
import { Role, type RealmState, type User } from '../../domain/realm-state.js';
import type { UserCreated } from '../../domain/records.js';
import { avatarUrl, avatarUrlMedium, canSeeDeliveryEmail, gravatarUrl } from '../../domain/users.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import { userToWire } from '../../events/wire/users.js';
import type { RealmEvent } from '../../events/realm-event.js';

/** Role-derived system groups a user with `role` is a direct member of (as register reports them). */
export const ROLE_GROUPS: Readonly<Record<number, readonly string[]>> = {
  [Role.owner]: ['role:owners'],
  [Role.admin]: ['role:administrators'],
  [Role.moderator]: ['role:moderators'],
  [Role.member]: ['role:fulltimemembers', 'role:members'],
  [Role.guest]: ['role:everyone'],
};

/** The `person` of a `realm_user` op `update` event: one of the forms its schema lists. */
export type PersonUpdate = Extract<EventPayloadOf<'realm_user'>, { op: 'update' }>['person'];

/** Active user ids of the realm, ascending by id as the state holds them. */
export function activeUserIds(state: RealmState): number[] {
  return [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
}

/** `realm_user` update event to every active user (or `userIds`). */
export function personEvent(state: RealmState, person: PersonUpdate, userIds = activeUserIds(state)): RealmEvent {
  return { userIds, payload: { type: 'realm_user', op: 'update', person } };
}

/** Group ids (ascending) the user appears in as a direct member when active with `role`. */
export function groupsOf(state: RealmState, user: User, role: number): number[] {
  const ids: number[] = [];
  for (const name of ROLE_GROUPS[role] ?? []) {
    const id = state.systemGroups.get(name);
    if (id !== undefined) ids.push(id);
  }
  for (const g of state.groups.values()) if (!g.isSystemGroup && !g.deactivated && g.directMembers.has(user.id)) ids.push(g.id);
  return ids.sort((a, b) => a - b);
}

export function groupEvents(state: RealmState, op: 'add_members' | 'remove_members', groupIds: number[], userId: number, recipients: number[]): RealmEvent[] {
  return groupIds.map((groupId) => ({ userIds: recipients, payload: { type: 'user_group', op, group_id: groupId, user_ids: [userId] } }));
}

/** Active administrators and the bot's owner: who sees a bot in `realm_bots` (Zulip's `bot_owner_user_ids`). */
export function botWatchers(state: RealmState, bot: User): number[] {
  return activeUserIds(state).filter((id) => id === bot.botOwnerId || state.users.get(id)!.role <= Role.admin);
}

/**
 * `realm_user` update of `user`'s avatar URL as it is with address `email` (Zulip's
 * `notify_avatar_url_change`): the gravatar of `email`, or the uploaded avatar (`avatar_source` "U").
 */
export function avatarEvent(state: RealmState, user: User, email: string, userIds: number[]): RealmEvent {
  if (user.avatar !== undefined) {
    // An uploaded avatar does not depend on the address (Zulip keeps avatar_source "U").
    const after: User = { ...user, email };
    return personEvent(state, { user_id: user.id, avatar_source: 'U', avatar_url: avatarUrl(after, false)!, avatar_url_medium: avatarUrlMedium(after), avatar_version: user.avatarVersion }, userIds);
  }
  const avatar = gravatarUrl(email, user.avatarVersion);
  return personEvent(state, { user_id: user.id, avatar_source: 'G', avatar_url: avatar, avatar_url_medium: `${avatar}&s=500`, avatar_version: user.avatarVersion }, userIds);
}

/**
 * The `User` a `user_created` record will produce (as `evolve` builds it), so that events about
 * the new account can be decided before the record is applied.
 */
export function userFromRecord(state: RealmState, r: UserCreated): User {
  return {
    id: r.id, email: r.email, fullName: r.fullName, role: r.role, isActive: true, isBot: r.isBot, botType: r.botType,
    botOwnerId: r.botOwnerId, dateJoined: r.dateJoined, timezone: r.timezone, avatarVersion: 1, apiKey: r.apiKey,
    passwordHash: r.passwordHash, emailAddressVisibility: state.settings.emailAddressVisibility,
  };
}

/**
 * Events announcing a new account to every active user (Zulip's `notify_created_user` and system
 * group membership): `realm_user` `add` with the full user object (`client_gravatar` off,
 * `profile_data` `{}`), in two variants — with `delivery_email` for those allowed to see it, null
 * for the others — then `user_group` `add_members` for its role-derived system groups.
 */
export function newUserEvents(state: RealmState, record: UserCreated): RealmEvent[] {
  const user = userFromRecord(state, record);
  const everyone = activeUserIds(state);
  const view = { clientGravatar: false, includeCustomProfileFields: !user.isBot };
  const seers: number[] = [];
  const others: number[] = [];
  for (const id of everyone) (canSeeDeliveryEmail(state.users.get(id)!, user) ? seers : others).push(id);
  const events: RealmEvent[] = [];
  for (const group of [seers, others]) {
    if (group.length === 0) continue;
    const person = userToWire(state, state.users.get(group[0]!)!, user, view);
    if (!user.isBot) person.profile_data = {};
    events.push({ userIds: group, payload: { type: 'realm_user', op: 'add', person } });
  }
  const groups = (ROLE_GROUPS[user.role] ?? []).map((name) => state.systemGroups.get(name)).filter((id): id is number => id !== undefined);
  events.push(...groupEvents(state, 'add_members', groups.sort((a, b) => a - b), user.id, everyone));
  return events;
}

