/**
 * The user resource (Zulip's zerver/views/users.py): reads — `GET /users/me`, `GET /users`,
 * `GET /users/{user_id}`, `GET /users/{email}` — and administration:
 * - `POST /users` (`email`, `password`, `full_name` → `{user_id}`): organization owners only —
 *   Zulip requires an administrator holding the server-granted `can_create_users`, which parley
 *   has no way to grant, so owners are treated as holding it. Checks run in Zulip's order
 *   (permission, missing arguments, account, then password strength) before the password is
 *   hashed. Password strength as Zulip (`auth/password-strength.ts`: 6–100 characters and at
 *   least 10000 zxcvbn guesses), else "The password is too weak.";
 * - `PATCH /users/{user_id}`: `full_name`, `role` (JSON int), `profile_data` (JSON
 *   `[{id, value}]`, only those keys), `new_email` (organization owners: parley treats owners as
 *   holding Zulip's server-granted `can_change_user_emails`);
 * - `DELETE /users/{user_id}`: deactivate (administrators; owners for an owner target; never the
 *   only owner);
 * - `POST /users/{user_id}/reactivate`.
 * Rules and events of the writes live in `realm/handlers/user-admin.ts`. A user's presence,
 * status and profile data have their own files (`presence.ts`, `user-status.ts`,
 * `custom-profile-fields.ts`); the caller's settings are in `settings.ts`, bots in `bots.ts`.
 */
import Type from 'typebox';
import { isSystemBot } from '../domain/system-bots.js';
import { Errors, type Result } from '../errors.js';
import { accessUserByEmail, accessUserById } from '../domain/access.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { userToWire } from '../events/wire/users.js';
import type { RealmState, User } from '../domain/realm-state.js';
import { hashPassword } from '../auth/passwords.js';
import { isPasswordStrongEnough } from '../auth/password-strength.js';
import { checkCanCreateUsers, checkNewAccount } from '../realm/handlers/user-create.js';
import { runCommand } from './run-command.js';

const listParams = {
  client_gravatar: P.bool({ default: true }),
  include_custom_profile_fields: P.bool({ default: false }),
};

/**
 * How `GET /users/{user_id}` and `GET /users/{email}` reach their target (Zulip's
 * `get_members_backend` / `get_user_by_email`): deactivated users and bots included; unknown →
 * `No such user`, inaccessible to a restricted guest → `Insufficient permission`.
 */
const READ_TARGET = { allowDeactivated: true, allowBots: true, forAdmin: false } as const;

function oneUser(state: RealmState, viewer: User, access: Result<User>, params: { client_gravatar: boolean; include_custom_profile_fields: boolean }) {
  if (!access.ok) return access.error;
  return {
    user: userToWire(state, viewer, access.value, {
      clientGravatar: params.client_gravatar,
      includeCustomProfileFields: params.include_custom_profile_fields,
    }),
  };
}

/** `GET /users/me`: the caller (Zulip's zerver/views/users.py `get_profile_backend`). */
export const getOwnUser = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => {
    const state = realm.state;
    const wire = userToWire(state, user, user, { clientGravatar: false, includeCustomProfileFields: !user.isBot });
    return { ...wire, max_message_id: state.messages.users.get(user.id)?.maxId() ?? -1 };
  },
});

/** `GET /users`: every user the caller may see (Zulip's zerver/views/users.py `get_members_backend`). */
export const getUsers = defineEndpoint({
  auth: 'user',
  params: { ...listParams, user_ids: P.json(Type.Array(Type.Integer())) },
  handler: ({ realm, user, params }) => {
    const state = realm.state;
    const view = { clientGravatar: params.client_gravatar, includeCustomProfileFields: params.include_custom_profile_fields };
    const targets =
      params.user_ids === undefined
        ? [...state.users.values()].filter((u) => !isSystemBot(u))
        : params.user_ids.map((id) => state.users.get(id)).filter((u): u is User => u !== undefined);
    return { members: targets.map((target) => userToWire(state, user, target, view)) };
  },
});

/** `GET /users/{user_id}`: one user by id (Zulip's zerver/views/users.py `get_members_backend`). */
export const getUserById = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int' },
  params: listParams,
  handler: ({ realm, user, params, path }) => oneUser(realm.state, user, accessUserById(realm.state, user, path.user_id, READ_TARGET), params),
});

/** `GET /users/{email:string}` (Zulip's zerver/views/users.py `get_user_by_email`). */
export const getUserByEmail = defineEndpoint({
  auth: 'user',
  pathParams: { email: 'string' },
  params: listParams,
  handler: ({ realm, user, params, path }) =>
    oneUser(realm.state, user, accessUserByEmail(realm.state, user, path.email, READ_TARGET), params),
});

/** `POST /users` (Zulip's zerver/views/users.py `create_user_backend`). */
export const createUser = defineEndpoint({
  auth: 'user',
  params: { email: P.string(), password: P.string(), full_name: P.string() },
  handler: async ({ realm, user, params }) => {
    const state = realm.state;
    const allowed = checkCanCreateUsers(user);
    if (!allowed.ok) return allowed.error;
    if (params.email === undefined) return Errors.missingArgument('email');
    if (params.password === undefined) return Errors.missingArgument('password');
    if (params.full_name === undefined) return Errors.missingArgument('full_name');
    const account = checkNewAccount(state, params.email, params.full_name);
    if (!account.ok) return account.error;
    if (!isPasswordStrongEnough(params.password)) return Errors.badRequest('The password is too weak.');
    const passwordHash = await hashPassword(params.password);
    return runCommand(
      realm,
      { type: 'admin_create_user', actorId: user.id, email: params.email, fullName: params.full_name, passwordHash },
      (reply) => ({ user_id: reply.userId }),
    );
  },
});

/** `PATCH /users/{user_id}` (Zulip's zerver/views/users.py `update_user_backend`). */
export const updateUser = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int' },
  params: {
    full_name: P.string(),
    role: P.int(),
    profile_data: P.json(
      Type.Array(
        Type.Object(
          { id: Type.Integer(), value: Type.Union([Type.String(), Type.Array(Type.Unknown()), Type.Null()]) },
          { additionalProperties: false },
        ),
      ),
    ),
    new_email: P.string(),
  },
  handler: ({ realm, user, params, path }) =>
    runCommand(realm, {
      type: 'update_user',
      actorId: user.id,
      userId: path.user_id,
      ...(params.full_name !== undefined && { fullName: params.full_name }),
      ...(params.role !== undefined && { role: params.role }),
      ...(params.profile_data !== undefined && { profileData: params.profile_data }),
      ...(params.new_email !== undefined && { newEmail: params.new_email }),
    }),
});

/** `DELETE /users/{user_id}` (Zulip's zerver/views/users.py `deactivate_user_backend`). */
export const deactivateUser = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'deactivate_user', actorId: user.id, userId: path.user_id }),
});

/** `POST /users/{user_id}/reactivate` (Zulip's zerver/views/users.py `reactivate_user_backend`). */
export const reactivateUser = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'reactivate_user', actorId: user.id, userId: path.user_id }),
});
