/**
 * User administration (https://zulip.com/api/update-user, https://zulip.com/api/create-user,
 * https://zulip.com/api/get-users): `update_user`
 * (`PATCH /users/{user_id}`), `deactivate_user` (`DELETE /users/{user_id}`), `reactivate_user`
 * (`POST /users/{user_id}/reactivate`), `admin_create_user` (`POST /users`) and `update_settings`
 * (`PATCH /settings`, the caller's own account) and `add_bot` (`POST /bots`).
 *
 * Check order follows Zulip's views (`update_user_backend`, `deactivate_user_backend`,
 * `reactivate_user_backend` with `access_user_by_id`): target lookup, access (administrator, or
 * the bot's owner for `PATCH`), then each change. Everything is validated before anything is
 * recorded, so a failed request changes nothing.
 *
 * Parley has no server-administrator flags: the `can_change_user_emails` permission that Zulip's
 * `new_email` needs is treated as held by organization owners (and by nobody else).
 *
 * Events (to every active user unless said otherwise), in Zulip's order:
 * - role: `realm_user` update `{user_id, role}`, then `user_group` `remove_members` /
 *   `add_members` for the role-derived system groups the user leaves / joins;
 * - full name: `realm_user` update `{user_id, full_name}` (bots: also `realm_bot` update to their
 *   owner and administrators);
 * - new email: `realm_user` update `{user_id, delivery_email}` to those who may see it, and, when
 *   the address is visible to everyone, `{user_id, new_email}` to all, then the gravatar change
 *   `{user_id, avatar_source, avatar_url, avatar_url_medium, avatar_version}`;
 * - profile data: `realm_user` update `{user_id, custom_profile_field}` per changed value;
 * - deactivation / reactivation: `realm_user` update `{user_id, is_active}`, then `user_group`
 *   member changes for every group the user (dis)appears from (deactivated users are in no group);
 *   bots also `realm_bot` update `{user_id, is_active}`. Deactivating a human deactivates their
 *   bots too. The deactivated user's open event queues are not ended (they stop authenticating).
 * Not sent (parley gap): the channel visibility (`stream` create/delete) events Zulip sends to the
 * target when a role change alters which channels they can see.
 */
import { checkPersonalSetting, personalSetting, withSettings } from '../../domain/user-settings.js';
import { DISPLAY_SETTINGS_LEGACY, NOTIFICATION_SETTINGS_LEGACY } from '../../domain/user-setting-defaults.js';
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Role, type RealmState, type RoleCode, type User } from '../../domain/realm-state.js';
import { apiEmail, checkFullName, canSeeDeliveryEmail, gravatarUrl, isValidEmail } from '../../domain/users.js';
import { isRenderable, type CustomProfileValuesChanged } from '../../domain/custom-profile-fields.js';
import { checkFieldValue } from '../../domain/custom-profile-field-checks.js';
import type { UserUpdated } from '../../domain/user-admin.js';
import { draftsClearedBySettings } from '../../domain/drafts.js';
import type { UserCreated } from '../../domain/records.js';
import { userToWire } from '../../domain/users.js';
import { createUser } from './users.js';
import { hasGroupPermission } from '../../domain/groups.js';
import { realmGroupSetting } from '../../domain/group-permissions.js';
import { renderMarkdown } from '../../markdown/render.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { RealmRecord } from '../../domain/records.js';
import type { Decision, Handler } from '../decision.js';

/** `PATCH /users/{user_id}`: absent fields are unchanged. */
export interface UpdateUser {
  type: 'update_user';
  actorId: number;
  userId: number;
  fullName?: string;
  role?: number;
  /** `[{id, value}]`; a null or empty value deletes the field's value. */
  profileData?: Array<{ id: number; value: unknown }>;
  newEmail?: string;
}

/** `DELETE /users/{user_id}`. */
export interface DeactivateUser {
  type: 'deactivate_user';
  actorId: number;
  userId: number;
}

/** `POST /users/{user_id}/reactivate`. */
export interface ReactivateUser {
  type: 'reactivate_user';
  actorId: number;
  userId: number;
}

