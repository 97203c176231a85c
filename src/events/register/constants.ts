/**
 * Static parts of the `POST /register` response: server-level constants and Zulip's default
 * personal settings, as Zulip 11 (feature level 417) reports them. Values are Zulip's defaults
 * (`zproject/default_settings.py`, `zerver/models/users.py` `UserBaseSettings`,
 * `zerver/models/realms.py`) unless a comment says why parley differs (a feature parley does not
 * have is reported as disabled/empty rather than advertised).
 *
 * Everything here is built once at module load and must be treated as read-only: the builders
 * copy (`structuredClone`/spread) before handing values to a response.
 */
import {
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
} from '../../domain/messages.js';
import { MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH, MAX_CHANNEL_FOLDER_NAME_LENGTH } from '../../domain/channel-folders.js';

/**
 * Server limits and protocol parameters reported with the `realm` fetch type.
 * Units are in the names (seconds, milliseconds, MiB); lengths are Unicode code points.
 */
export const SERVER_LIMITS = {
  max_message_length: MAX_MESSAGE_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
  max_stream_name_length: MAX_STREAM_NAME_LENGTH,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  /** FL 397: `send_new_subscription_messages` is honoured up to this many new subscribers. */
  max_bulk_new_subscription_messages: 100,
  /** FL 410. */
  max_channel_folder_name_length: MAX_CHANNEL_FOLDER_NAME_LENGTH,
  max_channel_folder_description_length: MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
  /** FL 415 (`settings.MAX_REMINDER_NOTE_LENGTH`). */
  max_reminder_note_length: 1000,
  /** Seconds; Zulip's `PRESENCE_PING_INTERVAL_SECS`. */
  server_presence_ping_interval_seconds: 60,
  /**
   * Seconds after which clients show a user offline. Zulip's `OFFLINE_THRESHOLD_SECS` default is
   * 200; parley reports 140, the value clients hard-coded before FL 164 (team decision).
   */
  server_presence_offline_threshold_seconds: 140,
  /** Milliseconds (`TYPING_STARTED_EXPIRY_PERIOD_MILLISECONDS` etc., FL 204). */
  server_typing_started_expiry_period_milliseconds: 45000,
  server_typing_stopped_wait_period_milliseconds: 12000,
  server_typing_started_wait_period_milliseconds: 30000,
  /** Seconds: recommended client HTTP timeout for `GET /events` (heartbeats come every 45–55 s). */
  event_queue_longpoll_timeout_seconds: 90,
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  max_avatar_file_size_mib: 5,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  /** Days (FL 332): `MIN_DEACTIVATED_REALM_DELETION_DAYS` / `MAX_…` (null = no maximum). */
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
} as const;

/** Default upload limit in MiB: parley's default request-body limit (5 MiB, `--max-body-bytes`). */
export const DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB = 5;

/** `settings.SERVER_GENERATION`: when this process started (UNIX seconds). */
export const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/** Video call providers available without extra server configuration (Zoom/BBB need secrets). */
export const VIDEO_CHAT_PROVIDERS = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
} as const;

/** `Realm.GIPHY_RATING_OPTIONS` (`giphy_rating_options`). */
export const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  'pg-13': { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
} as const;

