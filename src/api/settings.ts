/**
 * `PATCH /settings` (Zulip's zerver/views/user_settings.py `json_change_settings`): the caller's
 * own account, humans only: `full_name`, `timezone`, `email_address_visibility`, `presence_enabled`
 * (kept by the user's status: `away` = !presence_enabled, seed §4.9) and every generic personal
 * setting (`domain/user-settings.ts`: typed after its default, enumerations checked); unknown
 * names are reported in `ignored_parameters_unsupported`. Rules and events live in
 * `realm/handlers/user-settings.ts`; `old_password`/`new_password` change the password first
 * (`password-change.ts`), ending the user's other web sessions.
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P, type ParamSpec } from './params.js';
import { GENERIC_USER_SETTINGS } from '../domain/user-settings.js';
import { changeOwnPassword } from './password-change.js';

/** `PATCH /settings` parameters of the generic personal settings, typed after their defaults. */
export const GENERIC_SETTING_PARAMS: Record<string, ParamSpec<string | number | boolean, true>> = Object.fromEntries(
  Object.entries(GENERIC_USER_SETTINGS).map(([name, value]) => [
    name,
    (typeof value === 'boolean' ? P.bool() : typeof value === 'number' ? P.int() : P.string()) as ParamSpec<string | number | boolean, true>,
  ]),
);

/** `PATCH /settings`: changes the caller's own settings. */
export const updateSettings = defineEndpoint({
  auth: 'user',
  params: {
    full_name: P.string(),
    timezone: P.string(),
    email_address_visibility: P.int(),
    presence_enabled: P.bool(),
    old_password: P.string(),
    new_password: P.string(),
    ...GENERIC_SETTING_PARAMS,
  },
  handler: async ({ realm, user, params, sessionIdHash, remoteAddress }) => {
    // Zulip checks and changes the password before the other settings.
    if (params.new_password !== undefined) {
      const error = await changeOwnPassword({ realm, user, oldPassword: params.old_password, newPassword: params.new_password, sessionIdHash, remoteAddress });
      if (error !== null) return error;
    }
    const settings: Record<string, string | number | boolean> = {};
    for (const name of Object.keys(GENERIC_SETTING_PARAMS)) {
      const value = (params as Record<string, string | number | boolean | undefined>)[name];
      if (value !== undefined) settings[name] = value;
    }
    return runCommand(realm, {
      type: 'update_settings',
      actorId: user.id,
      ...(params.full_name !== undefined && { fullName: params.full_name }),
      ...(params.timezone !== undefined && { timezone: params.timezone }),
      ...(params.email_address_visibility !== undefined && { emailAddressVisibility: params.email_address_visibility }),
      ...(params.presence_enabled !== undefined && { presenceEnabled: params.presence_enabled }),
      ...(Object.keys(settings).length > 0 && { settings }),
    });
  },
});
