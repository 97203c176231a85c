/**
 * User administration (seed §4.12, zulip-behavior.md §11.5–11.7): `update_user`
 * (`PATCH /users/{user_id}`), `deactivate_user` (`DELETE /users/{user_id}`) and `reactivate_user`
 * (`POST /users/{user_id}/reactivate`). New accounts are `user-create.ts`; the caller's own
 * settings `user-settings.ts`.
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
 *   the address is visible to everyone, `{user_id, new_email}` to all, then, for a gravatar user
 *   (not with an uploaded avatar), the gravatar change
 *   `{user_id, avatar_source, avatar_url, avatar_url_medium, avatar_version}`;
 * - profile data: `realm_user` update `{user_id, custom_profile_field}` per changed value;
 * - deactivation / reactivation: `realm_user` update `{user_id, is_active}`, then `user_group`
 *   member changes for every group the user (dis)appears from (deactivated users are in no group);
 *   bots also `realm_bot` update `{user_id, is_active}`. Deactivating a human deactivates their
 *   bots too. The deactivated user's open event queues are not ended (they stop authenticating).
 * Not sent (parley gap): the channel visibility (`stream` create/delete) events Zulip sends to the
 * target when a role change alters which channels they can see.
 */
import { endUserSessions } from '../../domain/sessions.js';
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Role, type RealmState, type RoleCode, type User } from '../../domain/realm-state.js';
import { checkFullName, canSeeDeliveryEmail, isValidEmail } from '../../domain/users.js';
import { isRenderable, type CustomProfileValuesChanged } from '../../domain/custom-profile-fields.js';
import { checkFieldValue } from '../../domain/custom-profile-field-checks.js';
import type { UserUpdated } from '../../domain/user-admin.js';
import type { RealmRecord } from '../../domain/records.js';
import { accessUserById, isRealmAdmin } from '../../domain/access.js';
import { renderMarkdown } from '../../markdown/render.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Decision, Handler } from '../decision.js';
import { activeUserIds, avatarEvent, botWatchers, groupEvents, groupsOf, personEvent } from './user-events.js';

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

export type UserAdminCommand = UpdateUser | DeactivateUser | ReactivateUser;

/** Replies of the commands above. */
export interface UserAdminReplies {
  update_user: Record<string, never>;
  deactivate_user: Record<string, never>;
  reactivate_user: Record<string, never>;
}

const bad = Errors.badRequest;
const ROLES: readonly number[] = [Role.owner, Role.admin, Role.moderator, Role.member, Role.guest];
const isOwner = (u: User) => u.role === Role.owner;

/** Whether `user` is the realm's only active human owner (Zulip's `check_last_owner`). */
export function isLastOwner(state: RealmState, user: User): boolean {
  if (!isOwner(user) || user.isBot || !user.isActive) return false;
  for (const u of state.users.values()) if (u.id !== user.id && u.isActive && !u.isBot && isOwner(u)) return false;
  return true;
}

/**
 * Zulip's `access_user_by_id(..., for_admin=True)` for an active actor: "No such user" for unknown
 * ids (and bots unless allowed), "User is deactivated" unless allowed, "Insufficient permission"
 * unless the actor is an administrator or the bot's owner. An unknown or deactivated actor gets
 * "Insufficient permission".
 */
function accessForAdmin(state: RealmState, actorId: number, userId: number, allow: { deactivated: boolean; bots: boolean }): Result<{ actor: User; target: User }> {
  const actor = state.users.get(actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.insufficientPermission());
  const target = accessUserById(state, actor, userId, { allowDeactivated: allow.deactivated, allowBots: allow.bots, forAdmin: true });
  return target.ok ? ok({ actor, target: target.value }) : target;
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
    if (!isRealmAdmin(actor)) return fail(Errors.mustBeAdmin());
    // Seed §4.12/§7 (no Zulip equivalent): a guest is never promoted straight to administrator.
    if (target.role === Role.guest && cmd.role === Role.admin) return fail(Errors.guestCannotBeAdmin());
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
        const data: { id: number; value: string | null; rendered_value?: string } = { id: c.fieldId, value: c.value };
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
      // A gravatar follows the address (Zulip's do_change_user_delivery_email: `notify_avatar_url_change`
      // only for avatar_source "G"); an uploaded avatar stays as it is.
      if (target.avatar === undefined) events.push(avatarEvent(state, target, email, everyone));
    }
  }

  const records: RealmRecord[] = [];
  if (Object.keys(update).length > 3) records.push(update);
  if (values !== null) records.push(values);
  return ok({ records, events, reply: {} });
};

/**
 * (De)activation of `target` and, when deactivating a human, of the active bots they own (Zulip's
 * cascade): per account a record, `realm_user` update `{user_id, is_active}` (the deactivated
 * account's own queues are not told), its group membership changes, and for bots `realm_bot`
 * update `{user_id, is_active}`.
 */
export function activationDecision(state: RealmState, target: User, isActive: boolean): Decision<Record<string, never>> {
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
    // Zulip's do_deactivate_user → delete_user_sessions: a deactivated account keeps no web session.
    if (!isActive) records.push(...endUserSessions(state, user.id));
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

