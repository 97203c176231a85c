/**
 * Personal settings in `POST /register`: `user_settings` (FL 89+), the legacy top-level copies
 * (fetch types `update_display_settings` / `update_global_notifications`, only for clients
 * without the `user_settings_object` capability; removed by Zulip at FL 439, still present at
 * 417) and `realm_user_settings_defaults`.
 *
 * parley does not store personal settings yet, so every user has Zulip's defaults
 * (`constants.ts`), except the per-user `email_address_visibility` and `timezone`.
 */
import type { User } from '../../domain/realm-state.js';
import {
  AVAILABLE_NOTIFICATION_SOUNDS,
  DISPLAY_SETTINGS_LEGACY,
  EMOJISET_CHOICES,
  NOTIFICATION_SETTINGS_LEGACY,
  USER_SETTING_DEFAULTS,
} from './constants.js';

/** The user's value of every personal setting (`UserBaseSettings.property_types`). */
export function userSettingValues(user: User): Record<string, unknown> {
  return { ...USER_SETTING_DEFAULTS, email_address_visibility: user.emailAddressVisibility };
}

/** One personal setting's value (e.g. `enable_stream_desktop_notifications`). */
export function userSetting(user: User, name: string): unknown {
  return name === 'email_address_visibility' ? user.emailAddressVisibility : USER_SETTING_DEFAULTS[name];
}

/**
 * `user_settings`: every personal setting plus `emojiset_choices`, `timezone` (IANA name or ''),
 * `available_notification_sounds`; `resolved_topic_notice_auto_read_policy` as its enum name.
 */
export function userSettingsSection(user: User): Record<string, unknown> {
  return {
    ...userSettingValues(user),
    emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })),
    timezone: user.timezone,
    available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
  };
}

/** Legacy top-level display settings (`update_display_settings`), with `emojiset_choices` and `timezone`. */
export function legacyDisplaySettings(user: User): Record<string, unknown> {
  return { ...DISPLAY_SETTINGS_LEGACY, emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })), timezone: user.timezone };
}

/** Legacy top-level notification settings (`update_global_notifications`), with the sound list. */
export function legacyNotificationSettings(): Record<string, unknown> {
  return { ...NOTIFICATION_SETTINGS_LEGACY, available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS] };
}

/** `realm_user_settings_defaults`: the settings new users get (no `timezone`). */
export function realmUserSettingsDefaults(): Record<string, unknown> {
  return {
    ...USER_SETTING_DEFAULTS,
    emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })),
    available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
  };
}
