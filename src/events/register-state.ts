/**
 * The initial state of `POST /register` (https://zulip.com/api/register-queue; Zulip's
 * `fetch_initial_state_data` + `post_process_state` in `zerver/lib/events.py`, at feature level
 * 417). The register endpoint (`api/events.ts`) calls `buildRegisterState` and adds `queue_id`
 * and `last_event_id`.
 *
 * The response holds exactly the keys Zulip returns for each requested *fetch type* (the
 * register's `fetch_event_types`, or its `event_types` when that is absent; `null` = every
 * type). `REGISTER_FETCH_TYPES` lists them; per-type builders live in `./register/*.ts`.
 * `zulip_version`, `zulip_feature_level` and `zulip_merge_base` are always present.
 *
 * Cost: this runs on every client start, synchronously on the realm's state. Everything is
 * O(users + channels + groups) except the message-derived keys, which read the requesting
 * user's own UserMessage columns once (`register/messages.ts`), never the realm's messages.
 *
 * Features parley does not have yet are present with Zulip's empty value (`[]`, `{}`, `false`,
 * `-1`) and the exact key name, so clients never miss a key; the features' issues fill them in.
 */
import type { RealmState, User } from '../domain/realm-state.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../version.js';
import { CUSTOM_PROFILE_FIELD_TYPES } from './register/constants.js';
import { fieldsToWire } from '../domain/custom-profile-fields.js';
import { maxMessageId, scanUserMessages } from './register/messages.js';
import { formatPresences } from './register/presence.js';
import { visiblePresenceRows } from '../domain/presence-visibility.js';
import { apiEmail } from '../domain/users.js';
import { realmSection } from './register/realm.js';
import { defaultStreamIds, streamSection, subscriptionSection } from './register/streams.js';
import { realmUserGroups } from './register/user-groups.js';
import { linkifiersWire } from '../domain/linkifiers.js';
import { realmEmojiWire } from '../domain/realm-emoji.js';
import {
  legacyDisplaySettings,
  legacyNotificationSettings,
  realmUserSettingsDefaults,
  userSettingsSection,
} from './register/user-settings.js';
import { realmBots, realmUserSection } from './register/users.js';
import { INCOMING_INTEGRATIONS } from '../domain/integrations.js';
import { mutedTopicsWire, userTopicsWire } from '../domain/user-topics.js';
import { userStatusOf, userStatusRegister } from '../domain/user-status.js';
import { playgroundsWire } from '../domain/realm-playgrounds.js';
import { realmDomainsWire } from '../domain/realm-domains.js';
import { navigationViewsWire } from '../domain/navigation-views.js';
import { channelFoldersWire } from '../domain/channel-folders.js';
import { draftsForRegister } from '../domain/drafts.js';
import { remindersForUser, scheduledMessagesForUser } from '../domain/scheduled-messages.js';
import { Role } from '../domain/realm-state.js';
import { alertWordsOf } from '../domain/alert-words.js';
import { savedSnippetsWire } from '../domain/saved-snippets.js';
import { mutedUsersWire } from '../domain/muted-users.js';

/** What the client asked for at `POST /register` (the parts the initial state depends on). */
export interface RegisterStateOptions {
  /** Fetch types to include; null = all (Zulip's `event_types=None`). */
  fetchEventTypes: ReadonlySet<string> | null;
  /** Does not change the initial state (only message events); accepted for symmetry. */
  applyMarkdown: boolean;
  /** `avatar_url: null` in `realm_users` for gravatar users whose email is public. */
  clientGravatar: boolean;
  /** `presences` keyed by user id (modern format) instead of by email. */
  slimPresence: boolean;
  /** `subscribers` lists in `subscriptions` / `never_subscribed`. */
  includeSubscribers: boolean;
  /** Only affects which events the queue receives, not the initial state. */
  allPublicStreams: boolean;
  /** Only filters events, not the initial state (Zulip ignores it in `fetch_initial_state_data`). */
  narrow: ReadonlyArray<{ operator: string; operand: unknown; negated?: boolean }>;
  /**
   * `client_capabilities`. Read here: `notification_settings_null`, `user_settings_object`,
   * `linkifier_url_template`, `include_deactivated_groups`, `archived_channels`, `empty_topic_name`.
   */
  clientCapabilities: Readonly<Record<string, boolean>>;
  /** The realm's configured URL (`RealmState.url`), e.g. `https://chat.example.com` (no trailing slash). */
  realmUrl: string;
  /** UNIX seconds (fractional) for `server_timestamp`; default: now. */
  now?: number;
  /** Upload limit to report as `max_file_upload_size_mib`; default 25 (Zulip's). */
  maxFileUploadSizeMib?: number;
  /** `realm_upload_quota_mib` to report; default null (no quota). */
  uploadQuotaMib?: number | null;
}

