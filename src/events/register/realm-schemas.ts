/**
 * typebox schemas of the `realm` fetch type's keys in the `POST /register` response
 * (`register/realm.ts` builds them): organization settings, group-setting values and server
 * parameters. Part of `REGISTER_KEY_SCHEMAS` (`register/schemas.ts`).
 */
import Type, { type TSchema } from 'typebox';

import { Bool, Int, IntList, Nullable, Str, strict } from './schema-helpers.js';
const NameId = Type.Object({ name: Str(), id: Int() }, strict);

/** A group-setting value: a group id or an anonymous group (https://zulip.com/api/group-setting-values). */
export const GroupSettingValueSchema = Type.Union([
  Type.Integer(),
  Type.Object({ direct_members: IntList(), direct_subgroups: IntList() }, strict),
]);

const GroupPermissionSettingSchema = Type.Object(
  {
    require_system_group: Bool(),
    allow_internet_group: Bool(),
    allow_nobody_group: Bool(),
    allow_everyone_group: Bool(),
    default_group_name: Str(),
    default_for_system_groups: Nullable(Str()),
    allowed_system_groups: Type.Array(Str()),
  },
  strict,
);

/** `realm_*` and server keys of the `realm` fetch type. */
const REALM_BOOLEANS = [
  'realm_allow_message_editing', 'realm_avatar_changes_disabled', 'realm_digest_emails_enabled',
  'realm_disallow_disposable_email_addresses', 'realm_email_changes_disabled', 'realm_emails_restricted_to_domains',
  'realm_enable_guest_user_dm_warning', 'realm_enable_guest_user_indicator', 'realm_enable_read_receipts',
  'realm_enable_spectator_access', 'realm_inline_image_preview', 'realm_inline_url_embed_preview', 'realm_invite_required',
  'realm_message_content_allowed_in_email_notifications', 'realm_name_changes_disabled', 'realm_push_notifications_enabled',
  'realm_require_e2ee_push_notifications', 'realm_require_unique_names', 'realm_send_welcome_emails',
  'realm_want_advertise_in_communities_directory', 'realm_presence_disabled', 'settings_send_digest_emails',
  'realm_email_auth_enabled', 'realm_password_auth_enabled', 'realm_is_zephyr_mirror_realm', 'development_environment',
  'zulip_plan_is_not_limited', 'server_inline_image_preview', 'server_inline_url_embed_preview',
  'server_avatar_changes_disabled', 'server_name_changes_disabled', 'server_web_public_streams_enabled',
  'server_needs_upgrade', 'server_can_summarize_topics', 'realm_allow_edit_history', 'realm_mandatory_topics',
];
const REALM_INTEGERS = [
  'realm_digest_weekday', 'realm_giphy_rating', 'realm_message_retention_days', 'realm_video_chat_provider',
  'realm_waiting_period_threshold', 'realm_create_public_stream_policy', 'realm_create_private_stream_policy',
  'realm_create_web_public_stream_policy', 'realm_wildcard_mention_policy', 'max_avatar_file_size_mib',
  'max_file_upload_size_mib', 'max_icon_file_size_mib', 'max_logo_file_size_mib', 'server_generation', 'realm_org_type',
  'realm_plan_type', 'password_min_length', 'password_max_length', 'password_min_guesses',
  'event_queue_longpoll_timeout_seconds', 'realm_moderation_request_channel_id', 'realm_new_stream_announcements_stream_id',
  'realm_signup_announcements_stream_id', 'realm_zulip_update_announcements_stream_id', 'max_stream_name_length',
  'max_stream_description_length', 'max_bulk_new_subscription_messages', 'max_topic_length', 'max_message_length',
  'max_channel_folder_name_length', 'max_channel_folder_description_length', 'max_reminder_note_length',
  'realm_date_created', 'server_presence_ping_interval_seconds', 'server_presence_offline_threshold_seconds',
  'server_typing_started_expiry_period_milliseconds', 'server_typing_stopped_wait_period_milliseconds',
  'server_typing_started_wait_period_milliseconds', 'demo_organization_scheduled_deletion_date',
];
const REALM_NULLABLE_INTEGERS = [
  'realm_message_content_edit_limit_seconds', 'realm_message_content_delete_limit_seconds',
  'realm_move_messages_between_streams_limit_seconds', 'realm_move_messages_within_stream_limit_seconds',
  'realm_upload_quota_mib', 'realm_push_notifications_enabled_end_timestamp',
  'server_min_deactivated_realm_deletion_days', 'server_max_deactivated_realm_deletion_days',
];
const REALM_STRINGS = [
  'realm_default_code_block_language', 'realm_default_language', 'realm_description', 'realm_name',
  'realm_welcome_message_custom_text', 'realm_icon_url', 'realm_icon_source', 'realm_logo_url', 'realm_logo_source',
  'realm_night_logo_url', 'realm_night_logo_source', 'realm_url', 'realm_uri', 'realm_bot_domain',
  'upgrade_text_for_wide_organization_logo', 'server_emoji_data_url', 'realm_empty_topic_display_name',
];
const REALM_NULLABLE_STRINGS = ['realm_jitsi_server_url', 'server_jitsi_server_url', 'jitsi_server_url'];
const REALM_GROUP_SETTINGS = [
  'create_multiuse_invite_group', 'can_access_all_users_group', 'can_add_subscribers_group', 'can_add_custom_emoji_group',
  'can_create_bots_group', 'can_create_groups', 'can_create_public_channel_group', 'can_create_private_channel_group',
  'can_create_web_public_channel_group', 'can_create_write_only_bots_group', 'can_delete_any_message_group',
  'can_delete_own_message_group', 'can_invite_users_group', 'can_manage_all_groups', 'can_manage_billing_group',
  'can_mention_many_users_group', 'can_move_messages_between_channels_group', 'can_move_messages_between_topics_group',
  'can_resolve_topics_group', 'can_set_delete_message_policy_group', 'can_set_topics_policy_group',
  'can_summarize_topics_group', 'direct_message_initiator_group', 'direct_message_permission_group',
].map((k) => `realm_${k}`);

