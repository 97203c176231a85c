/**
 * `buildRegisterState` key sets: the version keys, the exact key set of every fetch type, combined
 * and special fetch types, and a schema-valid state for every role.
 */
import t from 'tap';
import { smallRealm } from '../support/realm-fixture.js';
import { REGISTER_FETCH_TYPES } from '../../src/events/register-state.js';
import { checkRegisterState } from '../../src/events/schemas.js';
import { register, send } from '../support/register-fixture.js';

const ALWAYS = ['zulip_version', 'zulip_feature_level', 'zulip_merge_base'];

const REALM_KEYS = [
  'development_environment', 'event_queue_longpoll_timeout_seconds', 'giphy_rating_options', 'jitsi_server_url',
  'max_avatar_file_size_mib', 'max_bulk_new_subscription_messages', 'max_channel_folder_description_length',
  'max_channel_folder_name_length', 'max_file_upload_size_mib', 'max_icon_file_size_mib', 'max_logo_file_size_mib',
  'max_message_length', 'max_reminder_note_length', 'max_stream_description_length', 'max_stream_name_length',
  'max_topic_length', 'password_max_length', 'password_min_guesses', 'password_min_length', 'realm_allow_edit_history',
  'realm_allow_message_editing', 'realm_authentication_methods', 'realm_available_video_chat_providers',
  'realm_avatar_changes_disabled', 'realm_bot_domain', 'realm_can_access_all_users_group',
  'realm_can_add_custom_emoji_group', 'realm_can_add_subscribers_group', 'realm_can_create_bots_group',
  'realm_can_create_groups', 'realm_can_create_private_channel_group', 'realm_can_create_public_channel_group',
  'realm_can_create_web_public_channel_group', 'realm_can_create_write_only_bots_group',
  'realm_can_delete_any_message_group', 'realm_can_delete_own_message_group', 'realm_can_invite_users_group',
  'realm_can_manage_all_groups', 'realm_can_manage_billing_group', 'realm_can_mention_many_users_group',
  'realm_can_move_messages_between_channels_group', 'realm_can_move_messages_between_topics_group',
  'realm_can_resolve_topics_group', 'realm_can_set_delete_message_policy_group', 'realm_can_set_topics_policy_group',
  'realm_can_summarize_topics_group', 'realm_create_multiuse_invite_group', 'realm_create_private_stream_policy',
  'realm_create_public_stream_policy', 'realm_create_web_public_stream_policy', 'realm_date_created',
  'realm_default_code_block_language', 'realm_default_external_accounts', 'realm_default_language',
  'realm_description', 'realm_digest_emails_enabled', 'realm_digest_weekday', 'realm_direct_message_initiator_group',
  'realm_direct_message_permission_group', 'realm_disallow_disposable_email_addresses', 'realm_email_auth_enabled',
  'realm_email_changes_disabled', 'realm_emails_restricted_to_domains', 'realm_empty_topic_display_name',
  'realm_enable_guest_user_dm_warning', 'realm_enable_guest_user_indicator', 'realm_enable_read_receipts',
  'realm_enable_spectator_access', 'realm_giphy_rating', 'realm_icon_source', 'realm_icon_url',
  'realm_inline_image_preview', 'realm_inline_url_embed_preview', 'realm_invite_required',
  'realm_is_zephyr_mirror_realm', 'realm_jitsi_server_url', 'realm_logo_source', 'realm_logo_url',
  'realm_mandatory_topics', 'realm_message_content_allowed_in_email_notifications',
  'realm_message_content_delete_limit_seconds', 'realm_message_content_edit_limit_seconds',
  'realm_message_edit_history_visibility_policy', 'realm_message_retention_days',
  'realm_moderation_request_channel_id', 'realm_move_messages_between_streams_limit_seconds',
  'realm_move_messages_within_stream_limit_seconds', 'realm_name', 'realm_name_changes_disabled',
  'realm_new_stream_announcements_stream_id', 'realm_night_logo_source', 'realm_night_logo_url', 'realm_org_type',
  'realm_password_auth_enabled', 'realm_plan_type', 'realm_presence_disabled', 'realm_push_notifications_enabled',
  'realm_push_notifications_enabled_end_timestamp', 'realm_require_e2ee_push_notifications',
  'realm_require_unique_names', 'realm_send_welcome_emails', 'realm_signup_announcements_stream_id',
  'realm_topics_policy', 'realm_upload_quota_mib', 'realm_uri', 'realm_url', 'realm_video_chat_provider',
  'realm_waiting_period_threshold', 'realm_want_advertise_in_communities_directory',
  'realm_welcome_message_custom_text', 'realm_wildcard_mention_policy', 'realm_zulip_update_announcements_stream_id',
  'server_avatar_changes_disabled', 'server_can_summarize_topics', 'server_emoji_data_url', 'server_generation',
  'server_inline_image_preview', 'server_inline_url_embed_preview', 'server_jitsi_server_url',
  'server_max_deactivated_realm_deletion_days', 'server_min_deactivated_realm_deletion_days',
  'server_name_changes_disabled', 'server_needs_upgrade', 'server_presence_offline_threshold_seconds',
  'server_presence_ping_interval_seconds', 'server_supported_permission_settings', 'server_thumbnail_formats',
  'server_typing_started_expiry_period_milliseconds', 'server_typing_started_wait_period_milliseconds',
  'server_typing_stopped_wait_period_milliseconds', 'server_web_public_streams_enabled', 'settings_send_digest_emails',
  'upgrade_text_for_wide_organization_logo', 'zulip_plan_is_not_limited',
];

