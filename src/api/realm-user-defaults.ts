/**
 * `PATCH /realm/user_settings_defaults` (https://zulip.com/api/update-realm-user-settings-defaults;
 * Zulip's zerver/views/realm.py `update_realm_user_settings_defaults`): the personal settings of
 * `PATCH /settings` (typed after their defaults) plus `email_address_visibility` and
 * `presence_enabled`; other names are reported in `ignored_parameters_unsupported`. Rules and
 * events: `realm/handlers/realm-user-defaults.ts`.
 */
import { requireRealmAdmin } from '../domain/access.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { GENERIC_SETTING_PARAMS } from './settings.js';

const PARAMS = { ...GENERIC_SETTING_PARAMS, email_address_visibility: P.int(), presence_enabled: P.bool() };

/** `PATCH /realm/user_settings_defaults`: administrators only. */
export const updateRealmUserDefaults = defineEndpoint({
  auth: 'user',
  params: PARAMS,
  handler: async ({ realm, user, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    const settings: Record<string, string | number | boolean> = {};
    for (const name of Object.keys(PARAMS)) {
      const value = (params as Record<string, string | number | boolean | undefined>)[name];
      if (value !== undefined) settings[name] = value;
    }
    return runCommand(realm, { type: 'update_realm_user_defaults', actorId: user.id, settings });
  },
});
