/**
 * The in-memory state of one realm (organization), owned by its realm actor and changed only by
 * `evolve` (src/README.md: request path). Plain data, no I/O. Small entities (users, channels, groups) are
 * objects in Maps; messages are compact columns (see `message-index.ts`, src/README.md: persistence).
 *
 * Units: every timestamp here is UNIX seconds (may be fractional where Zulip keeps microseconds,
 * e.g. `dateJoined`); message timestamps are integer seconds as on the wire.
 */
import { MessageIndex } from './message-index.js';
import { Interner } from './interner.js';
import { MessageWordIndex } from './message-word-index.js';
import { ChannelReceivers } from './channel-receivers.js';
import type { UserTopic } from './user-topics.js';
import type { LinkifierState } from './linkifiers.js';
import { emptyProfileFields, type ProfileFieldsState } from './custom-profile-fields.js';
import type { UserStatus } from './user-status.js';
import { PresenceStore } from './presence.js';
import type { NavigationView } from './navigation-views.js';

/** Role codes (https://zulip.com/api/roles-and-permissions). */
export const Role = { owner: 100, admin: 200, moderator: 300, member: 400, guest: 600 } as const;
export type RoleCode = (typeof Role)[keyof typeof Role];

/**
 * A full account or a bot (https://zulip.com/api/get-user). `email` is the real (delivery) address,
 * lower-case.
 */
export interface User {
  readonly id: number;
  email: string;
  fullName: string;
  role: RoleCode;
  isActive: boolean;
  isBot: boolean;
  /** 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded; null for humans. */
  botType: number | null;
  botOwnerId: number | null;
  /** UNIX seconds (fractional). */
  dateJoined: number;
  /** IANA zone or '' when unset. */
  timezone: string;
  avatarVersion: number;
  /** The uploaded avatar (`avatar_source` "U"); absent = gravatar ("G"). See `avatars.ts`. */
  avatar?: import('./avatars.js').UploadedAvatar;
  /** 32 characters [A-Za-z0-9]. */
  apiKey: string;
  /** argon2id PHC string; null = password login disabled for this account (bots). */
  passwordHash: string | null;
  /** 1 everyone, 2 members, 3 admins, 4 nobody, 5 moderators (https://zulip.com/api/get-user). */
  emailAddressVisibility: number;
  /** Set for the realm's system bots (see `system-bots.ts`). */
  systemBot?: 'notification' | 'welcome';
  /** Personal settings that differ from Zulip's defaults, by wire name (see `user-settings.ts`). */
  settings?: Record<string, string | number | boolean>;
  /** Bot-only settings (default channels, outgoing webhook service); see `bots.ts`. */
  bot?: import('./bots.js').BotSettings;
}

/**
 * A group-setting value (https://zulip.com/api/group-setting-values): a user group id, or an
 * anonymous group of direct members and
 * subgroups.
 */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** A user group; system groups (`role:*`) derive membership from roles. */
export interface UserGroup {
  readonly id: number;
  name: string;
  description: string;
  isSystemGroup: boolean;
  directMembers: Set<number>;
  directSubgroups: Set<number>;
  dateCreated: number;
  creatorId: number | null;
  deactivated: boolean;
  /** User-defined groups: their own permission settings by wire name (absent = Zulip's defaults). */
  settings?: Record<string, GroupSettingValue>;
}

/**
 * Channel permission settings that take group-setting values
 * (https://zulip.com/api/group-setting-values).
 */
export const STREAM_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_remove_subscribers_group',
  'can_resolve_topics_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;
export type StreamGroupSetting = (typeof STREAM_GROUP_SETTINGS)[number];

export type TopicsPolicy = 'inherit' | 'allow_empty_topic' | 'disable_empty_topic' | 'empty_topic_only';