/**
 * `POST /users`: a new member account created by an organization owner (parley's stand-in for
 * Zulip's administrator + `can_create_users`). The endpoint has checked the password's strength and
 * hashed it.
 */
export interface AdminCreateUser {
  type: 'admin_create_user';
  actorId: number;
  email: string;
  fullName: string;
  passwordHash: string;
}

/** `PATCH /settings`: the caller's own name, time zone and email visibility (absent = unchanged). */
export interface UpdateSettings {
  type: 'update_settings';
  actorId: number;
  fullName?: string;
  timezone?: string;
  emailAddressVisibility?: number;
  /** Generic personal settings by wire name (`GENERIC_USER_SETTINGS`), types already checked. */
  settings?: Record<string, string | number | boolean>;
}

/** `POST /bots`: a bot owned by the caller (parley creates generic bots, `bot_type` 1). */
export interface AddBot {
  type: 'add_bot';
  actorId: number;
  fullName: string;
  shortName: string;
  botType: number;
}

export type UserAdminCommand = UpdateUser | DeactivateUser | ReactivateUser | AdminCreateUser | UpdateSettings | AddBot;

/** Replies of the commands above. */
export interface UserAdminReplies {
  update_user: Record<string, never>;
  deactivate_user: Record<string, never>;
  reactivate_user: Record<string, never>;
  admin_create_user: { userId: number };
  update_settings: Record<string, never>;
  add_bot: { userId: number; apiKey: string; avatarUrl: string };
}

const bad = Errors.badRequest;
const ROLES: readonly number[] = [Role.owner, Role.admin, Role.moderator, Role.member, Role.guest];

/** Role-derived system groups a user with `role` is a direct member of (as register reports them). */
const ROLE_GROUPS: Readonly<Record<number, readonly string[]>> = {
  [Role.owner]: ['role:owners'],
  [Role.admin]: ['role:administrators'],
  [Role.moderator]: ['role:moderators'],
  [Role.member]: ['role:fulltimemembers', 'role:members'],
  [Role.guest]: ['role:everyone'],
};

const isAdmin = (u: User) => u.role <= Role.admin;
const isOwner = (u: User) => u.role === Role.owner;

