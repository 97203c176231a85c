/**
 * Role checks of whole endpoints (Zulip's zerver/decorator.py `require_realm_admin`): the active
 * acting user when they are a realm administrator or owner, or the refusal.
 *
 * The refusal differs by endpoint: Zulip's decorator answers `Must be an organization
 * administrator` (code `UNAUTHORIZED_PRINCIPAL`); the API contract answers `Insufficient
 * permission` (`BAD_REQUEST`) for the administrator-only endpoints it describes (custom profile
 * fields) and the project keeps that answer for channel folders.
 */
import { Errors, fail, ok, type Result, type ZulipError } from '../../errors.js';
import { Role, type User } from '../realm-state.js';

/** Zulip's `UserProfile.is_realm_admin`: administrators and owners. */
export const isRealmAdmin = (user: User): boolean => user.role <= Role.admin;

/**
 * Zulip's `require_realm_admin` for `actor`: the actor, or `No such user` (unknown or
 * deactivated actor), or `refusal()` for a non-administrator (default Zulip's `Must be an
 * organization administrator`).
 */
export function requireRealmAdmin(actor: User | undefined | null, refusal: () => ZulipError = Errors.mustBeAdmin): Result<User> {
  if (actor === undefined || actor === null || !actor.isActive) return fail(Errors.noSuchUser());
  return isRealmAdmin(actor) ? ok(actor) : fail(refusal());
}

/** Zulip's `UserProfile.is_realm_owner`. */
export const isRealmOwner = (user: User): boolean => user.role === Role.owner;

/**
 * Zulip's `require_realm_owner` (and the `OrganizationOwnerRequiredError` that `update_realm`
 * raises for owner-only settings): the actor, `No such user` (unknown or deactivated actor), or
 * UNAUTHORIZED_PRINCIPAL "Must be an organization owner".
 */
export function requireRealmOwner(actor: User | undefined | null): Result<User> {
  if (actor === undefined || actor === null || !actor.isActive) return fail(Errors.noSuchUser());
  return isRealmOwner(actor) ? ok(actor) : fail(Errors.mustBeOwner());
}

/**
 * Zulip's zerver/views/user_settings.py `set_avatar_backend` / `delete_avatar_backend` check
 * (`avatar_changes_disabled(realm) and not user_profile.is_realm_admin`): the active actor, `No
 * such user`, or "Avatar changes are disabled in this organization." for a non-administrator
 * while the realm's `avatar_changes_disabled` is set.
 */
export function accessAvatarChange(actor: User | undefined | null, avatarChangesDisabled: boolean): Result<User> {
  if (actor === undefined || actor === null || !actor.isActive) return fail(Errors.noSuchUser());
  return avatarChangesDisabled && !isRealmAdmin(actor) ? fail(Errors.avatarChangesDisabled()) : ok(actor);
}

/**
 * Zulip's zerver/decorator.py `require_non_guest_user`: the active acting user unless a guest.
 * Errors: `No such user` (unknown or deactivated actor), `Not allowed for guest users`.
 */
export function requireNonGuest(actor: User | undefined | null): Result<User> {
  if (actor === undefined || actor === null || !actor.isActive) return fail(Errors.noSuchUser());
  return actor.role === Role.guest ? fail(Errors.notAllowedForGuests()) : ok(actor);
}

/**
 * Zulip's zerver/decorator.py `require_member_or_admin`: as {@link requireNonGuest}, and bots are
 * refused too (`This endpoint does not accept bot requests.`), the guest check first as Zulip.
 */
export function requireMemberOrAdmin(actor: User | undefined | null): Result<User> {
  const human = requireNonGuest(actor);
  if (!human.ok) return human;
  return human.value.isBot ? fail(Errors.noBots()) : human;
}