/** A channel (stream). Names are unique case-insensitively within the realm. */
export interface Stream {
  readonly id: number;
  name: string;
  /** Raw Markdown. */
  description: string;
  renderedDescription: string;
  /** UNIX seconds. */
  dateCreated: number;
  creatorId: number | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isArchived: boolean;
  isDefault: boolean;
  firstMessageId: number | null;
  /** null = realm default, -1 = unlimited, N days. */
  messageRetentionDays: number | null;
  topicsPolicy: TopicsPolicy;
  folderId: number | null;
  recipientId: number;
  groups: Record<StreamGroupSetting, GroupSettingValue>;
}

/**
 * A user's subscription to a channel (https://zulip.com/api/get-subscriptions). Notification
 * settings null = inherit.
 */
export interface Subscription {
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
  desktopNotifications: boolean | null;
  audibleNotifications: boolean | null;
  pushNotifications: boolean | null;
  emailNotifications: boolean | null;
  wildcardMentionsNotify: boolean | null;
}

/** A recipient: a channel, or a direct-message conversation (sorted member ids, sender included). */
export type Recipient = { type: 'stream'; streamId: number } | { type: 'direct'; userIds: readonly number[] };

/** Organization-wide settings. */
export interface RealmSettings {
  name: string;
  description: string;
  /** UNIX seconds. */
  dateCreated: number;
  deactivated: boolean;
  /** Realm-level topics policy (https://zulip.com/api/update-stream `topics_policy`, realm form). */
  topicsPolicy: 'allow_empty_topic' | 'disable_empty_topic';
  /** Shown for the empty topic to clients without the empty-topic capability (FL 334). */
  emptyTopicDisplayName: string;
  allowMessageEditing: boolean;
  allowEditHistory: boolean;
  messageContentEditLimitSeconds: number | null;
  messageContentDeleteLimitSeconds: number | null;
  /** Topic-move time limit in seconds; null = unlimited; absent = Zulip's default 604800 (7 days). */
  moveMessagesWithinStreamLimitSeconds?: number | null;
  /** Channel-move time limit in seconds; null = unlimited; absent = Zulip's default 604800 (7 days). */
  moveMessagesBetweenStreamsLimitSeconds?: number | null;
  /** null = unlimited. */
  messageRetentionDays: number | null;
  emailAddressVisibility: number;
  /** Channel for `announce` messages about new channels (Zulip's `new_stream_announcements_stream`); null/absent = none. */
  newStreamAnnouncementsStreamId?: number | null;
  /** Channel announcing new users (Zulip's `signup_announcements_stream`); null/absent = none. */
  signupAnnouncementsStreamId?: number | null;
  /** Realm-level group-setting values, keyed by Zulip's wire name (e.g. `can_create_public_channel_group`). */
  groups: Record<string, GroupSettingValue>;
  // Settings of `PATCH /realm` (realm/handlers/realm-update.ts); absent = Zulip's default.
  /** `message_edit_history_visibility_policy` (FL 358): 'all' | 'moves' | 'none'; absent = from `allowEditHistory`. */
  editHistoryVisibilityPolicy?: 'all' | 'moves' | 'none';
  /** Days a new member waits before being a full member; absent = 0. */
  waitingPeriodThreshold?: number;
  /** Language code (`default_language`); absent = 'en'. */
  defaultLanguage?: string;
  /** `enable_spectator_access`; absent = false. */
  enableSpectatorAccess?: boolean;
  /** `emails_restricted_to_domains`: new accounts only with an address of `realm_domains`; absent = false. */
  emailsRestrictedToDomains?: boolean;
  /** `welcome_message_custom_text`: Welcome Bot's extra message to new users ('' = none); absent = ''. */
  welcomeMessageCustomText?: string;
  /** `enable_read_receipts` (GET /messages/{id}/read_receipts); absent = false. */
  enableReadReceipts?: boolean;
  /** `message_content_allowed_in_email_notifications`; absent = true. */
  messageContentAllowedInEmailNotifications?: boolean;
  /** Channel receiving message reports (`moderation_request_channel`); null/absent = none. */
  moderationRequestChannelId?: number | null;
  /** Channel for Zulip update announcements (`zulip_update_announcements_stream`); null/absent = none. */
  zulipUpdateAnnouncementsStreamId?: number | null;
  /** `avatar_changes_disabled`: only administrators change avatars; absent = false. */
  avatarChangesDisabled?: boolean;
}

