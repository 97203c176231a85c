/**
 * The organization's defaults for new users' personal settings
 * (https://zulip.com/api/update-realm-user-settings-defaults; Zulip's zerver/models/realms.py
 * `RealmUserDefault`, zerver/actions/realm_settings.py `do_set_realm_user_default_setting`,
 * zerver/lib/create_user.py `copy_default_settings`).
 *
 * A new user starts with the organization's values; changing a default never changes existing
 * users. State: the generic settings that differ from Zulip's defaults
 * (`RealmState.userDefaults`, wire names; absent until the first change), while the default
 * `email_address_visibility` is the realm's `settings.emailAddressVisibility` (new users already
 * copy it) and `presence_enabled` is kept here with the generic ones. Record
 * `realm_user_default_changed` v1, one per changed setting.
 */
import type { RealmState } from './realm-state.js';
import { GENERIC_USER_SETTINGS } from './user-settings.js';

/** `realm_user_default_changed` v1: `property` (a wire name) now defaults to `value` for new users. */
export interface RealmUserDefaultChanged {
  type: 'realm_user_default_changed';
  v: 1;
  property: string;
  value: string | number | boolean;
}

/** Zulip's `UserProfile.EMAIL_ADDRESS_VISIBILITY_TYPES` (1 everyone … 5 nobody). */
export const EMAIL_ADDRESS_VISIBILITY_VALUES: readonly number[] = [1, 2, 3, 4, 5];

/** Defaults with their own storage beside the generic settings, with Zulip's default values. */
const SPECIAL_DEFAULTS: Readonly<Record<string, string | number | boolean>> = { presence_enabled: true };

/**
 * The organization's default for `name` (a generic setting, `presence_enabled` or
 * `email_address_visibility`); undefined for names that are not personal settings.
 */
export function realmUserDefault(state: RealmState, name: string): string | number | boolean | undefined {
  if (name === 'email_address_visibility') return state.settings.emailAddressVisibility;
  const zulipDefault = GENERIC_USER_SETTINGS[name] ?? SPECIAL_DEFAULTS[name];
  if (zulipDefault === undefined) return undefined;
  return state.userDefaults?.[name] ?? zulipDefault;
}

/** The organization's overrides of generic settings, for a new user's `User.settings` (a copy). */
export function newUserSettings(state: RealmState): Record<string, string | number | boolean> | undefined {
  if (state.userDefaults === undefined) return undefined;
  const settings = Object.fromEntries(Object.entries(state.userDefaults).filter(([name]) => name in GENERIC_USER_SETTINGS));
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** `evolve` of `realm_user_default_changed`. */
export function realmUserDefaultChanged(state: RealmState, r: RealmUserDefaultChanged): void {
  if (r.property === 'email_address_visibility') {
    state.settings.emailAddressVisibility = r.value as number;
    return;
  }
  const next = { ...(state.userDefaults ?? {}) };
  if ((GENERIC_USER_SETTINGS[r.property] ?? SPECIAL_DEFAULTS[r.property]) === r.value) delete next[r.property];
  else next[r.property] = r.value;
  state.userDefaults = next;
}
