/**
 * Organization-level roles: Zulip's `require_realm_admin` / `require_realm_owner` decorators
 * (zerver/decorator.py) and the owner-only organization settings of `update_realm`
 * (zerver/views/realm.py). One answer each, shared by every endpoint and handler that needs it.
 */
import { Errors, type ZulipError } from '../../errors.js';
import { Role, type User } from '../realm-state.js';

/** Whether `user` is an active organization administrator or owner (Zulip's `is_realm_admin`). */
export function isRealmAdmin(user: User | null | undefined): user is User {
  return user !== null && user !== undefined && user.isActive && user.role <= Role.admin;
}

/** Whether `user` is an active organization owner (Zulip's `is_realm_owner`). */
export function isRealmOwner(user: User | null | undefined): user is User {
  return user !== null && user !== undefined && user.isActive && user.role === Role.owner;
}

/**
 * Zulip's `require_realm_admin`: null for administrators and owners, else
 * UNAUTHORIZED_PRINCIPAL "Must be an organization administrator".
 */
export function requireRealmAdmin(user: User | null | undefined): ZulipError | null {
  return isRealmAdmin(user) ? null : Errors.mustBeAdmin();
}

/**
 * Zulip's `require_realm_owner` (and the `OrganizationOwnerRequiredError` raised by
 * `update_realm` for owner-only settings): null for owners, else UNAUTHORIZED_PRINCIPAL
 * "Must be an organization owner".
 */
export function requireRealmOwner(user: User | null | undefined): ZulipError | null {
  return isRealmOwner(user) ? null : Errors.mustBeOwner();
}