/** Id counters; each `evolve` of a creating record advances the matching counter. */
export interface IdCounters {
  user: number;
  stream: number;
  group: number;
  recipient: number;
  message: number;
}

/** The whole realm. */
export interface RealmState {
  readonly id: number;
  subdomain: string;
  /**
   * The realm's host name without port (`<subdomain>.<external host>`, or the external host for
   * the root realm; see realm/realm-urls.ts `hostFor`). Configuration, not persisted: set by the
   * realm registry at load. The domain of generated `user<id>@<host>` and bot emails.
   */
  host: string;
  /**
   * The realm's URL without trailing slash (`https://chat.example.com`, from `--external-url`;
   * see realm/realm-urls.ts `urlFor`). Configuration, not persisted: set by the realm registry.
   * Every URL parley hands out (realm_url, invite links, links in rendered messages) derives
   * from it, never from a request's Host. '' only in bare unit-test states.
   */
  url: string;
  /**
   * The server's camo key (HMAC-SHA1 key of `/external_content/` URLs in rendered messages,
   * Zulip's `CAMO_KEY`). Configuration, not persisted: set by the realm registry from the data
   * directory's secret. Absent in bare unit-test states (external videos are then linked directly).
   */
  camoKey?: string;
  /** False until the `realm_created` record has been applied. */
  created: boolean;
  settings: RealmSettings;
  users: Map<number, User>;
  /** Lower-cased delivery email → user id. */
  usersByEmail: Map<string, number>;
  /** API key → user id. */
  usersByApiKey: Map<string, number>;
  groups: Map<number, UserGroup>;
  /** System group name (`role:owners` …) → group id. */
  systemGroups: Map<string, number>;
  streams: Map<number, Stream>;
  /** Lower-cased channel name → stream id. */
  streamsByName: Map<string, number>;
  /** stream id → (user id → subscription). */
  subscriptions: Map<number, Map<number, Subscription>>;
  /** user id → subscribed stream ids. */
  userStreams: Map<number, Set<number>>;
  recipients: Map<number, Recipient>;
  /** Sorted member ids joined by ',' → recipient id, for direct conversations. */
  directRecipients: Map<string, number>;
  /** Interned topic names and client names referenced by the message index. */
  topics: Interner;
  clients: Interner;
  messages: MessageIndex;
  /** Derived, never snapshotted: each channel's active subscribers and their rows; see `channel-receivers.ts`. */
  channelReceivers: ChannelReceivers;
  /** Inverted word index for `search:` narrows; see `message-word-index.ts` (optional: states built by hand may lack it). */
  wordIndex?: MessageWordIndex;
  /** user id → (channel/topic key → visibility row); see `user-topics.ts`. */
  userTopics: Map<number, Map<string, UserTopic>>;
  /** Linkifiers in order, and the next id; see `linkifiers.ts` (optional: states built by hand may lack it). */
  linkifiers?: LinkifierState;
  /** Reusable invitation links; see `invites.ts` (optional: older states lack it). */
  invites?: import('./invites.js').InviteState;
  /** Custom profile fields and users' values; see `custom-profile-fields.ts`. */
  profileFields: ProfileFieldsState;
  /** user id → non-default status (and `presence_enabled`); see `user-status.ts`. */
  userStatus: Map<number, UserStatus>;
  /** Presence: NOT mutated by records (no durable commit per ping); see `presence.ts`. */
  presence: PresenceStore;
  /** user id → navigation views in order; see `navigation-views.ts` (optional: created on first use). */
  navigationViews?: Map<number, NavigationView[]>;
  /** Channel folders and the next folder id; see `channel-folders.ts` (optional: created with the first folder). */
  channelFolders?: import('./channel-folders.js').ChannelFolderState;
  /** Users' drafts and the next draft id; see `drafts.ts` (optional: created on first use). */
  drafts?: import('./drafts.js').DraftState;
  /** Undelivered scheduled messages and reminders; see `scheduled-messages.ts` (optional: created on first use). */
  scheduledMessages?: import('./scheduled-messages.js').ScheduledMessageState;
  /** The organization icon; see `realm-icon.ts` (optional: absent = the default icon). */
  realmIcon?: import('./realm-icon.js').RealmIcon;
  /** Widget submessages per message; see `submessages.ts` (optional: created with the first). */
  submessages?: import('./submessages.js').SubmessageState;
  /** Uploaded files; see `attachments.ts` (optional: created on the first upload). */
  attachments?: import('./attachments.js').AttachmentState;
  /** Emoji reactions per message; see `reactions.ts` (optional: created on the first reaction). */
  reactions?: import('./reactions.js').ReactionState;
  /** message id → stored edit history, newest first; see `message-edits.ts` (optional: created on first edit). */
  editHistory?: Map<number, import('./message-edits.js').EditHistoryEntry[]>;
  /** Code playgrounds and the next id; see `realm-playgrounds.ts` (optional: created with the first one). */
  playgrounds?: import('./realm-playgrounds.js').PlaygroundState;
  /** New users' settings that differ from Zulip's defaults, wire names; see `realm-user-defaults.ts` (optional). */
  userDefaults?: Record<string, string | number | boolean>;
  /** Allowed email domains; see `realm-domains.ts` (optional: created with the first one). */
  realmDomains?: import('./realm-domains.js').RealmDomain[];
  /** Bot storage: user id → key → value; see `bot-storage.ts` (optional: created on first use). */
  botStorage?: Map<number, Map<string, string>>;
  /** Custom emoji and the next emoji id; see `realm-emoji.ts` (optional: created with the first emoji). */
  realmEmoji?: import('./realm-emoji.js').RealmEmojiState;
  /** Web sessions by the SHA-256 of their id; see `sessions.ts` (optional: created at the first login). */
  sessions?: Map<string, import('./sessions.js').WebSession>;
  /** Muter id → (muted user id → UNIX seconds); see `muted-users.ts` (optional: created at the first mute). */
  mutedUsers?: Map<number, Map<number, number>>;
  /** User id → alert words; see `alert-words.ts` (optional: created with the first words). */
  alertWords?: Map<number, string[]>;
  /** Users' saved snippets and the next id; see `saved-snippets.ts` (optional: created with the first one). */
  savedSnippets?: import('./saved-snippets.js').SavedSnippetState;
  /** User id → registered mobile push devices; see `push-devices.ts` (optional: created at the first registration). */
  pushDevices?: Map<number, import('./push-devices.js').PushDevice[]>;
  nextIds: IdCounters;
}