function activeUserIds(state: RealmState): number[] {
  return [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
}

/** Whether `user` is the realm's only active human owner (Zulip's `check_last_owner`). */
export function isLastOwner(state: RealmState, user: User): boolean {
  if (!isOwner(user) || user.isBot || !user.isActive) return false;
  for (const u of state.users.values()) if (u.id !== user.id && u.isActive && !u.isBot && isOwner(u)) return false;
  return true;
}

/**
 * Zulip's `access_user_by_id(..., for_admin=True)`: "No such user" for unknown ids (and bots
 * unless allowed), "User is deactivated" unless allowed, "Insufficient permission" unless the actor
 * is an administrator or the bot's owner.
 */
function accessForAdmin(state: RealmState, actorId: number, userId: number, allow: { deactivated: boolean; bots: boolean }): Result<{ actor: User; target: User }> {
  const actor = state.users.get(actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.insufficientPermission());
  const target = state.users.get(userId);
  if (target === undefined) return fail(Errors.noSuchUser());
  if (target.isBot && !allow.bots) return fail(Errors.noSuchUser());
  if (!target.isActive && !allow.deactivated) return fail(bad('User is deactivated'));
  const ownsBot = target.isBot && target.botOwnerId === actor.id;
  if (!isAdmin(actor) && !ownsBot) return fail(Errors.insufficientPermission());
  return ok({ actor, target });
}

/** `realm_user` update event to every active user (or `userIds`). */
function personEvent(state: RealmState, person: Record<string, unknown>, userIds = activeUserIds(state)): RealmEvent {
  return { userIds, payload: { type: 'realm_user', op: 'update', person } };
}

/** Group ids (ascending) the user appears in as a direct member when active with `role`. */
function groupsOf(state: RealmState, user: User, role: number): number[] {
  const ids: number[] = [];
  for (const name of ROLE_GROUPS[role] ?? []) {
    const id = state.systemGroups.get(name);
    if (id !== undefined) ids.push(id);
  }
  for (const g of state.groups.values()) if (!g.isSystemGroup && !g.deactivated && g.directMembers.has(user.id)) ids.push(g.id);
  return ids.sort((a, b) => a - b);
}

function groupEvents(state: RealmState, op: 'add_members' | 'remove_members', groupIds: number[], userId: number, recipients: number[]): RealmEvent[] {
  return groupIds.map((groupId) => ({ userIds: recipients, payload: { type: 'user_group', op, group_id: groupId, user_ids: [userId] } }));
}

/** Validates `profile_data` into a values record (changes only), or the first error. */
function profileChanges(state: RealmState, target: User, data: Array<{ id: number; value: unknown }>): Result<CustomProfileValuesChanged> {
  const current = new Map([...(state.profileFields.values.get(target.id) ?? [])].map(([id, v]) => [id, v.value]));
  const record: CustomProfileValuesChanged = { type: 'custom_profile_values_changed', v: 1, userId: target.id, changes: [] };
  for (const item of data) {
    const field = state.profileFields.fields.get(item.id);
    if (field === undefined) return fail(bad(`Field id ${item.id} not found.`));
    if (item.value === null || item.value === '' || (Array.isArray(item.value) && item.value.length === 0)) {
      if (!current.has(field.id)) continue;
      current.delete(field.id);
      record.changes.push({ fieldId: field.id, value: null });
      continue;
    }
    const checked = checkFieldValue(state, field, item.value);
    if (!checked.ok) return fail(bad(checked.msg));
    if (current.get(field.id) === checked.value) continue;
    current.set(field.id, checked.value);
    const value = checked.value;
    record.changes.push(isRenderable(field.type) ? { fieldId: field.id, value, renderedValue: renderMarkdown(value) } : { fieldId: field.id, value });
  }
  return ok(record);
}

export const updateUser: Handler<UpdateUser, Record<string, never>> = (state, cmd) => {
  const access = accessForAdmin(state, cmd.actorId, cmd.userId, { deactivated: true, bots: true });
  if (!access.ok) return access;
  const { actor, target } = access.value;
  const update: UserUpdated = { type: 'user_updated', v: 1, userId: target.id };
  const everyone = activeUserIds(state);
  const events: RealmEvent[] = [];

  if (cmd.role !== undefined && cmd.role !== target.role) {
    if (!ROLES.includes(cmd.role)) return fail(bad('Invalid role'));
    if ((cmd.role === Role.owner || isOwner(target)) && !isOwner(actor)) return fail(Errors.mustBeOwner());
    if (!isAdmin(actor)) return fail(Errors.mustBeAdmin());
    if (isOwner(target) && isLastOwner(state, target)) {
      return fail(bad('The owner permission cannot be removed from the only organization owner.'));
    }
    update.role = cmd.role as RoleCode;
    events.push(personEvent(state, { user_id: target.id, role: cmd.role }, everyone));
    if (target.isActive) {
      const before = groupsOf(state, target, target.role).filter((id) => state.groups.get(id)!.isSystemGroup);
      const after = groupsOf(state, target, cmd.role).filter((id) => state.groups.get(id)!.isSystemGroup);
      events.push(...groupEvents(state, 'remove_members', before.filter((id) => !after.includes(id)), target.id, everyone));
      events.push(...groupEvents(state, 'add_members', after.filter((id) => !before.includes(id)), target.id, everyone));
    }
  }

  if (cmd.fullName !== undefined && cmd.fullName.trim() !== '' && cmd.fullName !== target.fullName) {
    const name = checkFullName(cmd.fullName);
    if (!name.ok) return fail(bad(name.msg));
    if (name.name !== target.fullName) {
      update.fullName = name.name;
      events.push(personEvent(state, { user_id: target.id, full_name: name.name }, everyone));
      if (target.isBot) events.push({ userIds: botWatchers(state, target), payload: { type: 'realm_bot', op: 'update', bot: { user_id: target.id, full_name: name.name } } });
    }
  }

  let values: CustomProfileValuesChanged | null = null;
  if (cmd.profileData !== undefined) {
    const changes = profileChanges(state, target, cmd.profileData);
    if (!changes.ok) return changes;
    if (changes.value.changes.length > 0) {
      values = changes.value;
      for (const c of values.changes) {
        const data: Record<string, unknown> = { id: c.fieldId, value: c.value };
        if (c.renderedValue !== undefined) data.rendered_value = c.renderedValue;
        events.push(personEvent(state, { user_id: target.id, custom_profile_field: data }, everyone));
      }
    }
  }

  if (cmd.newEmail !== undefined) {
    if (!isOwner(actor)) return fail(bad('User not authorized to change user emails'));
    const email = cmd.newEmail.trim().toLowerCase();
    if (!isValidEmail(email)) return fail(bad('Invalid address.'));
    if (email !== target.email) {
      const holder = state.usersByEmail.get(email);
      if (holder !== undefined && holder !== target.id) return fail(bad(`Email '${cmd.newEmail.trim()}' already in use`));
      update.email = email;
      const seers = everyone.filter((id) => canSeeDeliveryEmail(state.users.get(id)!, target));
      events.push(personEvent(state, { user_id: target.id, delivery_email: email }, seers));
      if (target.emailAddressVisibility === 1 || target.isBot) events.push(personEvent(state, { user_id: target.id, new_email: email }, everyone));
      // The gravatar follows the address (Zulip's `notify_avatar_url_change`).
      events.push(avatarEvent(state, target, email, everyone));
    }
  }

  const records: RealmRecord[] = [];
  if (Object.keys(update).length > 3) records.push(update);
  if (values !== null) records.push(values);
  return ok({ records, events, reply: {} });
};

/** Active administrators and the bot's owner: who sees a bot in `realm_bots` (Zulip's `bot_owner_user_ids`). */
function botWatchers(state: RealmState, bot: User): number[] {
  return activeUserIds(state).filter((id) => id === bot.botOwnerId || isAdmin(state.users.get(id)!));
}

/**
 * (De)activation of `target` and, when deactivating a human, of the active bots they own (Zulip's
 * cascade): per account a record, `realm_user` update `{user_id, is_active}` (the deactivated
 * account's own queues are not told), its group membership changes, and for bots `realm_bot`
 * update `{user_id, is_active}`.
 */
function activationDecision(state: RealmState, target: User, isActive: boolean): Decision<Record<string, never>> {
  const accounts = [target];
  if (!isActive && !target.isBot) {
    for (const u of state.users.values()) if (u.isBot && u.isActive && u.botOwnerId === target.id) accounts.push(u);
  }
  const gone = new Set(isActive ? [] : accounts.map((u) => u.id));
  const recipients = activeUserIds(state).filter((id) => !gone.has(id));
  if (isActive) recipients.push(target.id);
  recipients.sort((a, b) => a - b);
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  for (const user of accounts) {
    records.push({ type: 'user_updated', v: 1, userId: user.id, isActive });
    events.push(personEvent(state, { user_id: user.id, is_active: isActive }, recipients));
    events.push(...groupEvents(state, isActive ? 'add_members' : 'remove_members', groupsOf(state, user, user.role), user.id, recipients));
    if (user.isBot) {
      const watchers = botWatchers(state, user).filter((id) => !gone.has(id));
      if (watchers.length > 0) events.push({ userIds: watchers, payload: { type: 'realm_bot', op: 'update', bot: { user_id: user.id, is_active: isActive } } });
    }
  }
  return { records, events, reply: {} };
}

export const deactivateUser: Handler<DeactivateUser, Record<string, never>> = (state, cmd) => {
  const access = accessForAdmin(state, cmd.actorId, cmd.userId, { deactivated: false, bots: false });
  if (!access.ok) return access;
  const { actor, target } = access.value;
  if (isOwner(target) && !isOwner(actor)) return fail(Errors.mustBeOwner());
  if (isLastOwner(state, target)) return fail(bad('Cannot deactivate the only organization owner'));
  return ok(activationDecision(state, target, false));
};

export const reactivateUser: Handler<ReactivateUser, Record<string, never>> = (state, cmd) => {
  const access = accessForAdmin(state, cmd.actorId, cmd.userId, { deactivated: true, bots: true });
  if (!access.ok) return access;
  const { target } = access.value;
  if (target.isActive) return fail(bad('User is already active'));
  return ok(activationDecision(state, target, true));
};

/**
 * Permission for `POST /users` (https://zulip.com/api/create-user): administrators only (the seed's
 * "Insufficient permission", https://zulip.com/api/rest-error-handling), and Zulip's server-granted
 * `can_create_users`, which parley treats
 * as held by organization owners ("User not authorized to create users" for other administrators).
 */
export function checkCanCreateUsers(actor: User | undefined): Result<User> {
  // Administrator-only endpoint: the seed's BAD_REQUEST "Insufficient permission" (see errors.ts).
  if (actor === undefined || !actor.isActive || !isAdmin(actor)) return fail(Errors.insufficientPermission());
  if (!isOwner(actor)) return fail(bad('User not authorized to create users'));
  return ok(actor);
}

/**
 * The account validations of `POST /users` that precede the password check, in Zulip's order:
 * name (Zulip's zerver/lib/users.py `check_full_name`), "Bad name or username", "Email '<email>'
 * already in use". Parley has no domain,
 * disposable-address or `+` restrictions, so their errors never occur.
 */
export function checkNewAccount(state: RealmState, email: string, fullName: string): Result<void> {
  const name = checkFullName(fullName);
  if (!name.ok) return fail(bad(name.msg));
  const lower = email.trim().toLowerCase();
  if (!isValidEmail(lower)) return fail(bad('Bad name or username'));
  if (state.usersByEmail.has(lower)) return fail(bad(`Email '${email}' already in use`));
  return ok(undefined);
}

/**
 * The `User` a `user_created` record will produce (as `evolve` builds it), so that events about
 * the new account can be decided before the record is applied.
 */
function userFromRecord(state: RealmState, r: UserCreated): User {
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

export const adminCreateUser: Handler<AdminCreateUser, UserAdminReplies['admin_create_user']> = (state, cmd, ctx) => {
  const actor = checkCanCreateUsers(state.users.get(cmd.actorId));
  if (!actor.ok) return actor;
  const checked = checkNewAccount(state, cmd.email, cmd.fullName);
  if (!checked.ok) return checked;
  const created = createUser(state, {
    type: 'create_user', email: cmd.email, fullName: cmd.fullName, role: Role.member, passwordHash: cmd.passwordHash,
    isBot: false, botType: null, botOwnerId: null, timezone: '',
  }, ctx);
  if (!created.ok) return created;
  const record = created.value.records[0] as UserCreated;
  return ok({
    records: created.value.records,
    events: [...newUserEvents(state, record), ...created.value.events],
    reply: { userId: created.value.reply.userId },
  });
};

/** `realm_user` update for a gravatar change (Zulip's `notify_avatar_url_change`). */
function avatarEvent(state: RealmState, user: User, email: string, userIds: number[]): RealmEvent {
  const avatar = gravatarUrl(email, user.avatarVersion);
  return personEvent(state, { user_id: user.id, avatar_source: 'G', avatar_url: avatar, avatar_url_medium: `${avatar}&s=500`, avatar_version: user.avatarVersion }, userIds);
}

let zoneNames: Set<string> | undefined;
let zoneNamesLower: Map<string, string> | undefined;

/**
 * Whether `tz` is an IANA time zone name (Zulip checks membership in the tz database, so case
 * matters and '' is not a zone). Canonical names and the aliases the runtime's ICU knows
 * (`US/Eastern`, `UTC`) are accepted; a different-case spelling of a canonical name is not.
 */
export function isValidTimezone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  zoneNames ??= new Set(Intl.supportedValuesOf('timeZone'));
  zoneNamesLower ??= new Map([...zoneNames].map((z) => [z.toLowerCase(), z]));
  if (zoneNames.has(tz)) return true;
  const canonical = zoneNamesLower.get(tz.toLowerCase());
  if (canonical !== undefined) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz.split('/').every((part) => /^[A-Z0-9+\-]/.test(part));
  } catch {
    return false;
  }
}

