/**
 * `buildRegisterState` against the small realm: exact key sets per fetch type, schema validity,
 * unread/starred/recent-conversation state after messages, no private-channel leak, capability
 * handling, presence formats, and every key zulip-terminal needs.
 */
import t from 'tap';
import { run, smallRealm, type SmallRealm } from '../support/realm-fixture.js';
import {
  REGISTER_FETCH_TYPES,
  buildRegisterState,
  type RegisterStateOptions,
} from '../../src/events/register-state.js';
import { formatPresences } from '../../src/events/register/presence.js';
import { checkRegisterState } from '../../src/events/schemas.js';
import { Flag } from '../../src/domain/message-index.js';
import type { SendMessage } from '../../src/realm/commands.js';
import type { User } from '../../src/domain/realm-state.js';

type State = Record<string, any>;

const baseOpts: RegisterStateOptions = {
  fetchEventTypes: null,
  applyMarkdown: true,
  clientGravatar: true,
  slimPresence: false,
  includeSubscribers: true,
  allPublicStreams: false,
  narrow: [],
  clientCapabilities: {},
  realmUrl: 'http://127.0.0.1:9991',
  now: 1_700_000_500.25,
};

function register(r: SmallRealm, userId: number, over: Partial<RegisterStateOptions> = {}): State {
  return buildRegisterState(r.state, r.state.users.get(userId)!, { ...baseOpts, ...over });
}

function send(r: SmallRealm, cmd: Partial<SendMessage> & { senderId: number }): number {
  return run(
    r.state,
    { type: 'send_message', messageType: 'stream', to: 'general', topic: 't', content: 'x', client: 'test', ...cmd },
    r.ctx,
  ).id;
}

/** Sets extra UserMessage flag bits on an existing row. */
function addFlags(r: SmallRealm, userId: number, messageId: number, bits: number): void {
  const rows = r.state.messages.users.get(userId)!;
  const i = rows.indexOf(messageId);
  rows.flags.set(i, rows.flags.get(i) | bits);
}

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

t.test('realm section values', async (t) => {
  const r = smallRealm();
  const s = register(r, r.ids.member, { fetchEventTypes: new Set(['realm']) });
  t.match(s, {
    max_message_length: 10000,
    max_topic_length: 60,
    max_stream_name_length: 60,
    max_stream_description_length: 1024,
    server_presence_ping_interval_seconds: 60,
    server_presence_offline_threshold_seconds: 140,
    event_queue_longpoll_timeout_seconds: 90,
    realm_name: 'Test Org',
    realm_url: 'http://127.0.0.1:9991',
    realm_uri: 'http://127.0.0.1:9991',
    realm_message_retention_days: -1,
    realm_allow_message_editing: true,
    realm_message_content_edit_limit_seconds: 600,
    realm_allow_edit_history: true,
    realm_message_edit_history_visibility_policy: 'all',
    realm_topics_policy: 'allow_empty_topic',
    realm_mandatory_topics: false,
    realm_empty_topic_display_name: 'general chat',
    realm_bot_domain: 'chat.example.com',
    realm_date_created: 1_700_000_000,
  });
  const sys = (name: string) => r.state.systemGroups.get(name);
  t.equal(s.realm_can_create_public_channel_group, sys('role:members'), 'stored group setting');
  t.equal(s.realm_can_create_web_public_channel_group, sys('role:owners'));
  t.equal(s.realm_can_manage_billing_group, sys('role:administrators'), 'missing from state: Zulip default');
  t.equal(s.realm_can_set_delete_message_policy_group, sys('role:moderators'));
  t.equal(s.realm_create_public_stream_policy, 1);
  t.equal(s.realm_create_web_public_stream_policy, 7);
  t.equal(s.realm_wildcard_mention_policy, 5);
  r.state.settings.groups.can_create_public_channel_group = { direct_members: [r.ids.member], direct_subgroups: [] };
  const anon = register(r, r.ids.member, { fetchEventTypes: new Set(['realm', 'realm_user']) });
  t.same(anon.realm_can_create_public_channel_group, { direct_members: [r.ids.member], direct_subgroups: [] });
  t.equal(anon.can_create_public_streams, true);
  t.equal(register(r, r.ids.other, { fetchEventTypes: new Set(['realm_user']) }).can_create_public_streams, false);
  t.same(anon.server_supported_permission_settings.realm.can_access_all_users_group, {
    require_system_group: true,
    allow_internet_group: false,
    allow_nobody_group: false,
    allow_everyone_group: true,
    default_group_name: 'role:everyone',
    default_for_system_groups: null,
    allowed_system_groups: ['role:everyone', 'role:members'],
  });
});

