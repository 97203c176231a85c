/**
 * Personal settings in `POST /register`: `user_settings` (FL 89+), the legacy top-level copies
 * (fetch types `update_display_settings` / `update_global_notifications`, only for clients
 * without the `user_settings_object` capability; removed by Zulip at FL 439, still present at
 * 417) and `realm_user_settings_defaults`.
 *
 * Values are the user's own (`User.settings`, `timezone`, `email_address_visibility`) over Zulip's
 * defaults (`constants.ts`).
 */
import type { RealmState, User } from '../../domain/realm-state.js';
import { personalSetting } from '../../domain/user-settings.js';
import { DISPLAY_SETTINGS_LEGACY, NOTIFICATION_SETTINGS_LEGACY, USER_SETTING_DEFAULTS } from '../../domain/user-setting-defaults.js';
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES } from './constants.js';

/**
 * Personal settings kept outside `User.settings`: `presence_enabled` lives in the user's status
 * (domain/user-status.ts), as the negation of the deprecated `away`.
 */
export interface StoredElsewhere {
  presenceEnabled: boolean;
}

/** The user's value of every personal setting (`UserBaseSettings.property_types`). */
export function userSettingValues(user: User): Record<string, unknown> {
  return { ...USER_SETTING_DEFAULTS, ...user.settings, email_address_visibility: user.emailAddressVisibility };
}

/** One personal setting's value (e.g. `enable_stream_desktop_notifications`). */
export const userSetting: (user: User, name: string) => unknown = personalSetting;

/**
 * `user_settings`: every personal setting plus `emojiset_choices`, `timezone` (IANA name or ''),
 * `available_notification_sounds`; `resolved_topic_notice_auto_read_policy` as its enum name.
 */
export function userSettingsSection(user: User, stored: StoredElsewhere): Record<string, unknown> {
  return {
    ...userSettingValues(user),
    presence_enabled: stored.presenceEnabled,
    emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })),
    timezone: user.timezone,
    available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
  };
}

/** Legacy top-level display settings (`update_display_settings`), with `emojiset_choices` and `timezone`. */
export function legacyDisplaySettings(user: User): Record<string, unknown> {
  return { ...pick(user, DISPLAY_SETTINGS_LEGACY), emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })), timezone: user.timezone };
}

/** Legacy top-level notification settings (`update_global_notifications`), with the sound list. */
export function legacyNotificationSettings(user: User, stored: StoredElsewhere): Record<string, unknown> {
  return {
    ...pick(user, NOTIFICATION_SETTINGS_LEGACY),
    presence_enabled: stored.presenceEnabled,
    available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
  };
}

/** The user's values of the settings named by `defaults`' keys. */
function pick(user: User, defaults: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(defaults)) out[name] = personalSetting(user, name);
  return out;
}

/**
 * `realm_user_settings_defaults`: the settings new users get (no `timezone`): Zulip's defaults
 * overlaid with the organization's (`domain/realm-user-defaults.ts`).
 */
export function realmUserSettingsDefaults(state: RealmState): Record<string, unknown> {
  return {
    ...USER_SETTING_DEFAULTS,
    ...state.userDefaults,
    email_address_visibility: state.settings.emailAddressVisibility,
    emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })),
    available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
  };
}