/**
 * `PATCH /settings` (Zulip's `json_change_settings`, humans only) for `full_name`, `timezone` and
 * `email_address_visibility`, validated in that order before anything is recorded.
 * Events: name → `realm_user` `{user_id, full_name}` to all; time zone → `user_settings` update and
 * the legacy `update_display_settings` to the user, `realm_user` `{user_id, email, timezone}` to
 * all; email visibility → `user_settings` update to the user, `realm_user` `{user_id,
 * delivery_email}` to each user who gains (address) or loses (null) sight of the address, and when
 * "everyone" is involved the API email change `{user_id, new_email}` and the gravatar change to all.
 */
export const updateSettings: Handler<UpdateSettings, Record<string, never>> = (state, cmd) => {
  const user = state.users.get(cmd.actorId);
  if (user === undefined || !user.isActive) return fail(Errors.insufficientPermission());
  if (user.isBot) return fail(Errors.noBots());
  const update: UserUpdated = { type: 'user_updated', v: 1, userId: user.id };
  const everyone = activeUserIds(state);
  const events: RealmEvent[] = [];
  if (cmd.fullName !== undefined && cmd.fullName !== user.fullName) {
    const name = checkFullName(cmd.fullName);
    if (!name.ok) return fail(bad(name.msg));
    if (name.name !== user.fullName) {
      update.fullName = name.name;
      events.push(personEvent(state, { user_id: user.id, full_name: name.name }, everyone));
    }
  }
  if (cmd.timezone !== undefined) {
    if (!isValidTimezone(cmd.timezone)) return fail(bad(`Invalid timezone '${cmd.timezone}'`));
    if (cmd.timezone !== user.timezone) {
      update.timezone = cmd.timezone;
      const email = apiEmail(user, state.host);
      events.push({ userIds: [user.id], payload: { type: 'user_settings', op: 'update', property: 'timezone', value: cmd.timezone } });
      events.push({ userIds: [user.id], payload: { type: 'update_display_settings', user: email, setting_name: 'timezone', setting: cmd.timezone } });
      events.push(personEvent(state, { user_id: user.id, email, timezone: cmd.timezone }, everyone));
    }
  }
  if (cmd.emailAddressVisibility !== undefined) {
    const visibility = cmd.emailAddressVisibility;
    if (![1, 2, 3, 4, 5].includes(visibility)) return fail(bad('Invalid email_address_visibility'));
    if (visibility !== user.emailAddressVisibility) {
      update.emailAddressVisibility = visibility;
      events.push({ userIds: [user.id], payload: { type: 'user_settings', op: 'update', property: 'email_address_visibility', value: visibility } });
      const after: User = { ...user, emailAddressVisibility: visibility };
      const gained: number[] = [];
      const lost: number[] = [];
      for (const id of everyone) {
        const viewer = state.users.get(id)!;
        const could = canSeeDeliveryEmail(viewer, user);
        const can = canSeeDeliveryEmail(viewer, after);
        if (can && !could) gained.push(id);
        else if (could && !can) lost.push(id);
      }
      if (gained.length > 0) events.push(personEvent(state, { user_id: user.id, delivery_email: user.email }, gained));
      if (lost.length > 0) events.push(personEvent(state, { user_id: user.id, delivery_email: null }, lost));
      if (user.emailAddressVisibility === 1 || visibility === 1) {
        events.push(personEvent(state, { user_id: user.id, new_email: apiEmail(after, state.host) }, everyone));
        events.push(avatarEvent(state, user, user.email, everyone));
      }
    }
  }
  if (cmd.settings !== undefined) {
    const changed: Record<string, string | number | boolean> = {};
    for (const [name, value] of Object.entries(cmd.settings)) {
      const error = checkPersonalSetting(name, value);
      if (error !== null) return fail(bad(error));
      if (personalSetting(user, name) !== value) changed[name] = value;
    }
    if (Object.keys(changed).length > 0) {
      update.settings = withSettings(user, changed);
      events.push(...personalSettingEvents(state, user, changed));
    }
  }
  // Turning draft synchronisation off deletes the user's drafts, without events (Zulip's do_change_user_setting).
  const cleared = draftsClearedBySettings(state, user.id, personalSetting(user, 'enable_drafts_synchronization'), cmd.settings);
  return ok({ records: [...(Object.keys(update).length > 3 ? [update] : []), ...cleared], events, reply: {} });
};

