/**
 * The `realm` fetch type of `POST /register` (Zulip's `fetch_initial_state_data`, `want("realm")`
 * branch, at feature level 417): every `realm_*` organization setting (`Realm.property_types`,
 * the realm group settings, the deprecated policy enums derived from them) and the server-level
 * `server_*` / `max_*` parameters.
 *
 * Differences from Zulip 11, all deliberate:
 * - `realm_is_zephyr_mirror_realm` is present (removed only at FL 426);
 * - `realm_send_channel_events_messages` (FL 434) and `server_report_message_types` (FL 435) are
 *   absent;
 * - features parley lacks are reported as off: no digest emails, no thumbnails, no push
 *   notifications, no topic summaries, no web-public channels.
 */
import type { RealmState } from '../../domain/realm-state.js';
import {
  DEFAULT_EXTERNAL_ACCOUNTS,
  DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB,
  GIPHY_RATING_OPTIONS,
  SERVER_GENERATION,
  VIDEO_CHAT_PROVIDERS,
} from './constants.js';
import { SERVER_LIMITS } from '../../domain/server-limits.js';
import { realmIcon, realmIconSource, realmIconUrl } from '../../domain/realm-icon.js';
import { REALM_PERMISSION_GROUP_SETTINGS, realmGroupSetting } from '../../domain/group-permissions.js';
import { legacyPolicy, serverSupportedPermissionSettings } from './user-groups.js';

/** What the `realm` section needs besides the state. */
export interface RealmSectionOptions {
  /** The realm's configured URL (`RealmState.url`, from `--external-url`), no trailing slash. */
  realmUrl: string;
  /** Upload limit to report, in MiB. */
  maxFileUploadSizeMib?: number;
  /** `realm_upload_quota_mib` to report (`--upload-quota-mib`); default null (no quota). */
  uploadQuotaMib?: number | null;
}

/** Jitsi server used for video calls (`settings.JITSI_SERVER_URL`). */
const JITSI_SERVER_URL = 'https://meet.jit.si';

