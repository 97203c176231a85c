/**
 * Personal settings (Zulip's `UserBaseSettings`, `PATCH /settings`,
 * https://zulip.com/api/update-user): each user keeps
 * only the values that differ from Zulip's defaults (`User.settings`, wire names); everything
 * else reads the default from `USER_SETTING_DEFAULTS`.
 *
 * Settings with their own storage are not "generic": `full_name`, `timezone` and
 * `email_address_visibility` live on the user, `presence_enabled` in the user's status
 * (`user-status.ts`, the negation of `away`).
 */
import type { User } from './realm-state.js';
import { USER_SETTING_DEFAULTS } from './user-setting-defaults.js';

/** Settings stored on `User` itself or elsewhere, never in `User.settings`. */
const NOT_GENERIC = new Set(['email_address_visibility', 'presence_enabled']);

/** Names of the generic personal settings, with their default values (types follow the default). */
export const GENERIC_USER_SETTINGS: Readonly<Record<string, string | number | boolean>> = Object.fromEntries(
  Object.entries(USER_SETTING_DEFAULTS).filter(([name]) => !NOT_GENERIC.has(name)),
);

/**
 * Allowed values of enumerated settings (Zulip's `UserBaseSettings` choices): integers are the
 * model constants (e.g. the automatic topic policies: 1 on participation, 2 on send, 3 on
 * initiation, 4 never).
 */
const CHOICES: Readonly<Record<string, readonly (string | number)[]>> = {
  color_scheme: [1, 2, 3],
  web_home_view: ['recent_topics', 'inbox', 'all_messages'],
  demote_inactive_streams: [1, 2, 3],
  emojiset: ['google', 'twitter', 'text'],
  desktop_icon_count_display: [1, 2, 3],
  realm_name_in_email_notifications_policy: [1, 2, 3],
  automatically_follow_topics_policy: [1, 2, 3, 4],
  automatically_unmute_topics_in_muted_streams_policy: [1, 2, 3, 4],
  web_mark_read_on_scroll_policy: [1, 2, 3],
  web_channel_default_view: [1, 2, 3, 4],
  user_list_style: [1, 2, 3],
  web_animate_image_previews: ['always', 'on_hover', 'never'],
  web_stream_unreads_count_display_policy: [1, 2, 3],
  resolved_topic_notice_auto_read_policy: ['always', 'except_followed', 'never'],
  notification_sound: ['zulip', 'ding', 'chime', 'chirp', 'none'],
};

/** Numeric ranges (inclusive) of integer settings that are not enumerations. */
const RANGES: Readonly<Record<string, readonly [number, number]>> = {
  email_notifications_batching_period_seconds: [120, 7 * 24 * 3600],
  web_font_size_px: [12, 20],
  web_line_height_percent: [122, 158],
};

/** The user's value of a personal setting (their own, or Zulip's default); undefined for unknown names. */
export function personalSetting(user: User, name: string): string | number | boolean | undefined {
  if (name === 'email_address_visibility') return user.emailAddressVisibility;
  return user.settings?.[name] ?? USER_SETTING_DEFAULTS[name];
}

/**
 * Validates a new value for a generic setting; returns Zulip's error message or null.
 * Types were already checked by the endpoint's parameter parsing (they follow the default's type).
 */
export function checkPersonalSetting(name: string, value: string | number | boolean): string | null {
  const choices = CHOICES[name];
  if (choices !== undefined && (typeof value === 'boolean' || !choices.includes(value))) return `Invalid ${name}`;
  const range = RANGES[name];
  if (range !== undefined && typeof value === 'number' && (value < range[0] || value > range[1])) return `Invalid ${name}`;
  if (name === 'default_language' && !/^[a-z]{2,3}([-_][A-Za-z]{2,4})?$/.test(String(value))) return 'Invalid default_language';
  return null;
}

/**
 * The override map after setting `changes` (values equal to the default are dropped, so a user
 * who resets a setting stores nothing).
 */
export function withSettings(user: User, changes: Readonly<Record<string, string | number | boolean>>): Record<string, string | number | boolean> {
  const next: Record<string, string | number | boolean> = { ...(user.settings ?? {}) };
  for (const [name, value] of Object.entries(changes)) {
    if (GENERIC_USER_SETTINGS[name] === value) delete next[name];
    else next[name] = value;
  }
  return next;
}
