/**
 * typebox schemas of the top-level keys of the `POST /register` response, one per key, as the
 * OpenAPI description types them (Zulip's zerver/openapi/zulip.yaml, operation `register-queue`,
 * https://zulip.com/api/register-queue, updated to feature level 417: group-setting values,
 * `realm_topics_policy`,
 * `presence_last_update_id`, channel folders, navigation views…). Objects are strict
 * (`additionalProperties: false`), like Zulip's own event-schema checker, so an extra or
 * misspelled key is an error. Used through `checkRegisterState` in `events/schemas.ts`.
 */
import Type, { type TSchema } from 'typebox';
import { DISPLAY_SETTINGS_LEGACY, NOTIFICATION_SETTINGS_LEGACY, USER_SETTING_DEFAULTS } from '../../domain/user-setting-defaults.js';
import { GroupSettingValueSchema, REALM_KEY_SCHEMAS } from './realm-schemas.js';
import { STREAM_GROUP_SETTINGS } from '../../domain/realm-state.js';

import { Bool, Int, IntList, keyed, Nullable, Str, strict } from './schema-helpers.js';
import { ReminderObject, ScheduledMessageObject } from '../scheduled-message-schemas.js';

/** A channel folder object (Zulip's `ChannelFolderDict`, FL 414 with `order`). */
export const ChannelFolderSchema = Type.Object(
  {
    id: Int(),
    name: Str(),
    description: Str(),
    rendered_description: Str(),
    creator_id: Nullable(Int()),
    date_created: Int(),
    is_archived: Bool(),
    order: Int(),
  },
  strict,
);

export { GroupSettingValueSchema };

const TopicsPolicy = Type.Enum(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only']);

/** Channel permission settings of a stream object. */
const STREAM_GROUP_KEYS = STREAM_GROUP_SETTINGS;

const streamProperties = {
  stream_id: Int(),
  name: Str(),
  description: Str(),
  rendered_description: Str(),
  date_created: Int(),
  creator_id: Nullable(Int()),
  invite_only: Bool(),
  is_web_public: Bool(),
  history_public_to_subscribers: Bool(),
  first_message_id: Nullable(Int()),
  folder_id: Nullable(Int()),
  is_archived: Bool(),
  is_recently_active: Bool(),
  message_retention_days: Nullable(Int()),
  stream_post_policy: Int(),
  is_announcement_only: Bool(),
  stream_weekly_traffic: Nullable(Int()),
  topics_policy: TopicsPolicy,
  subscriber_count: Int(),
  is_default: Type.Optional(Bool()),
  ...keyed(STREAM_GROUP_KEYS, GroupSettingValueSchema),
};

/** A stream object (`streams`, and `never_subscribed` entries with optional `subscribers`). */
export const StreamSchema = Type.Object(
  { ...streamProperties, subscribers: Type.Optional(IntList()), partial_subscribers: Type.Optional(IntList()) },
  strict,
);

/** A subscription object: the stream plus the user's settings. */
export const SubscriptionSchema = Type.Object(
  {
    ...streamProperties,
    color: Str(),
    is_muted: Bool(),
    in_home_view: Bool(),
    pin_to_top: Bool(),
    desktop_notifications: Nullable(Bool()),
    audible_notifications: Nullable(Bool()),
    push_notifications: Nullable(Bool()),
    email_notifications: Nullable(Bool()),
    wildcard_mentions_notify: Nullable(Bool()),
    subscribers: Type.Optional(IntList()),
    partial_subscribers: Type.Optional(IntList()),
  },
  strict,
);

/** A user object in `realm_users` / `realm_non_active_users` / `cross_realm_bots` (no `is_active`). */
export const RegisterUserSchema = Type.Object(
  {
    email: Str(),
    user_id: Int(),
    avatar_version: Int(),
    is_admin: Bool(),
    is_owner: Bool(),
    is_guest: Bool(),
    role: Type.Enum([100, 200, 300, 400, 600]),
    is_bot: Bool(),
    full_name: Str(),
    timezone: Str(),
    date_joined: Str(),
    delivery_email: Nullable(Str()),
    avatar_url: Type.Optional(Nullable(Str())),
    profile_data: Type.Optional(
      Type.Record(Str(), Type.Object({ value: Str(), rendered_value: Type.Optional(Nullable(Str())) }, strict)),
    ),
    bot_type: Type.Optional(Nullable(Int())),
    bot_owner_id: Type.Optional(Nullable(Int())),
    is_system_bot: Type.Optional(Bool()),
  },
  strict,
);

/** A custom profile field (`custom_profile_fields`, and the `custom_profile_fields` event). */
export const CustomProfileFieldSchema = Type.Object(
  {
    id: Int(),
    type: Int(),
    order: Int(),
    name: Str(),
    hint: Str(),
    field_data: Str(),
    display_in_profile_summary: Type.Optional(Bool()),
    required: Bool(),
    editable_by_user: Bool(),
  },
  strict,
);

/** A user group object (`realm_user_groups`, `user_group` op `add`). */
export const UserGroupSchema = Type.Object(
  {
    id: Int(),
    name: Str(),
    creator_id: Nullable(Int()),
    date_created: Nullable(Int()),
    description: Str(),
    members: IntList(),
    direct_subgroup_ids: IntList(),
    is_system_group: Bool(),
    can_add_members_group: GroupSettingValueSchema,
    can_join_group: GroupSettingValueSchema,
    can_leave_group: GroupSettingValueSchema,
    can_manage_group: GroupSettingValueSchema,
    can_mention_group: GroupSettingValueSchema,
    can_remove_members_group: GroupSettingValueSchema,
    deactivated: Bool(),
  },
  strict,
);

/** A bot object (`realm_bots`, `realm_bot` op `add`). */
export const BotSchema = Type.Object(
  {
    email: Str(),
    user_id: Int(),
    full_name: Str(),
    bot_type: Nullable(Int()),
    is_active: Bool(),
    api_key: Str(),
    default_sending_stream: Nullable(Str()),
    default_events_register_stream: Nullable(Str()),
    default_all_public_streams: Bool(),
    owner_id: Nullable(Int()),
    avatar_url: Str(),
    services: Type.Array(Type.Record(Str(), Type.Unknown())),
  },
  strict,
);

const UnreadSchema = Type.Object(
  {
    pms: Type.Array(Type.Object({ other_user_id: Int(), sender_id: Int(), unread_message_ids: IntList() }, strict)),
    streams: Type.Array(Type.Object({ stream_id: Int(), topic: Str(), unread_message_ids: IntList() }, strict)),
    huddles: Type.Array(Type.Object({ user_ids_string: Str(), unread_message_ids: IntList() }, strict)),
    mentions: IntList(),
    count: Int(),
    old_unreads_missing: Bool(),
  },
  strict,
);

const LegacyPresence = Type.Object(
  {
    aggregated: Type.Object({ client: Str(), status: Type.Union([Type.Literal('active'), Type.Literal('idle')]), timestamp: Int() }, strict),
  },
  { additionalProperties: Type.Object({ client: Str(), status: Str(), timestamp: Int(), pushable: Bool() }, strict) },
);
const SlimPresence = Type.Object({ active_timestamp: Int(), idle_timestamp: Int() }, strict);

const NameId = Type.Object({ name: Str(), id: Int() }, strict);

/** Schema of a personal setting from the type of its default value. */
function settingSchema(value: unknown): TSchema {
  if (typeof value === 'boolean') return Bool();
  if (typeof value === 'number') return Int();
  return Str();
}
const settingSchemas = (settings: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, settingSchema(v)]));
const settingProperties = settingSchemas(USER_SETTING_DEFAULTS);
const EmojisetChoices = Type.Array(Type.Object({ key: Str(), text: Str() }, strict));