/** The `realm` keys, in Zulip's order. Units: `*_seconds` seconds, `*_mib` MiB, dates UNIX seconds. */
export function realmSection(state: RealmState, opts: RealmSectionOptions): Record<string, unknown> {
  const s = state.settings;
  const url = opts.realmUrl;
  const out: Record<string, unknown> = {
    // Realm.property_types (prefixed realm_), alphabetical as in Zulip.
    realm_allow_message_editing: s.allowMessageEditing,
    realm_avatar_changes_disabled: s.avatarChangesDisabled ?? false,
    realm_default_code_block_language: '',
    realm_default_language: s.defaultLanguage ?? 'en',
    realm_description: s.description,
    realm_digest_emails_enabled: false,
    realm_digest_weekday: 1,
    realm_disallow_disposable_email_addresses: true,
    realm_email_changes_disabled: false,
    realm_emails_restricted_to_domains: s.emailsRestrictedToDomains ?? false,
    realm_enable_guest_user_dm_warning: true,
    realm_enable_guest_user_indicator: true,
    realm_enable_read_receipts: s.enableReadReceipts ?? false,
    realm_enable_spectator_access: s.enableSpectatorAccess ?? false,
    realm_giphy_rating: GIPHY_RATING_OPTIONS.g.id,
    realm_inline_image_preview: true,
    realm_inline_url_embed_preview: false,
    realm_invite_required: true,
    realm_jitsi_server_url: null,
    realm_message_content_allowed_in_email_notifications: s.messageContentAllowedInEmailNotifications ?? true,
    realm_message_content_edit_limit_seconds: s.messageContentEditLimitSeconds,
    realm_message_content_delete_limit_seconds: s.messageContentDeleteLimitSeconds,
    realm_message_edit_history_visibility_policy: s.editHistoryVisibilityPolicy ?? (s.allowEditHistory ? 'all' : 'none'),
    // Absent = Zulip's default, 7 days; null = unlimited.
    realm_move_messages_between_streams_limit_seconds: s.moveMessagesBetweenStreamsLimitSeconds === undefined ? 7 * 86400 : s.moveMessagesBetweenStreamsLimitSeconds,
    realm_move_messages_within_stream_limit_seconds: s.moveMessagesWithinStreamLimitSeconds === undefined ? 7 * 86400 : s.moveMessagesWithinStreamLimitSeconds,
    // -1 = keep forever (null in parley's state; FL 22 replaced null by -1 on the wire).
    realm_message_retention_days: s.messageRetentionDays ?? -1,
    realm_name: s.name,
    realm_name_changes_disabled: false,
    realm_push_notifications_enabled: false,
    realm_require_e2ee_push_notifications: false,
    realm_require_unique_names: false,
    realm_send_welcome_emails: true,
    realm_topics_policy: s.topicsPolicy,
    realm_video_chat_provider: VIDEO_CHAT_PROVIDERS.jitsi_meet.id,
    realm_waiting_period_threshold: s.waitingPeriodThreshold ?? 0,
    realm_want_advertise_in_communities_directory: false,
    realm_welcome_message_custom_text: s.welcomeMessageCustomText ?? '',
  };
  // Group-setting values (integer group id or {direct_members, direct_subgroups}).
  for (const name of Object.keys(REALM_PERMISSION_GROUP_SETTINGS)) out[`realm_${name}`] = realmGroupSetting(state, name);
  // Deprecated enums kept for old clients, derived from the group settings.
  out.realm_create_public_stream_policy = legacyPolicy(state, 'can_create_public_channel_group', [1, 2, 3, 4], 1);
  out.realm_create_private_stream_policy = legacyPolicy(state, 'can_create_private_channel_group', [1, 2, 3, 4], 1);
  out.realm_create_web_public_stream_policy = legacyPolicy(state, 'can_create_web_public_channel_group', [2, 4, 6, 7], 4);
  out.realm_wildcard_mention_policy = legacyPolicy(state, 'can_mention_many_users_group', [1, 2, 3, 5, 6, 7], 1);

  Object.assign(out, {
    realm_authentication_methods: { Email: { enabled: true, available: true } },
    realm_allow_message_editing: s.allowMessageEditing,
    realm_presence_disabled: false,
    max_avatar_file_size_mib: SERVER_LIMITS.max_avatar_file_size_mib,
    max_file_upload_size_mib: opts.maxFileUploadSizeMib ?? DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB,
    max_icon_file_size_mib: SERVER_LIMITS.max_icon_file_size_mib,
    realm_upload_quota_mib: opts.uploadQuotaMib ?? null,
    // Same icon as `GET /server_settings` `realm_icon` (domain/realm-icon.ts).
    realm_icon_url: realmIconUrl(state),
    realm_icon_source: realmIconSource(realmIcon(state)),
    realm_logo_url: `${url}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_logo_source: 'D',
    realm_night_logo_url: `${url}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_night_logo_source: 'D',
    max_logo_file_size_mib: SERVER_LIMITS.max_logo_file_size_mib,
    realm_url: url,
    realm_uri: url,
    realm_bot_domain: state.host,
    realm_available_video_chat_providers: structuredClone(VIDEO_CHAT_PROVIDERS),
    settings_send_digest_emails: false,
    realm_digest_emails_enabled: false,
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    server_generation: SERVER_GENERATION,
    realm_is_zephyr_mirror_realm: false,
    development_environment: false,
    realm_org_type: 0,
    realm_plan_type: 1,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: 'Available on Zulip Cloud Standard. Upgrade to access.',
    realm_push_notifications_enabled_end_timestamp: null,
    password_min_length: SERVER_LIMITS.password_min_length,
    password_max_length: SERVER_LIMITS.password_max_length,
    password_min_guesses: SERVER_LIMITS.password_min_guesses,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: true,
    server_thumbnail_formats: [],
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_web_public_streams_enabled: false,
    giphy_rating_options: structuredClone(GIPHY_RATING_OPTIONS),
    server_emoji_data_url: `${url}/static/generated/emoji/emoji_api.json`,
    server_needs_upgrade: false,
    event_queue_longpoll_timeout_seconds: SERVER_LIMITS.event_queue_longpoll_timeout_seconds,
    realm_default_external_accounts: structuredClone(DEFAULT_EXTERNAL_ACCOUNTS),
    server_jitsi_server_url: JITSI_SERVER_URL,
    jitsi_server_url: JITSI_SERVER_URL,
    server_can_summarize_topics: false,
    realm_moderation_request_channel_id: s.moderationRequestChannelId ?? -1,
    realm_new_stream_announcements_stream_id: state.settings.newStreamAnnouncementsStreamId ?? -1,
    realm_signup_announcements_stream_id: state.settings.signupAnnouncementsStreamId ?? -1,
    realm_zulip_update_announcements_stream_id: s.zulipUpdateAnnouncementsStreamId ?? -1,
    max_stream_name_length: SERVER_LIMITS.max_stream_name_length,
    max_stream_description_length: SERVER_LIMITS.max_stream_description_length,
    max_bulk_new_subscription_messages: SERVER_LIMITS.max_bulk_new_subscription_messages,
    max_topic_length: SERVER_LIMITS.max_topic_length,
    max_message_length: SERVER_LIMITS.max_message_length,
    max_channel_folder_name_length: SERVER_LIMITS.max_channel_folder_name_length,
    max_channel_folder_description_length: SERVER_LIMITS.max_channel_folder_description_length,
    max_reminder_note_length: SERVER_LIMITS.max_reminder_note_length,
    realm_date_created: Math.floor(s.dateCreated),
    server_presence_ping_interval_seconds: SERVER_LIMITS.server_presence_ping_interval_seconds,
    server_presence_offline_threshold_seconds: SERVER_LIMITS.server_presence_offline_threshold_seconds,
    server_typing_started_expiry_period_milliseconds: SERVER_LIMITS.server_typing_started_expiry_period_milliseconds,
    server_typing_stopped_wait_period_milliseconds: SERVER_LIMITS.server_typing_stopped_wait_period_milliseconds,
    server_typing_started_wait_period_milliseconds: SERVER_LIMITS.server_typing_started_wait_period_milliseconds,
    server_supported_permission_settings: serverSupportedPermissionSettings(),
    server_min_deactivated_realm_deletion_days: SERVER_LIMITS.server_min_deactivated_realm_deletion_days,
    server_max_deactivated_realm_deletion_days: SERVER_LIMITS.server_max_deactivated_realm_deletion_days,
    realm_empty_topic_display_name: s.emptyTopicDisplayName,
    realm_allow_edit_history: s.allowEditHistory,
    realm_mandatory_topics: s.topicsPolicy === 'disable_empty_topic',
  });
  return out;
}