/** Every fetch type `POST /register` understands at FL 417, in Zulip's order. */
export const REGISTER_FETCH_TYPES = [
  'alert_words',
  'custom_profile_fields',
  'onboarding_steps',
  'message',
  'saved_snippets',
  'navigation_views',
  'drafts',
  'scheduled_messages',
  'reminders',
  'muted_topics',
  'muted_users',
  'presence',
  'realm_user_groups',
  'realm',
  'realm_user_settings_defaults',
  'realm_domains',
  'realm_emoji',
  'realm_linkifiers',
  'realm_filters',
  'realm_playgrounds',
  'realm_billing',
  'realm_user',
  'realm_bot',
  'realm_embedded_bots',
  'realm_incoming_webhook_bots',
  'recent_private_conversations',
  'subscription',
  'channel_folders',
  'update_message_flags',
  'starred_messages',
  'stream',
  'default_streams',
  'default_stream_groups',
  'stop_words',
  'update_display_settings',
  'update_global_notifications',
  'user_settings',
  'user_status',
  'user_topic',
  'video_calls',
  'giphy',
  'push_device',
] as const;
export type RegisterFetchType = (typeof REGISTER_FETCH_TYPES)[number];

/** Builds the initial state for `user` (an active account of `state`). */
export function buildRegisterState(state: RealmState, user: User, opts: RegisterStateOptions): Record<string, unknown> {
  const types = opts.fetchEventTypes;
  const want = (type: RegisterFetchType): boolean => types === null || types.has(type);
  const caps = opts.clientCapabilities;
  const out: Record<string, unknown> = {
    zulip_version: ZULIP_VERSION,
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_merge_base: ZULIP_MERGE_BASE,
  };

  if (want('alert_words')) out.alert_words = [...alertWordsOf(state, user.id)];
  if (want('custom_profile_fields')) {
    out.custom_profile_fields = fieldsToWire(state);
    out.custom_profile_field_types = structuredClone(CUSTOM_PROFILE_FIELD_TYPES);
  }
  if (want('onboarding_steps')) {
    // The web app's one-time notices; parley has no onboarding tour (null = video disabled).
    out.onboarding_steps = [];
    out.navigation_tour_video_url = null;
  }
  if (want('message')) out.max_message_id = maxMessageId(state, user);
  if (want('saved_snippets')) out.saved_snippets = savedSnippetsWire(state, user.id);
  if (want('navigation_views')) out.navigation_views = navigationViewsWire(state, user.id);
  if (want('drafts')) out.drafts = draftsForRegister(state, user);
  if (want('scheduled_messages')) out.scheduled_messages = scheduledMessagesForUser(state, user.id);
  if (want('reminders')) out.reminders = remindersForUser(state, user.id);
  // FL 134: clients that ask for `user_topic` explicitly do not get the legacy list.
  if (want('muted_topics') && (types === null || !types.has('user_topic'))) out.muted_topics = mutedTopicsWire(state, user.id);
  if (want('muted_users')) out.muted_users = mutedUsersWire(state, user.id);
  if (want('presence')) {
    const now = opts.now ?? Date.now() / 1000;
    const rows = visiblePresenceRows(state, user, now).map((r) => ({ ...r, email: apiEmail(state.users.get(r.userId)!, state.host) }));
    out.presences = formatPresences(rows, opts.slimPresence);
    out.presence_last_update_id = state.presence.lastUpdateId;
    out.server_timestamp = now;
  }
  if (want('realm_user_groups')) out.realm_user_groups = realmUserGroups(state, caps.include_deactivated_groups === true);
  if (want('realm')) {
    Object.assign(out, realmSection(state, { realmUrl: opts.realmUrl, maxFileUploadSizeMib: opts.maxFileUploadSizeMib, uploadQuotaMib: opts.uploadQuotaMib ?? null }));
  }
  if (want('realm_user_settings_defaults')) out.realm_user_settings_defaults = realmUserSettingsDefaults(state);
  if (want('realm_domains')) out.realm_domains = realmDomainsWire(state);
  if (want('realm_emoji')) out.realm_emoji = realmEmojiWire(state);
  // FL 176: linkifiers only for clients declaring `linkifier_url_template`;
  // the legacy `realm_filters` is always [].
  if (want('realm_linkifiers')) out.realm_linkifiers = caps.linkifier_url_template === true ? linkifiersWire(state) : [];
  if (want('realm_filters')) out.realm_filters = [];
  if (want('realm_playgrounds')) out.realm_playgrounds = playgroundsWire(state);
  if (want('realm_billing')) out.realm_billing = { has_pending_sponsorship_request: false };
  if (want('realm_user')) Object.assign(out, realmUserSection(state, user, opts.clientGravatar));
  if (want('realm_bot')) out.realm_bots = realmBots(state, user);
  if (want('realm_embedded_bots')) out.realm_embedded_bots = [];
  if (want('realm_incoming_webhook_bots')) out.realm_incoming_webhook_bots = INCOMING_INTEGRATIONS.map((i) => ({ ...i, all_event_types: i.all_event_types && [...i.all_event_types] }));

  const unread = want('update_message_flags') && want('message');
  const starred = want('starred_messages');
  const recent = want('recent_private_conversations');
  const scan =
    unread || starred || recent
      ? scanUserMessages(state, user, {
          unread,
          starred,
          recentConversations: recent,
          allowEmptyTopicName: caps.empty_topic_name === true,
        })
      : {};
  if (recent) out.recent_private_conversations = scan.recent_private_conversations;
  const streamOpts = {
    includeSubscribers: opts.includeSubscribers,
    archivedChannels: caps.archived_channels === true,
    notificationSettingsNull: caps.notification_settings_null === true,
  };
  if (want('subscription')) Object.assign(out, subscriptionSection(state, user, streamOpts));
  // Zulip passes include_archived=True here (clients need archived folders' names).
  if (want('channel_folders')) out.channel_folders = channelFoldersWire(state, true);
  if (unread) out.unread_msgs = scan.unread_msgs;
  if (starred) out.starred_messages = scan.starred_messages;
  if (want('stream')) out.streams = streamSection(state, user, streamOpts.archivedChannels);
  const isGuest = user.role === Role.guest;
  if (want('default_streams')) out.realm_default_streams = defaultStreamIds(state, user, isGuest);
  if (want('default_stream_groups')) out.realm_default_stream_groups = [];
  // parley's search ignores no words.
  if (want('stop_words')) out.stop_words = [];
  const settingsObject = caps.user_settings_object === true;
  if (want('update_display_settings') && !settingsObject) Object.assign(out, legacyDisplaySettings(user));
  const storedElsewhere = { presenceEnabled: userStatusOf(state, user.id).presenceEnabled };
  if (want('update_global_notifications') && !settingsObject) Object.assign(out, legacyNotificationSettings(user, storedElsewhere));
  if (want('user_settings')) out.user_settings = userSettingsSection(user, storedElsewhere);
  if (want('user_status')) out.user_status = userStatusRegister(state);
  if (want('user_topic')) {
    // Zulip: clients without `empty_topic_name` get the realm's display name for the empty topic.
    const shown = caps.empty_topic_name === true ? null : state.settings.emptyTopicDisplayName;
    out.user_topics = userTopicsWire(state, user.id).map((row) => (shown !== null && row.topic_name === '' ? { ...row, topic_name: shown } : row));
  }
  if (want('video_calls')) out.has_zoom_token = false;
  if (want('giphy')) out.giphy_api_key = '';
  if (want('push_device')) out.push_devices = {};
  return out;
}