/** A realm before its `realm_created` record. */
export function emptyRealmState(id: number): RealmState {
  return {
    id,
    subdomain: '',
    host: '',
    url: '',
    created: false,
    settings: {
      name: '',
      description: '',
      dateCreated: 0,
      deactivated: false,
      topicsPolicy: 'allow_empty_topic',
      emptyTopicDisplayName: 'general chat',
      allowMessageEditing: true,
      allowEditHistory: true,
      messageContentEditLimitSeconds: 600,
      messageContentDeleteLimitSeconds: 600,
      messageRetentionDays: null,
      emailAddressVisibility: 1,
      groups: {},
    },
    users: new Map(),
    usersByEmail: new Map(),
    usersByApiKey: new Map(),
    groups: new Map(),
    systemGroups: new Map(),
    streams: new Map(),
    streamsByName: new Map(),
    subscriptions: new Map(),
    userStreams: new Map(),
    recipients: new Map(),
    directRecipients: new Map(),
    topics: new Interner(),
    clients: new Interner(),
    messages: new MessageIndex(),
    channelReceivers: new ChannelReceivers(),
    wordIndex: new MessageWordIndex(),
    userTopics: new Map(),
    linkifiers: { items: [], nextId: 1 },
    profileFields: emptyProfileFields(),
    userStatus: new Map(),
    presence: new PresenceStore(),
    nextIds: { user: 1, stream: 1, group: 1, recipient: 1, message: 1 },
  };
}