/** Every top-level key parley may put in a register response, with its schema. */
export const REGISTER_KEY_SCHEMAS: Readonly<Record<string, TSchema>> = {
  queue_id: Nullable(Str()),
  last_event_id: Int(),
  idle_queue_timeout_secs: Int(),
  zulip_version: Str(),
  zulip_feature_level: Int(),
  zulip_merge_base: Str(),
  alert_words: Type.Array(Str()),
  custom_profile_fields: Type.Array(CustomProfileFieldSchema),
  custom_profile_field_types: Type.Record(Str(), NameId),
  onboarding_steps: Type.Array(Type.Object({ type: Str(), name: Str() }, strict)),
  navigation_tour_video_url: Nullable(Str()),
  max_message_id: Int(),
  saved_snippets: Type.Array(Type.Object({ id: Int(), title: Str(), content: Str(), date_created: Int() }, strict)),
  navigation_views: Type.Array(Type.Object({ fragment: Str(), is_pinned: Bool(), name: Nullable(Str()) }, strict)),
  drafts: Type.Array(
    Type.Object(
      {
        id: Int(),
        type: Type.Union([Type.Literal(''), Type.Literal('stream'), Type.Literal('private')]),
        to: IntList(),
        topic: Str(),
        content: Str(),
        timestamp: Int(),
      },
      strict,
    ),
  ),
  scheduled_messages: Type.Array(ScheduledMessageObject),
  reminders: Type.Array(ReminderObject),
  muted_topics: Type.Array(Type.Tuple([Str(), Str(), Int()])),
  muted_users: Type.Array(Type.Object({ id: Int(), timestamp: Int() }, strict)),
  presences: Type.Union([Type.Record(Str(), LegacyPresence), Type.Record(Type.String({ pattern: '^[0-9]+$' }), SlimPresence)]),
  presence_last_update_id: Int(),
  server_timestamp: Type.Number(),
  realm_user_groups: Type.Array(UserGroupSchema),
  ...REALM_KEY_SCHEMAS,
  realm_user_settings_defaults: Type.Object(
    { ...settingProperties, emojiset_choices: EmojisetChoices, available_notification_sounds: Type.Array(Str()) },
    strict,
  ),
  realm_domains: Type.Array(Type.Object({ domain: Str(), allow_subdomains: Bool() }, strict)),
  realm_emoji: Type.Record(
    Str(),
    Type.Object(
      {
        id: Str(),
        name: Str(),
        source_url: Str(),
        still_url: Type.Optional(Nullable(Str())),
        deactivated: Bool(),
        author_id: Nullable(Int()),
      },
      strict,
    ),
  ),
  realm_linkifiers: Type.Array(Type.Object({ pattern: Str(), url_template: Str(), id: Int() }, strict)),
  realm_filters: Type.Array(Type.Tuple([Str(), Str(), Int()])),
  realm_playgrounds: Type.Array(
    Type.Object({ id: Int(), name: Str(), pygments_language: Str(), url_template: Str() }, strict),
  ),
  realm_billing: Type.Object({ has_pending_sponsorship_request: Bool() }, strict),
  realm_users: Type.Array(RegisterUserSchema),
  realm_non_active_users: Type.Array(RegisterUserSchema),
  cross_realm_bots: Type.Array(RegisterUserSchema),
  avatar_source: Type.Union([Type.Literal('G'), Type.Literal('U')]),
  avatar_url_medium: Str(),
  avatar_url: Str(),
  can_create_private_streams: Bool(),
  can_create_public_streams: Bool(),
  can_create_web_public_streams: Bool(),
  can_create_streams: Bool(),
  can_invite_others_to_realm: Bool(),
  is_admin: Bool(),
  is_owner: Bool(),
  is_moderator: Bool(),
  is_guest: Bool(),
  user_id: Int(),
  email: Str(),
  delivery_email: Str(),
  full_name: Str(),
  realm_bots: Type.Array(BotSchema),
  realm_embedded_bots: Type.Array(Type.Object({ name: Str(), config: Type.Record(Str(), Str()) }, strict)),
  realm_incoming_webhook_bots: Type.Array(
    Type.Object(
      {
        name: Str(),
        display_name: Str(),
        all_event_types: Nullable(Type.Array(Str())),
        config_options: Type.Optional(Type.Array(Type.Object({ key: Str(), label: Str(), validator: Str() }, strict))),
        url_options: Type.Optional(Type.Array(Type.Object({ key: Str(), label: Str(), validator: Str() }, strict))),
      },
      strict,
    ),
  ),
  recent_private_conversations: Type.Array(Type.Object({ max_message_id: Int(), user_ids: IntList() }, strict)),
  subscriptions: Type.Array(SubscriptionSchema),
  unsubscribed: Type.Array(SubscriptionSchema),
  never_subscribed: Type.Array(StreamSchema),
  channel_folders: Type.Array(ChannelFolderSchema),
  unread_msgs: UnreadSchema,
  starred_messages: IntList(),
  streams: Type.Array(StreamSchema),
  realm_default_streams: IntList(),
  realm_default_stream_groups: Type.Array(
    Type.Object({ name: Str(), id: Int(), description: Str(), streams: IntList() }, strict),
  ),
  stop_words: Type.Array(Str()),
  // Legacy top-level settings (update_display_settings / update_global_notifications).
  ...settingSchemas(DISPLAY_SETTINGS_LEGACY),
  ...settingSchemas(NOTIFICATION_SETTINGS_LEGACY),
  emojiset_choices: EmojisetChoices,
  timezone: Str(),
  available_notification_sounds: Type.Array(Str()),
  user_settings: Type.Object(
    {
      ...settingProperties,
      emojiset_choices: EmojisetChoices,
      timezone: Str(),
      available_notification_sounds: Type.Array(Str()),
    },
    strict,
  ),
  user_status: Type.Record(
    Str(),
    Type.Object(
      {
        away: Type.Optional(Bool()),
        status_text: Type.Optional(Str()),
        emoji_name: Type.Optional(Str()),
        emoji_code: Type.Optional(Str()),
        reaction_type: Type.Optional(Str()),
        scheduled_end_time: Type.Optional(Nullable(Int())),
      },
      strict,
    ),
  ),
  user_topics: Type.Array(
    Type.Object({ stream_id: Int(), topic_name: Str(), last_updated: Int(), visibility_policy: Int() }, strict),
  ),
  has_zoom_token: Bool(),
  giphy_api_key: Str(),
  push_devices: Type.Record(Str(), Type.Object({ status: Str(), error_code: Nullable(Str()) }, strict)),
};
