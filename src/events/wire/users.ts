/**
 * Zulip's user object (https://zulip.com/api/get-user; Zulip's zerver/lib/users.py
 * `format_user_row`): the one serializer of a `User`, typed by the schema that checks it
 * (`UserObjectSchema`, the `realm_user` op `add` person), so a field the schema does not allow,
 * or of the wrong type, fails `tsc`.
 */
import type { Static } from 'typebox';
import { Role, type RealmState, type User } from '../../domain/realm-state.js';
import { profileDataToWire } from '../../domain/custom-profile-fields.js';
import { apiEmail, avatarUrl, canSeeDeliveryEmail, isoDate, type UserView } from '../../domain/users.js';
import type { UserObjectSchema } from '../user-schemas.js';

/** A user object (`GET /users`, `realm_user` op `add`): `UserObjectSchema`'s static type. */
export type UserObject = Static<typeof UserObjectSchema>;

/** Zulip's user object for `target` as seen by `viewer` (https://zulip.com/api/get-user). */
export function userToWire(state: RealmState, viewer: User, target: User, view: UserView): UserObject {
  const wire: UserObject = {
    email: apiEmail(target, state.host),
    user_id: target.id,
    avatar_version: target.avatarVersion,
    is_admin: target.role <= Role.admin,
    is_owner: target.role === Role.owner,
    is_guest: target.role === Role.guest,
    role: target.role,
    is_bot: target.isBot,
    full_name: target.fullName,
    timezone: target.timezone,
    is_active: target.isActive,
    date_joined: isoDate(target.dateJoined),
    delivery_email: canSeeDeliveryEmail(viewer, target) ? target.email : null,
    avatar_url: avatarUrl(target, view.clientGravatar),
  };
  if (target.isBot) {
    wire.bot_type = target.botType;
    wire.bot_owner_id = target.botOwnerId;
  } else if (view.includeCustomProfileFields) {
    wire.profile_data = profileDataToWire(state, target.id);
  }
  return wire;
}