const DISPLAY_LEGACY = [
  'color_scheme', 'default_language', 'web_home_view', 'demote_inactive_streams', 'emojiset',
  'enable_drafts_synchronization', 'enter_sends', 'fluid_layout_width', 'high_contrast_mode', 'left_side_userlist',
  'starred_message_counts', 'translate_emoticons', 'twenty_four_hour_time', 'emojiset_choices', 'timezone',
];
const NOTIFICATION_LEGACY = [
  'desktop_icon_count_display', 'email_notifications_batching_period_seconds', 'enable_desktop_notifications',
  'enable_digest_emails', 'enable_login_emails', 'enable_marketing_emails', 'enable_offline_email_notifications',
  'enable_offline_push_notifications', 'enable_online_push_notifications', 'enable_sounds',
  'enable_stream_audible_notifications', 'enable_stream_desktop_notifications', 'enable_stream_email_notifications',
  'enable_stream_push_notifications', 'message_content_in_email_notifications', 'notification_sound',
  'pm_content_in_desktop_notifications', 'presence_enabled', 'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify', 'available_notification_sounds',
];

/** The keys each fetch type adds on its own (Zulip's `fetch_initial_state_data`). */
const KEYS_BY_TYPE: Record<string, string[]> = {
  alert_words: ['alert_words'],
  custom_profile_fields: ['custom_profile_fields', 'custom_profile_field_types'],
  onboarding_steps: ['onboarding_steps', 'navigation_tour_video_url'],
  message: ['max_message_id'],
  saved_snippets: ['saved_snippets'],
  navigation_views: ['navigation_views'],
  drafts: ['drafts'],
  scheduled_messages: ['scheduled_messages'],
  reminders: ['reminders'],
  muted_topics: ['muted_topics'],
  muted_users: ['muted_users'],
  presence: ['presences', 'presence_last_update_id', 'server_timestamp'],
  realm_user_groups: ['realm_user_groups'],
  realm: REALM_KEYS,
  realm_user_settings_defaults: ['realm_user_settings_defaults'],
  realm_domains: ['realm_domains'],
  realm_emoji: ['realm_emoji'],
  realm_linkifiers: ['realm_linkifiers'],
  realm_filters: ['realm_filters'],
  realm_playgrounds: ['realm_playgrounds'],
  realm_billing: ['realm_billing'],
  realm_user: [
    'realm_users', 'realm_non_active_users', 'cross_realm_bots', 'avatar_source', 'avatar_url_medium', 'avatar_url',
    'can_create_private_streams', 'can_create_public_streams', 'can_create_web_public_streams', 'can_create_streams',
    'can_invite_others_to_realm', 'is_admin', 'is_owner', 'is_moderator', 'is_guest', 'user_id', 'email',
    'delivery_email', 'full_name',
  ],
  realm_bot: ['realm_bots'],
  realm_embedded_bots: ['realm_embedded_bots'],
  realm_incoming_webhook_bots: ['realm_incoming_webhook_bots'],
  recent_private_conversations: ['recent_private_conversations'],
  subscription: ['subscriptions', 'unsubscribed', 'never_subscribed'],
  channel_folders: ['channel_folders'],
  update_message_flags: [],
  starred_messages: ['starred_messages'],
  stream: ['streams'],
  default_streams: ['realm_default_streams'],
  default_stream_groups: ['realm_default_stream_groups'],
  stop_words: ['stop_words'],
  update_display_settings: DISPLAY_LEGACY,
  update_global_notifications: NOTIFICATION_LEGACY,
  user_settings: ['user_settings'],
  user_status: ['user_status'],
  user_topic: ['user_topics'],
  video_calls: ['has_zoom_token'],
  giphy: ['giphy_api_key'],
  push_device: ['push_devices'],
};

