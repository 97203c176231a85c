/**
 * User administration endpoints (https://zulip.com/api/update-user,
 * https://zulip.com/api/create-user, https://zulip.com/api/get-users):
 * - `PATCH /users/{user_id}`: `full_name`, `role` (JSON int), `profile_data` (JSON
 *   `[{id, value}]`, only those keys), `new_email` (organization owners: parley treats owners as
 *   holding Zulip's server-granted `can_change_user_emails`);
 * - `DELETE /users/{user_id}`: deactivate (administrators; owners for an owner target; never the
 *   only owner);
 * - `POST /users/{user_id}/reactivate`;
 * - `POST /users` (`email`, `password`, `full_name` → `{user_id}`): organization owners only —
 *   Zulip requires an administrator holding the server-granted `can_create_users`, which parley
 *   has no way to grant, so owners are treated as holding it. Checks run in Zulip's order
 *   (permission, missing arguments, account, then password strength) before the password is
 *   hashed. Password strength as Zulip (`auth/password-strength.ts`: 6–100 characters and at
 *   least 10000 zxcvbn guesses), else "The password is too weak.";
 * - `PATCH /settings` (the caller's own account, humans only): `full_name`, `timezone`,
 *   `email_address_visibility` and every generic personal setting (`domain/user-settings.ts`:
 *   typed after its default, enumerations checked); `presence_enabled` (kept by user status)
 *   and unknown names are reported in `ignored_parameters_unsupported`;
 * - `POST /bots` (`full_name`, `short_name`, `bot_type` default 1): generic bots with API keys,
 *   answering `{user_id, api_key, avatar_url, default_sending_stream,
 *   default_events_register_stream, default_all_public_streams}`. Other bot types, services,
 *   default channels and avatar uploads are not supported.
 * Rules and events live in `realm/handlers/user-admin.ts`.
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { hashPassword } from '../auth/passwords.js';
import { isPasswordStrongEnough } from '../auth/password-strength.js';
import { checkCanCreateUsers, checkNewAccount } from '../realm/handlers/user-admin.js';
import type { Command } from '../realm/commands.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P, type ParamSpec } from './params.js';
import { GENERIC_USER_SETTINGS } from '../domain/user-settings.js';

/** `PATCH /settings` parameters of the generic personal settings, typed after their defaults. */
const GENERIC_SETTING_PARAMS: Record<string, ParamSpec<string | number | boolean, true>> = Object.fromEntries(
  Object.entries(GENERIC_USER_SETTINGS).map(([name, value]) => [
    name,
    (typeof value === 'boolean' ? P.bool() : typeof value === 'number' ? P.int() : P.string()) as ParamSpec<string | number | boolean, true>,
  ]),
);


export const userAdminEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/bots',
    auth: 'user',
    params: { full_name: P.string({ required: true }), short_name: P.string({ required: true }), bot_type: P.int({ default: 1 }) },
    handler: async ({ realm, user, params }) => {
      return runCommand(
        realm!,
        { type: 'add_bot', actorId: user!.id, fullName: params.full_name, shortName: params.short_name, botType: params.bot_type },
        ({ userId, apiKey, avatarUrl }) => ({
          user_id: userId,
          api_key: apiKey,
          avatar_url: avatarUrl,
          default_sending_stream: null,
          default_events_register_stream: null,
          default_all_public_streams: false,
        }),
      );
    },
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/settings',
    auth: 'user',
    params: { full_name: P.string(), timezone: P.string(), email_address_visibility: P.int(), ...GENERIC_SETTING_PARAMS },
    handler: ({ realm, user, params }) => {
      const settings: Record<string, string | number | boolean> = {};
      for (const name of Object.keys(GENERIC_SETTING_PARAMS)) {
        const value = (params as Record<string, string | number | boolean | undefined>)[name];
        if (value !== undefined) settings[name] = value;
      }
      return runCommand(realm!, {
        type: 'update_settings',
        actorId: user!.id,
        ...(params.full_name !== undefined && { fullName: params.full_name }),
        ...(params.timezone !== undefined && { timezone: params.timezone }),
        ...(params.email_address_visibility !== undefined && { emailAddressVisibility: params.email_address_visibility }),
        ...(Object.keys(settings).length > 0 && { settings }),
      });
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/users',
    auth: 'user',
    params: { email: P.string(), password: P.string(), full_name: P.string() },
    handler: async ({ realm, user, params }) => {
      const state = realm!.state;
      const allowed = checkCanCreateUsers(user!);
      if (!allowed.ok) return allowed.error;
      if (params.email === undefined) return Errors.missingArgument('email');
      if (params.password === undefined) return Errors.missingArgument('password');
      if (params.full_name === undefined) return Errors.missingArgument('full_name');
      const account = checkNewAccount(state, params.email, params.full_name);
      if (!account.ok) return account.error;
      if (!isPasswordStrongEnough(params.password)) return Errors.badRequest('The password is too weak.');
      const passwordHash = await hashPassword(params.password);
      return runCommand(
        realm!,
        { type: 'admin_create_user', actorId: user!.id, email: params.email, fullName: params.full_name, passwordHash },
        (reply) => ({ user_id: reply.userId }),
      );
    },
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/users/{user_id}',
    auth: 'user',
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
      runCommand(realm!, {
        type: 'update_user',
        actorId: user!.id,
        userId: path.user_id!,
        ...(params.full_name !== undefined && { fullName: params.full_name }),
        ...(params.role !== undefined && { role: params.role }),
        ...(params.profile_data !== undefined && { profileData: params.profile_data }),
        ...(params.new_email !== undefined && { newEmail: params.new_email }),
      }),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/users/{user_id}',
    auth: 'user',
    params: {},
    handler: ({ realm, user, path }) => runCommand(realm!, { type: 'deactivate_user', actorId: user!.id, userId: path.user_id! }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/users/{user_id}/reactivate',
    auth: 'user',
    params: {},
    handler: ({ realm, user, path }) => runCommand(realm!, { type: 'reactivate_user', actorId: user!.id, userId: path.user_id! }),
  }),
];
