/**
 * Records: the persisted facts of the append log (src/README.md: words), past tense, each with a schema
 * version `v`. `evolve` folds them into `RealmState`. A record, once written, must load forever:
 * never change the meaning of an existing `(type, v)`; add a new `v` and upgrade in `evolve`.
 *
 * Units: timestamps are UNIX seconds (fractional allowed where noted).
 */
import type { LinkifiersChanged } from './linkifiers.js';
export type { LinkifiersChanged };
import type { GroupSettingValue, RoleCode, StreamGroupSetting, TopicsPolicy } from './realm-state.js';
import type { VisibilityPolicyCode } from './user-topics.js';

export interface SystemGroupData {
  id: number;
  name: string;
  description: string;
}

/** The organization came into being with its system groups. */
export interface RealmCreated {
  type: 'realm_created';
  v: 1;
  subdomain: string;
  name: string;
  description: string;
  /** UNIX seconds. */
  dateCreated: number;
  systemGroups: SystemGroupData[];
  /** Realm-level group-setting values, keyed by wire name. */
  groups: Record<string, GroupSettingValue>;
}

/** A user or bot account was created. */
export interface UserCreated {
  type: 'user_created';
  v: 1;
  id: number;
  email: string;
  fullName: string;
  role: RoleCode;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  /** UNIX seconds, fractional. */
  dateJoined: number;
  timezone: string;
  apiKey: string;
  passwordHash: string | null;
  /** Present for the realm's system bots (see `system-bots.ts`). */
  systemBot?: 'notification' | 'welcome';
}

/** A channel was created. */
export interface StreamCreated {
  type: 'stream_created';
  v: 1;
  id: number;
  recipientId: number;
  name: string;
  description: string;
  renderedDescription: string;
  dateCreated: number;
  creatorId: number | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isDefault: boolean;
  messageRetentionDays: number | null;
  topicsPolicy: TopicsPolicy;
  folderId: number | null;
  groups: Record<StreamGroupSetting, GroupSettingValue>;
}

/** Users were subscribed to a channel, each with the color assigned to them. */
export interface SubscriptionsAdded {
  type: 'subscriptions_added';
  v: 1;
  streamId: number;
  subscriptions: Array<{ userId: number; color: string }>;
}

/**
 * Users were unsubscribed from a channel (https://zulip.com/api/unsubscribe). Their UserMessage
 * rows stay.
 */
export interface SubscriptionsRemoved {
  type: 'subscriptions_removed';
  v: 1;
  streamId: number;
  userIds: number[];
}

/**
 * A user changed one of their subscription settings
 * (https://zulip.com/api/update-subscription-settings). `property` is the
 * stored wire name (`color`, `is_muted`, `pin_to_top`, `desktop_notifications`,
 * `audible_notifications`, `push_notifications`, `email_notifications`, `wildcard_mentions_notify`);
 * `value` a hex color string for `color`, else a boolean.
 */
export interface SubscriptionPropertyChanged {
  type: 'subscription_property_changed';
  v: 1;
  streamId: number;
  userId: number;
  property: string;
  value: string | boolean;
}

/**
 * A message was sent. Content and rendered HTML are in the record (replay never re-renders);
 * the actor also writes them to the bodies table in the same transaction.
 * Who receives a UserMessage row is derived in `evolve` from the state at that point
 * (channel subscribers, or the conversation's members), which replay reproduces exactly.
 */
export interface MessageSent {
  type: 'message_sent';
  v: 1;
  id: number;
  senderId: number;
  recipientId: number;
  /** Present when this message opened a new direct conversation: its sorted member ids. */
  newDirectUserIds?: number[];
  topic: string;
  content: string;
  rendered: string;
  /** UNIX seconds. */
  timestamp: number;
  client: string;
  isMeMessage: boolean;
  readBySender: boolean;
  /** Extra flag bits per recipient user id (mentions), from rendering. */
  userFlags?: Record<number, number>;
  /** A Notification Bot resolve/unresolve notice (Zulip's `Message.MessageType.RESOLVE_TOPIC_NOTIFICATION`). */
  resolveTopicNotice?: true;
}

