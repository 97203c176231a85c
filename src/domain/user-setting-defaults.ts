/**
 * Zulip's default personal settings (`zerver/models/users.py` `UserBaseSettings`, as of feature
 * level 417), grouped the way `POST /register` reports them. `domain/user-settings.ts` reads the
 * defaults, `events/register/*` serializes them. Values are read-only: copy before handing out.
 */

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