/**
 * Events for changed personal settings (Zulip's `do_change_user_setting`): `user_settings` update
 * per property, plus the legacy `update_display_settings` / `update_global_notifications` event
 * for settings in those legacy groups.
 */
function personalSettingEvents(state: RealmState, user: User, changed: Readonly<Record<string, string | number | boolean>>): RealmEvent[] {
  const events: RealmEvent[] = [];
  const email = apiEmail(user, state.host);
  for (const [name, value] of Object.entries(changed)) {
    events.push({ userIds: [user.id], payload: { type: 'user_settings', op: 'update', property: name, value } });
    if (name in DISPLAY_SETTINGS_LEGACY) {
      events.push({ userIds: [user.id], payload: { type: 'update_display_settings', user: email, setting_name: name, setting: value } });
    } else if (name in NOTIFICATION_SETTINGS_LEGACY) {
      events.push({ userIds: [user.id], payload: { type: 'update_global_notifications', user: email, notification_name: name, setting: value } });
    }
  }
  return events;
}

/** Bot types `POST /bots` creates: generic (1). Incoming/outgoing webhook and embedded bots are not supported. */
const BOT_TYPES: readonly number[] = [1];

/** A bot as `realm_bots` and `realm_bot` events show it (matches `realmBots` in register). */
function botToWire(state: RealmState, bot: User): Record<string, unknown> {
  return {
    email: apiEmail(bot, state.host), user_id: bot.id, full_name: bot.fullName, bot_type: bot.botType, is_active: bot.isActive,
    api_key: bot.apiKey, default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false,
    owner_id: bot.botOwnerId, avatar_url: gravatarUrl(bot.email, bot.avatarVersion), services: [],
  };
}