/** Schema of every key of the `realm` fetch type. */
export const REALM_KEY_SCHEMAS: Readonly<Record<string, TSchema>> = {
  ...Object.fromEntries(REALM_BOOLEANS.map((k) => [k, Bool()])),
  ...Object.fromEntries(REALM_INTEGERS.map((k) => [k, Int()])),
  ...Object.fromEntries(REALM_NULLABLE_INTEGERS.map((k) => [k, Nullable(Int())])),
  ...Object.fromEntries(REALM_STRINGS.map((k) => [k, Str()])),
  ...Object.fromEntries(REALM_NULLABLE_STRINGS.map((k) => [k, Nullable(Str())])),
  ...Object.fromEntries(REALM_GROUP_SETTINGS.map((k) => [k, GroupSettingValueSchema])),
  realm_message_edit_history_visibility_policy: Type.Enum(['all', 'moves', 'none']),
  realm_topics_policy: Type.Union([Type.Literal('allow_empty_topic'), Type.Literal('disable_empty_topic')]),
  realm_authentication_methods: Type.Record(
    Str(),
    Type.Object({ enabled: Bool(), available: Bool(), unavailable_reason: Type.Optional(Str()) }, strict),
  ),
  realm_available_video_chat_providers: Type.Record(Str(), NameId),
  server_thumbnail_formats: Type.Array(
    Type.Object({ name: Str(), max_width: Int(), max_height: Int(), format: Str(), animated: Bool() }, strict),
  ),
  giphy_rating_options: Type.Record(Str(), NameId),
  realm_default_external_accounts: Type.Record(
    Str(),
    Type.Object({ text: Str(), url_pattern: Str(), name: Str(), hint: Str() }, strict),
  ),
  server_supported_permission_settings: Type.Object(
    {
      realm: Type.Record(Str(), GroupPermissionSettingSchema),
      stream: Type.Record(Str(), GroupPermissionSettingSchema),
      group: Type.Record(Str(), GroupPermissionSettingSchema),
    },
    strict,
  ),
};
