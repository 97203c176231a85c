/**
 * `PATCH /realm/user_settings_defaults` (https://zulip.com/api/update-realm-user-settings-defaults;
 * Zulip's zerver/views/realm.py `update_realm_user_settings_defaults`,
 * zerver/actions/realm_settings.py `do_set_realm_user_default_setting`).
 *
 * Administrators only (`require_realm_admin`: "Must be an organization administrator"). Each value
 * is validated as in `PATCH /settings` (`checkPersonalSetting`; `email_address_visibility` one of
 * Zulip's five values), all before anything changes. Each setting whose default changes records
 * `realm_user_default_changed` and sends `realm_user_settings_defaults` `update` `{property,
 * value}` to every active user; unchanged values do nothing. Existing users keep their settings.
 */
import { ok, fail, Errors } from '../../errors.js';
import { requireRealmAdmin } from '../../domain/access.js';
import { checkPersonalSetting } from '../../domain/user-settings.js';
import { EMAIL_ADDRESS_VISIBILITY_VALUES, realmUserDefault, type RealmUserDefaultChanged } from '../../domain/realm-user-defaults.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Handler } from '../decision.js';
import { activeUserIds } from './user-events.js';

/** `PATCH /realm/user_settings_defaults`: wire names → values, typed after their defaults by the endpoint. */
export interface UpdateRealmUserDefaults {
  type: 'update_realm_user_defaults';
  actorId: number;
  settings: Record<string, string | number | boolean>;
}

/** Replies of the command above. */
export interface RealmUserDefaultsReplies {
  update_realm_user_defaults: Record<string, never>;
}

/** The error message for a new default `value` of `name`, or null. */
function checkDefault(name: string, value: string | number | boolean): string | null {
  if (name === 'email_address_visibility') return EMAIL_ADDRESS_VISIBILITY_VALUES.includes(value as number) ? null : 'Invalid email_address_visibility';
  if (name === 'presence_enabled') return null;
  return checkPersonalSetting(name, value);
}

export const updateRealmUserDefaults: Handler<UpdateRealmUserDefaults, RealmUserDefaultsReplies['update_realm_user_defaults']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  const records: RealmUserDefaultChanged[] = [];
  for (const [property, value] of Object.entries(cmd.settings)) {
    const invalid = checkDefault(property, value);
    if (invalid !== null) return fail(Errors.badRequest(invalid));
    if (realmUserDefault(state, property) !== value) records.push({ type: 'realm_user_default_changed', v: 1, property, value });
  }
  const everyone = activeUserIds(state);
  const events: RealmEvent[] = records.map((r) => ({
    userIds: everyone,
    payload: { type: 'realm_user_settings_defaults', op: 'update', property: r.property, value: r.value },
  }));
  return ok({ records, events, reply: {} });
};