/**
 * `POST /bots` (Zulip's `add_bot_backend`), checks in Zulip's order: guests ("Not allowed for guest
 * users"), the name (Zulip's zerver/lib/users.py `check_full_name`), the email
 * `<short_name>-bot@<realm host>` ("Bad name or username",
 * "Username already in use"), an active user with the same name ("Name is already in use!"), the
 * realm's `can_create_bots_group` ("Insufficient permission"), the bot type ("Invalid bot type").
 * Events: `realm_user` `add` and system-group `add_members` (as for any new user), then
 * `realm_bot` `add` to administrators and the owner.
 */
export const addBot: Handler<AddBot, UserAdminReplies['add_bot']> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.insufficientPermission());
  if (actor.role === Role.guest) return fail(Errors.notAllowedForGuests());
  const name = checkFullName(cmd.fullName);
  if (!name.ok) return fail(bad(name.msg));
  const email = `${cmd.shortName.trim()}-bot@${state.host}`.toLowerCase();
  if (!isValidEmail(email)) return fail(bad('Bad name or username'));
  if (state.usersByEmail.has(email)) return fail(bad('Username already in use'));
  for (const u of state.users.values()) if (u.isActive && u.fullName === name.name) return fail(bad('Name is already in use!'));
  if (!hasGroupPermission(state, actor.id, realmGroupSetting(state, 'can_create_bots_group'))) return fail(Errors.insufficientPermission());
  if (!BOT_TYPES.includes(cmd.botType)) return fail(bad('Invalid bot type'));
  const created = createUser(state, {
    type: 'create_user', email, fullName: name.name, role: Role.member, passwordHash: null,
    isBot: true, botType: cmd.botType, botOwnerId: actor.id, timezone: '',
  }, ctx);
  if (!created.ok) return created;
  const record = created.value.records[0] as UserCreated;
  const bot = userFromRecord(state, record);
  return ok({
    records: created.value.records,
    events: [
      ...newUserEvents(state, record),
      ...created.value.events,
      { userIds: botWatchers(state, bot), payload: { type: 'realm_bot', op: 'add', bot: botToWire(state, bot) } },
    ],
    reply: { userId: bot.id, apiKey: bot.apiKey, avatarUrl: gravatarUrl(bot.email, bot.avatarVersion) },
  });
};