/** `zerver/lib/external_accounts.py` `DEFAULT_EXTERNAL_ACCOUNTS`. */
export const DEFAULT_EXTERNAL_ACCOUNTS = {
  twitter: { text: 'Twitter', url_pattern: 'https://twitter.com/%(username)s', name: 'Twitter username', hint: '' },
  github: { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub username', hint: '' },
} as const;

/** `CustomProfileField.ALL_FIELD_TYPES` as `custom_profile_field_types` (keyword → {id, name}). */
export const CUSTOM_PROFILE_FIELD_TYPES = {
  DATE: { id: 4, name: 'Date' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  URL: { id: 5, name: 'Link' },
  SELECT: { id: 3, name: 'List of options' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  USER: { id: 6, name: 'Users' },
} as const;

/** `UserProfile.emojiset_choices()`. */
export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
] as const;

/** `get_available_notification_sounds()`: the `.ogg` files Zulip ships, sorted. */
export const AVAILABLE_NOTIFICATION_SOUNDS = [
  'ascend', 'beep_boop', 'bink', 'bright', 'brlip', 'chime', 'deep tom', 'ding', 'double tap', 'down',
  'dry bongos', 'dutdut', 'fast ascend', 'flute', 'friendly', 'kick roll', 'loud tintong', 'metallic snare',
  'pan', 'practicechat', 'shaker', 'simple', 'stairs', 'subtle', 'swish', 'tintong', 'up', 'wood block',
  'zaping', 'zing', 'zulip',
] as const;

/**
 * `UserProfile.display_settings_legacy` with defaults: sent at top level (fetch type
 * `update_display_settings`) to clients without the `user_settings_object` capability.
 */
export const DISPLAY_SETTINGS_LEGACY = {
  color_scheme: 1,
  default_language: 'en',
  web_home_view: 'inbox',
  demote_inactive_streams: 1,
  emojiset: 'google',
  enable_drafts_synchronization: true,
  enter_sends: false,
  fluid_layout_width: false,
  high_contrast_mode: false,
  left_side_userlist: false,
  starred_message_counts: true,
  translate_emoticons: false,
  twenty_four_hour_time: false,
} as const;

/**
 * `UserProfile.notification_settings_legacy` with defaults: sent at top level (fetch type
 * `update_global_notifications`) to clients without `user_settings_object`.
 */
export const NOTIFICATION_SETTINGS_LEGACY = {
  desktop_icon_count_display: 1,
  /** Seconds. */
  email_notifications_batching_period_seconds: 120,
  enable_desktop_notifications: true,
  enable_digest_emails: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_sounds: true,
  enable_stream_audible_notifications: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  message_content_in_email_notifications: true,
  notification_sound: 'zulip',
  pm_content_in_desktop_notifications: true,
  presence_enabled: true,
  realm_name_in_email_notifications_policy: 1,
  wildcard_mentions_notify: true,
} as const;

/** `UserProfile.modern_notification_settings` with defaults. */
export const MODERN_NOTIFICATION_SETTINGS = {
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
} as const;

/**
 * `UserProfile.modern_settings` with defaults, as of FL 417 (`web_left_sidebar_show_channel_folders`
 * FL 411; `web_inbox_show_channel_folders` came at 431 and is absent). `email_address_visibility`
 * is overridden per user; `resolved_topic_notice_auto_read_policy` is sent as its enum name.
 */
export const MODERN_SETTINGS = {
  display_emoji_reaction_users: true,
  email_address_visibility: 1,
  web_escape_navigates_to_home_view: true,
  receives_typing_notifications: true,
  send_private_typing_notifications: true,
  send_read_receipts: true,
  send_stream_typing_notifications: true,
  allow_private_data_export: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  user_list_style: 3,
  web_animate_image_previews: 'on_hover',
  web_stream_unreads_count_display_policy: 2,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  web_navigate_to_sent_message: true,
  web_suggest_update_timezone: true,
  hide_ai_features: false,
  resolved_topic_notice_auto_read_policy: 'except_followed',
  web_left_sidebar_unreads_count_summary: true,
  web_left_sidebar_show_channel_folders: true,
} as const;

/** Every personal setting (`UserBaseSettings.property_types`) with its default. */
export const USER_SETTING_DEFAULTS: Readonly<Record<string, string | number | boolean>> = {
  ...DISPLAY_SETTINGS_LEGACY,
  ...NOTIFICATION_SETTINGS_LEGACY,
  ...MODERN_NOTIFICATION_SETTINGS,
  ...MODERN_SETTINGS,
};

/** Zulip's `Message.EMPTY_TOPIC_FALLBACK_NAME`; parley keeps the realm's value in its settings. */
export const EMPTY_TOPIC_FALLBACK_NAME = 'general chat';

/** `MAX_UNREAD_MESSAGES`: `unread_msgs` holds at most the newest this many unread messages. */
export const MAX_UNREAD_MESSAGES = 50_000;
/** `get_starred_message_ids`: the oldest this many starred ids. */
export const MAX_STARRED_MESSAGES = 10_000;
/** `RECENT_CONVERSATIONS_LIMIT`: `recent_private_conversations` looks at the newest this many DMs. */
export const RECENT_CONVERSATIONS_LIMIT = 1000;