const sorted = (keys: Iterable<string>) => [...keys].sort();

t.test('version keys are always present', async (t) => {
  const r = smallRealm();
  const s = register(r, r.ids.member, { fetchEventTypes: new Set() });
  t.same(sorted(Object.keys(s)), sorted(ALWAYS));
  t.equal(s.zulip_feature_level, 417);
  t.type(s.zulip_version, 'string');
  t.type(s.zulip_merge_base, 'string');
  t.same(checkRegisterState(s), []);
});

t.test('exact key set of every fetch type', async (t) => {
  const r = smallRealm();
  t.same(sorted(REGISTER_FETCH_TYPES), sorted(Object.keys(KEYS_BY_TYPE)), 'the tested types are the served types');
  for (const type of REGISTER_FETCH_TYPES) {
    const s = register(r, r.ids.member, { fetchEventTypes: new Set([type]) });
    t.same(sorted(Object.keys(s)), sorted([...ALWAYS, ...KEYS_BY_TYPE[type]!]), type);
    t.same(checkRegisterState(s), [], `${type}: schema`);
  }
});

t.test('combined and special fetch types', async (t) => {
  const r = smallRealm();
  const keys = (types: string[] | null, caps = {}) =>
    Object.keys(register(r, r.ids.member, { fetchEventTypes: types && new Set(types), clientCapabilities: caps }));
  t.ok(keys(['message', 'update_message_flags']).includes('unread_msgs'), 'unread_msgs needs message + update_message_flags');
  t.notOk(keys(['update_message_flags']).includes('unread_msgs'));
  t.notOk(keys(['message']).includes('unread_msgs'));
  t.notOk(keys(['muted_topics', 'user_topic']).includes('muted_topics'), 'muted_topics suppressed when user_topic is asked for');
  t.ok(keys(['muted_topics', 'user_topic']).includes('user_topics'));

  const all = keys(null);
  const expected = new Set([...ALWAYS, ...Object.values(KEYS_BY_TYPE).flat(), 'unread_msgs']);
  t.same(sorted(all), sorted(expected), 'null = every type (muted_topics included)');
  const modern = keys(null, { user_settings_object: true });
  t.notOk(modern.includes('twenty_four_hour_time'), 'no legacy settings with user_settings_object');
  t.notOk(modern.includes('available_notification_sounds'));
  t.ok(modern.includes('user_settings'));
  t.ok(all.includes('twenty_four_hour_time') && all.includes('pm_content_in_desktop_notifications'), 'legacy settings otherwise');
});

t.test('every user role gets a schema-valid state', async (t) => {
  const r = smallRealm();
  send(r, { senderId: r.ids.owner, to: 'secret', content: 'private words' });
  send(r, { senderId: r.ids.other, messageType: 'private', to: ['member@example.com', 'owner@example.com'], topic: undefined });
  for (const [role, id] of Object.entries(r.ids)) {
    if (id === undefined) continue;
    const capSets: Record<string, boolean>[] = [{}, { user_settings_object: true, notification_settings_null: true, empty_topic_name: true }];
    for (const caps of capSets) {
      for (const slim of [false, true]) {
        const s = register(r, id, { clientCapabilities: caps, slimPresence: slim, clientGravatar: !slim });
        t.same(checkRegisterState(s), [], `${role} caps=${JSON.stringify(caps)} slim=${slim}`);
      }
    }
  }
});