import type { CustomProfileFieldRecord } from './custom-profile-fields.js';
import type { NavigationViewRecord } from './navigation-views.js';
import type { ChannelFolderRecord } from './channel-folders.js';
import type { DraftRecord } from './drafts.js';
import type { ScheduledMessageRecord } from './scheduled-messages.js';
import type { RealmIconChanged } from './realm-icon.js';
import type { SubmessageAdded } from './submessages.js';
import type { InviteRecord } from './invites.js';
import type { UserAdminRecord } from './user-admin.js';
import type { ReactionRecord } from './reactions.js';
import type { MessageEdited } from './message-edits.js';
import type { MessagesDeleted } from './message-delete.js';
import type { RealmSettingsChanged } from './realm-settings.js';
import type { PlaygroundRecord } from './realm-playgrounds.js';
import type { RealmUserDefaultChanged } from './realm-user-defaults.js';
import type { RealmDomainRecord } from './realm-domains.js';
import type { BotStorageRecord } from './bot-storage.js';
export type { PlaygroundRecord };
import type { MessageFlagsChanged } from './message-flags.js';
import type { RealmEmojiRecord } from './realm-emoji.js';
import type { AvatarChanged } from './avatars.js';
import type { AttachmentRecord } from './attachments.js';
import type { SessionRecord } from './sessions.js';
import type { UserPasswordChanged } from './user-password.js';
import type { MutedUserRecord } from './muted-users.js';
import type { AlertWordsChanged } from './alert-words.js';
import type { SavedSnippetRecord } from './saved-snippets.js';
import type { PushDeviceRecord } from './push-devices.js';
import type { ApiKeyRegenerated } from './api-key-change.js';
import type { BotRecord } from './bots.js';
export type RealmRecord = RealmCreated | RealmSettingsChanged | LinkifiersChanged | UserCreated | StreamCreated | SubscriptionsAdded | SubscriptionsRemoved | SubscriptionPropertyChanged | MessageSent | UserTopicSet | StreamUpdated | UserGroupCreated | UserGroupMembershipChanged | UserGroupUpdated | UserStatusSet | CustomProfileFieldRecord | NavigationViewRecord | ChannelFolderRecord | DraftRecord | InviteRecord | UserAdminRecord | MessagesDeleted | MessageEdited | ReactionRecord | MessageFlagsChanged | RealmEmojiRecord | AvatarChanged | AttachmentRecord
  | SessionRecord | UserPasswordChanged
  | PlaygroundRecord
  | RealmUserDefaultChanged
  | RealmDomainRecord
  | BotStorageRecord
  | MutedUserRecord | AlertWordsChanged | SavedSnippetRecord | PushDeviceRecord | ApiKeyRegenerated
  | BotRecord
  | ScheduledMessageRecord
  | RealmIconChanged
  | SubmessageAdded;

/**
 * A user's status changed (https://zulip.com/api/update-status; see domain/user-status.ts): only
 * the keys present
 * changed. `away` sets `presence_enabled` = !away; `emojiName` comes with `emojiCode` and
 * `reactionType` ('' name = no emoji).
 */
export interface UserStatusSet {
  type: 'user_status_set';
  v: 1;
  userId: number;
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/**
 * A user's visibility policy for a (channel, topic) was set (https://zulip.com/api/update-user-topic);
 * `visibilityPolicy` 0 (inherit) deletes the row. `lastUpdated`: UNIX seconds (integer).
 */
export interface UserTopicSet {
  type: 'user_topic_set';
  v: 1;
  userId: number;
  streamId: number;
  topic: string;
  visibilityPolicy: VisibilityPolicyCode;
  lastUpdated: number;
}

/** A user-defined group was created (https://zulip.com/api/create-user-group). */
export interface UserGroupCreated {
  type: 'user_group_created';
  v: 1;
  id: number;
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  creatorId: number | null;
  /** UNIX seconds (integer). */
  dateCreated: number;
  /** The group's own permission settings (`can_manage_group`, …) by wire name. */
  settings: Record<string, GroupSettingValue>;
}

/** Direct members and/or direct subgroups of a user-defined group changed. */
export interface UserGroupMembershipChanged {
  type: 'user_group_membership_changed';
  v: 1;
  groupId: number;
  addMembers: number[];
  removeMembers: number[];
  addSubgroups: number[];
  removeSubgroups: number[];
}

/** A user-defined group's name and/or description changed. */
export interface UserGroupUpdated {
  type: 'user_group_updated';
  v: 1;
  groupId: number;
  name?: string;
  description?: string;
  /** Set on deactivation (true) and reactivation (false); absent = unchanged. */
  deactivated?: boolean;
}

/** Body row of the LMDB bodies table, keyed by message id. */
export interface MessageBody {
  content: string;
  rendered: string;
}

/** Properties of a channel changed by one update (only the keys present changed). */
export interface StreamChanges {
  name?: string;
  description?: string;
  renderedDescription?: string;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault?: boolean;
  /** null = realm default, -1 = unlimited, N days. */
  messageRetentionDays?: number | null;
  isArchived?: boolean;
  folderId?: number | null;
  topicsPolicy?: TopicsPolicy;
  groups?: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
}

/**
 * A channel's settings changed (PATCH /streams/{id}, archiving:
 * https://zulip.com/api/update-stream, https://zulip.com/api/archive-stream).
 */
export interface StreamUpdated {
  type: 'stream_updated';
  v: 1;
  streamId: number;
  changes: StreamChanges;
}