t.test('realm_user: lists, own keys, avatars, deactivated users', async (t) => {
  const r = smallRealm();
  r.state.users.get(r.ids.other)!.isActive = false;
  const s = register(r, r.ids.admin, { fetchEventTypes: new Set(['realm_user']) });
  const ids = (list: any[]) => list.map((u) => u.user_id);
  t.same(ids(s.realm_users), [r.ids.owner, r.ids.admin, r.ids.member, r.ids.guest, r.ids.bot], 'active, sorted by id, bots included');
  t.same(ids(s.realm_non_active_users), [r.ids.other]);
  t.same(s.cross_realm_bots, []);
  for (const u of [...s.realm_users, ...s.realm_non_active_users]) t.notOk('is_active' in u, `no is_active for ${u.user_id}`);
  const bot = s.realm_users.find((u: any) => u.user_id === r.ids.bot);
  t.match(bot, { is_bot: true, bot_type: 1, bot_owner_id: r.ids.member });
  t.notOk('profile_data' in bot);
  t.same(s.realm_users[0].profile_data, {});
  t.equal(s.realm_users[0].avatar_url, null, 'client_gravatar: null avatar for public emails');
  t.match(s, {
    user_id: r.ids.admin,
    email: 'admin@example.com',
    delivery_email: 'admin@example.com',
    full_name: 'Adam Admin',
    is_admin: true,
    is_owner: false,
    is_moderator: true,
    is_guest: false,
    avatar_source: 'G',
    can_create_streams: true,
    can_create_web_public_streams: false,
    can_invite_others_to_realm: true,
  });
  t.match(s.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
  t.equal(s.avatar_url_medium, `${s.avatar_url}&s=500`);
  const noGravatar = register(r, r.ids.admin, { fetchEventTypes: new Set(['realm_user']), clientGravatar: false });
  t.type(noGravatar.realm_users[0].avatar_url, 'string');
  const guest = register(r, r.ids.guest, { fetchEventTypes: new Set(['realm_user']) });
  t.match(guest, { is_guest: true, is_admin: false, is_moderator: false, can_create_streams: false, can_invite_others_to_realm: false });
});

t.test('realm_bots: owners see theirs, administrators see all', async (t) => {
  const r = smallRealm();
  const bots = (id: number) => register(r, id, { fetchEventTypes: new Set(['realm_bot']) }).realm_bots;
  t.match(bots(r.ids.member), [{ user_id: r.ids.bot, owner_id: r.ids.member, bot_type: 1, is_active: true, services: [] }]);
  t.type(bots(r.ids.member)[0].api_key, 'string');
  t.same(bots(r.ids.other), []);
  t.equal(bots(r.ids.admin).length, 1);
});

t.test('realm_user_groups: system groups with role members and the subgroup chain', async (t) => {
  const r = smallRealm();
  const groups: any[] = register(r, r.ids.member, { fetchEventTypes: new Set(['realm_user_groups']) }).realm_user_groups;
  const byName = new Map(groups.map((g) => [g.name, g]));
  const id = (name: string) => byName.get(name).id;
  t.same(groups.map((g) => g.id), [...groups.map((g) => g.id)].sort((a, b) => a - b), 'sorted by id');
  t.same(byName.get('role:owners').members, [r.ids.owner]);
  t.same(byName.get('role:administrators').members, [r.ids.admin]);
  t.same(byName.get('role:moderators').members, []);
  t.same(byName.get('role:members').members, [r.ids.member, r.ids.other, r.ids.bot]);
  t.same(byName.get('role:fulltimemembers').members, [r.ids.member, r.ids.other, r.ids.bot]);
  t.same(byName.get('role:everyone').members, [r.ids.guest]);
  t.same(byName.get('role:internet').members, []);
  t.same(byName.get('role:nobody').direct_subgroup_ids, []);
  t.same(byName.get('role:administrators').direct_subgroup_ids, [id('role:owners')]);
  t.same(byName.get('role:everyone').direct_subgroup_ids, [id('role:members')]);
  t.same(byName.get('role:internet').direct_subgroup_ids, [id('role:everyone')]);
  t.match(byName.get('role:members'), {
    is_system_group: true,
    deactivated: false,
    creator_id: null,
    can_mention_group: id('role:nobody'),
    can_manage_group: id('role:nobody'),
  });
});

t.test('subscriptions, never_subscribed, streams and default streams', async (t) => {
  const r = smallRealm();
  const s = register(r, r.ids.member);
  t.same(s.subscriptions.map((x: any) => x.name), ['general', 'secret'], 'sorted by name');
  t.same(s.never_subscribed.map((x: any) => x.name), ['empty']);
  t.same(s.unsubscribed, []);
  t.same(s.streams.map((x: any) => x.name), ['empty', 'general', 'secret']);
  const general = s.subscriptions[0];
  t.same(general.subscribers, [r.ids.owner, r.ids.admin, r.ids.member, r.ids.other]);
  t.equal(general.desktop_notifications, false, 'null replaced without notification_settings_null');
  t.equal(general.wildcard_mentions_notify, null, 'wildcard_mentions_notify stays null');
  const nullCaps = register(r, r.ids.member, { clientCapabilities: { notification_settings_null: true }, includeSubscribers: false });
  t.equal(nullCaps.subscriptions[0].desktop_notifications, null);
  t.notOk('subscribers' in nullCaps.subscriptions[0]);
  t.notOk('subscribers' in nullCaps.never_subscribed[0]);

  r.state.streams.get(r.streams.general)!.isDefault = true;
  t.same(register(r, r.ids.member).realm_default_streams, [r.streams.general]);
  t.same(register(r, r.ids.guest).realm_default_streams, [], 'guests see no default streams');

  r.state.streams.get(r.streams.empty)!.isArchived = true;
  t.same(register(r, r.ids.member).never_subscribed, [], 'archived hidden');
  t.same(
    register(r, r.ids.member, { clientCapabilities: { archived_channels: true } }).never_subscribed.map((x: any) => x.name),
    ['empty'],
    'archived_channels capability',
  );
});

t.test('a private channel never leaks to non-subscribers or guests', async (t) => {
  const r = smallRealm();
  const id = send(r, { senderId: r.ids.owner, to: 'secret', topic: 'plans', content: 'hush' });
  for (const [who, userId] of [['other', r.ids.other], ['guest', r.ids.guest]] as const) {
    const s = register(r, userId);
    const json = JSON.stringify(s);
    t.notOk(json.includes('"secret"'), `${who}: channel name absent`);
    t.notOk(json.includes('"plans"'), `${who}: topic absent`);
    t.notOk(s.streams.some((x: any) => x.stream_id === r.streams.secret), `${who}: not in streams`);
    t.notOk(s.unread_msgs.streams.some((x: any) => x.stream_id === r.streams.secret));
    t.ok(s.max_message_id < id, `${who}: max_message_id does not reveal the message`);
  }
  const guest = register(r, r.ids.guest);
  t.same(guest.streams, [], 'a guest sees no public channel it is not subscribed to');
  t.same(guest.never_subscribed, []);
  const admin = register(r, r.ids.admin);
  t.ok(admin.never_subscribed.some((x: any) => x.stream_id === r.streams.secret), 'administrators see private channels');
  t.notOk(admin.unread_msgs.streams.some((x: any) => x.stream_id === r.streams.secret));

  // A member who left the channel keeps the UserMessage row but no unread entry.
  r.state.subscriptions.get(r.streams.secret)!.delete(r.ids.member);
  r.state.userStreams.get(r.ids.member)!.delete(r.streams.secret);
  const left = register(r, r.ids.member);
  t.notOk(left.unread_msgs.streams.some((x: any) => x.stream_id === r.streams.secret), 'left channel: no unread');
  t.notOk(JSON.stringify(left).includes('"secret"'));
});

t.test('unread_msgs, starred_messages, recent_private_conversations, max_message_id', async (t) => {
  const r = smallRealm();
  const { owner, admin, member, other } = r.ids;
  const m1 = send(r, { senderId: other, topic: 'Lunch' });
  const m2 = send(r, { senderId: owner, topic: 'lunch' });
  const m3 = send(r, { senderId: other, topic: 'alpha' });
  const m4 = send(r, { senderId: member, topic: 'alpha', readBySender: true });
  const m5 = send(r, { senderId: owner, to: 'secret', topic: '' });
  const d1 = send(r, { senderId: other, messageType: 'private', to: ['member@example.com'], topic: undefined });
  const d2 = send(r, { senderId: owner, messageType: 'private', to: ['member@example.com'], topic: undefined });
  const d3 = send(r, { senderId: other, messageType: 'private', to: ['member@example.com', 'owner@example.com'], topic: undefined });
  const d4 = send(r, { senderId: member, messageType: 'private', to: ['member@example.com'], topic: undefined, readBySender: false });
  const d5 = send(r, { senderId: other, messageType: 'private', to: ['member@example.com'], topic: undefined });
  const d6 = send(r, { senderId: admin, messageType: 'private', to: ['other@example.com'], topic: undefined });
  addFlags(r, member, m3, Flag.mentioned);
  addFlags(r, member, m1, Flag.stream_wildcard_mentioned);
  addFlags(r, member, d2, Flag.read | Flag.starred);
  addFlags(r, member, m2, Flag.starred);

  const s = register(r, member);
  t.equal(s.max_message_id, d5, 'highest message the member received (not d6)');
  t.same(s.unread_msgs, {
    pms: [
      { other_user_id: member, sender_id: member, unread_message_ids: [d4] },
      { other_user_id: other, sender_id: other, unread_message_ids: [d1, d5] },
    ],
    streams: [
      { stream_id: r.streams.general, topic: 'alpha', unread_message_ids: [m3] },
      { stream_id: r.streams.general, topic: 'Lunch', unread_message_ids: [m1, m2] },
      { stream_id: r.streams.secret, topic: 'general chat', unread_message_ids: [m5] },
    ],
    huddles: [{ user_ids_string: [owner, member, other].sort((a, b) => a - b).join(','), unread_message_ids: [d3] }],
    mentions: [m1, m3],
    count: 8,
    old_unreads_missing: false,
  });
  const unreadIds = [...s.unread_msgs.pms, ...s.unread_msgs.streams, ...s.unread_msgs.huddles].flatMap((b: any) => b.unread_message_ids);
  t.notOk(unreadIds.includes(m4), 'own read message not unread');
  t.same(s.starred_messages, [m2, d2]);
  t.same(s.recent_private_conversations, [
    { user_ids: [other], max_message_id: d5 },
    { user_ids: [], max_message_id: d4 },
    { user_ids: [owner, other].sort((a, b) => a - b), max_message_id: d3 },
    { user_ids: [owner], max_message_id: d2 },
  ]);

  const modern = register(r, member, { clientCapabilities: { empty_topic_name: true } });
  t.equal(modern.unread_msgs.streams.find((x: any) => x.stream_id === r.streams.secret).topic, '', 'empty_topic_name');

  r.state.subscriptions.get(r.streams.general)!.get(member)!.isMuted = true;
  const muted = register(r, member);
  t.equal(muted.unread_msgs.count, 5, 'muted channel: listed but not counted (3 of 8 were there)');
  t.equal(muted.unread_msgs.streams.length, 3);
  t.same(muted.unread_msgs.mentions, [m3], 'wildcard mention in a muted channel does not count');

  // Zulip keeps a channel the user never joined (their own message there) but not one they left.
  const own = send(r, { senderId: member, to: 'empty', topic: 'solo', readBySender: false });
  t.same(
    register(r, member).unread_msgs.streams.find((x: any) => x.stream_id === r.streams.empty),
    { stream_id: r.streams.empty, topic: 'solo', unread_message_ids: [own] },
    'own unread message in a public channel the user is not subscribed to',
  );

  const fresh = smallRealm();
  const empty = register(fresh, fresh.ids.member);
  t.equal(empty.max_message_id, -1);
  t.same(empty.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
  t.same(empty.recent_private_conversations, []);
  t.same(empty.starred_messages, []);
});

t.test('presence formats: legacy keyed by email, slim keyed by user id', async (t) => {
  const rows = [{ userId: 7, email: 'a@example.com', lastActiveTime: 1000, lastConnectedTime: 1060 }];
  const legacy = formatPresences(rows, false);
  t.same(Object.keys(legacy), ['a@example.com']);
  t.same(legacy['a@example.com'], {
    aggregated: { client: 'website', status: 'active', timestamp: 1000 },
    website: { client: 'website', status: 'active', timestamp: 1000, pushable: false },
  });
  const idle = formatPresences([{ ...rows[0]!, lastConnectedTime: 1100 }], false) as any;
  t.match(idle['a@example.com'].aggregated, { status: 'idle', timestamp: 1100 });
  t.same(formatPresences(rows, true), { '7': { active_timestamp: 1000, idle_timestamp: 1060 } });
  t.same(checkRegisterState({ presences: legacy }), []);
  t.same(checkRegisterState({ presences: formatPresences(rows, true) }), []);

  const r = smallRealm();
  for (const slim of [false, true]) {
    const s = register(r, r.ids.member, { fetchEventTypes: new Set(['presence']), slimPresence: slim });
    t.same(s.presences, {});
    t.equal(s.presence_last_update_id, -1);
    t.equal(s.server_timestamp, baseOpts.now);
  }
});

t.test('user_settings and legacy settings', async (t) => {
  const r = smallRealm();
  const user: User = r.state.users.get(r.ids.member)!;
  user.timezone = 'Europe/Berlin';
  user.emailAddressVisibility = 3;
  const s = register(r, r.ids.member);
  t.match(s.user_settings, {
    twenty_four_hour_time: false,
    send_private_typing_notifications: true,
    pm_content_in_desktop_notifications: true,
    email_address_visibility: 3,
    timezone: 'Europe/Berlin',
    resolved_topic_notice_auto_read_policy: 'except_followed',
    web_home_view: 'inbox',
  });
  t.ok(Array.isArray(s.user_settings.emojiset_choices) && s.user_settings.available_notification_sounds.includes('zulip'));
  t.equal(s.timezone, 'Europe/Berlin', 'legacy top-level timezone');
  t.notOk('timezone' in s.realm_user_settings_defaults);
  t.equal(s.realm_user_settings_defaults.email_address_visibility, 1);
});

t.test('zulip-terminal: every key it reads is present', async (t) => {
  const r = smallRealm();
  send(r, { senderId: r.ids.other, topic: 'hello' });
  send(r, { senderId: r.ids.other, messageType: 'private', to: ['member@example.com'], topic: undefined });
  send(r, { senderId: r.ids.other, messageType: 'private', to: ['member@example.com', 'owner@example.com'], topic: undefined });
  const ztFetch = new Set([
    'realm', 'presence', 'subscription', 'message', 'starred_messages', 'update_message_flags', 'muted_topics',
    'realm_user', 'realm_user_groups', 'user_settings', 'realm_emoji', 'custom_profile_fields', 'zulip_version',
  ]);
  for (const [label, fetch] of [['zulip-terminal fetch types', ztFetch], ['all types', null]] as const) {
    const s = register(r, r.ids.member, { fetchEventTypes: fetch, clientGravatar: true, includeSubscribers: true });
    t.same(checkRegisterState(s), [], `${label}: schema`);
    for (const key of [
      'max_message_id', 'zulip_version', 'zulip_feature_level', 'user_id', 'email', 'full_name', 'realm_name',
      'realm_message_retention_days', 'realm_users', 'cross_realm_bots', 'presences', 'subscriptions', 'unread_msgs',
      'starred_messages', 'muted_topics', 'realm_user_groups', 'user_settings', 'realm_emoji',
      'realm_allow_message_editing', 'realm_message_content_edit_limit_seconds', 'realm_allow_edit_history',
      'custom_profile_fields', 'max_stream_name_length', 'max_topic_length', 'max_message_length',
      'server_typing_started_wait_period_milliseconds', 'server_typing_stopped_wait_period_milliseconds',
      'server_typing_started_expiry_period_milliseconds', 'server_presence_offline_threshold_seconds',
      'server_presence_ping_interval_seconds',
    ]) {
      t.ok(key in s, `${label}: ${key}`);
    }
    t.type(s.zulip_feature_level, 'number');
    t.ok(s.zulip_feature_level >= 300, 'a modern feature level');
    for (const u of s.realm_users) t.ok(['user_id', 'email', 'full_name', 'is_bot'].every((k) => k in u), `realm_users[${u.user_id}]`);
    for (const sub of s.subscriptions) {
      for (const k of [
        'stream_id', 'name', 'color', 'description', 'invite_only', 'is_muted', 'pin_to_top', 'desktop_notifications',
        'message_retention_days', 'subscribers', 'date_created', 'history_public_to_subscribers', 'stream_weekly_traffic',
        'rendered_description',
      ]) {
        t.ok(k in sub, `subscriptions[${sub.name}].${k}`);
      }
      t.match(sub.color, /^#[0-9a-f]{6}$/);
      t.type(sub.desktop_notifications, 'boolean');
    }
    const u = s.unread_msgs;
    t.ok(u.pms.length > 0 && u.pms.every((p: any) => typeof p.sender_id === 'number' && Array.isArray(p.unread_message_ids)));
    t.ok(u.streams.length > 0 && u.streams.every((x: any) => 'stream_id' in x && 'topic' in x && 'unread_message_ids' in x));
    t.ok(u.huddles.length > 0 && u.huddles.every((h: any) => /^\d+(,\d+)+$/.test(h.user_ids_string)));
    t.ok(Array.isArray(u.mentions));
    t.ok(Array.isArray(s.starred_messages));
    t.ok(Array.isArray(s.muted_topics) && s.muted_topics.every((x: unknown[]) => x.length === 3));
    t.ok(s.realm_user_groups.every((g: any) => 'id' in g && 'name' in g));
    for (const k of ['send_private_typing_notifications', 'twenty_four_hour_time', 'pm_content_in_desktop_notifications']) {
      t.type(s.user_settings[k], 'boolean', `user_settings.${k}`);
    }
    t.same(s.realm_emoji, {});
    t.type(s.presences, 'object');
  }
});

t.test('fetching everything stays cheap with many messages', async (t) => {
  const r = smallRealm();
  const { state } = r;
  const general = state.streams.get(r.streams.general)!;
  const topicId = state.topics.intern('bulk');
  const clientId = state.clients.intern('test');
  const rows = state.messages.userMessages(r.ids.member);
  const n = 200_000;
  for (let id = 1; id <= n; id++) {
    state.messages.add({ id, senderId: r.ids.other, recipientId: general.recipientId, topicId, timestamp: 1_700_000_000 + id, clientId, bits: 0 });
    rows.append(id, id % 3 === 0 ? 0 : Flag.read);
  }
  state.nextIds.message = n + 1;
  register(r, r.ids.member); // warm up
  const start = performance.now();
  const s = register(r, r.ids.member);
  const ms = performance.now() - start;
  t.equal(s.unread_msgs.streams[0].unread_message_ids.length, 50_000, 'capped at the newest 50 000 unread');
  t.equal(s.unread_msgs.old_unreads_missing, true);
  t.equal(s.unread_msgs.streams[0].unread_message_ids.at(-1), n - (n % 3));
  t.ok(ms < 500, `built in ${ms.toFixed(1)} ms`);
});
