/**
 * Commands: inputs to a realm actor, imperative (DESIGN.md §2). xstate calls every actor input an
 * "event"; in this codebase those inputs are commands, and "event" means only a Zulip client
 * event delivered through `GET /events`.
 *
 * Each command type is declared next to its handler in `realm/handlers/<stem>.ts`; this file is
 * the index: the union of all of them (re-exported for the API layer) and the reply of each.
 */
import type { CreateRealm } from './handlers/realm.js';
export type { CreateRealm };
import type { CreateUser } from './handlers/users.js';
export type { CreateUser };
import type { Subscribe } from './handlers/streams.js';
export type { Subscribe };
import type { UpdateSubscriptions } from './handlers/subscriptions.js';
export type { UpdateSubscriptions };
import type { SetSubscriptionProperties } from './handlers/subscription-properties.js';
export type { SetSubscriptionProperties };
import type { SendMessage } from './handlers/messages.js';
export type { SendMessage };
import type { InternalSend, EnsureSystemBots } from './handlers/internal-send.js';
export type { InternalSend, EnsureSystemBots };
import type { UpdatePresence } from './handlers/presence.js';
export type { UpdatePresence };
import type { Typing } from './handlers/typing.js';
export type { Typing };
import type { SetAnnouncementChannels } from './handlers/realm-settings.js';
export type { SetAnnouncementChannels };
import type { SetUserTopic } from './handlers/user-topics.js';
export type { SetUserTopic };
import type { CreateUserGroup, UpdateUserGroupMembership, UpdateUserGroup, DeactivateUserGroup } from './handlers/user-groups.js';
export type { CreateUserGroup, UpdateUserGroupMembership, UpdateUserGroup, DeactivateUserGroup };
import type { CreateChannel } from './handlers/channel-create.js';
export type { CreateChannel };
import type { UpdateChannel, ArchiveChannel } from './handlers/channels.js';
export type { UpdateChannel, ArchiveChannel };
import type { AddLinkifier, UpdateLinkifier, RemoveLinkifier, ReorderLinkifiers, LinkifierCommand } from './handlers/realm-linkifiers.js';
export type { AddLinkifier, UpdateLinkifier, RemoveLinkifier, ReorderLinkifiers, LinkifierCommand };
import type { UpdateUserStatus } from './handlers/user-status.js';
export type { UpdateUserStatus };
import type { CustomProfileFieldCommand, CustomProfileFieldReplies } from './handlers/custom-profile-fields.js';
import type { NavigationViewCommand, NavigationViewReplies } from './handlers/navigation-views.js';
import type { ChannelFolderCommand, ChannelFolderReplies } from './handlers/channel-folders.js';
import type { MessageFlagCommand, MessageFlagReplies } from './handlers/message-flags.js';
import type { ReactionCommand, ReactionReplies } from './handlers/reactions.js';
import type { DraftCommand, DraftReplies } from './handlers/drafts.js';
import type { ScheduledMessageCommand, ScheduledMessageReplies } from './handlers/scheduled-messages.js';
import type { ReminderCommand, ReminderReplies } from './handlers/reminders.js';
import type { DeliverScheduledMessage, DeliveryReplies } from './handlers/scheduled-delivery.js';
import type { ChangeRealmIcon, RealmIconReplies } from './handlers/realm-icon.js';
import type { AddSubmessage, SubmessageReplies } from './handlers/submessages.js';
import type { AttachmentCommand, AttachmentReplies } from './handlers/attachments.js';
import type { InviteCommand, InviteReplies } from './handlers/invites.js';
import type { UserAdminCommand, UserAdminReplies } from './handlers/user-admin.js';
import type { UserCreateCommand, UserCreateReplies } from './handlers/user-create.js';
import type { UpdateSettings, UserSettingsReplies } from './handlers/user-settings.js';
export type { UpdateSettings };
import type { DeleteMessage } from './handlers/message-delete.js';
export type { DeleteMessage };
import type { EditMessage, EditMessageReply } from './handlers/message-edit.js';
export type { EditMessage };
import type { UpdateRealm, RealmUpdateReplies } from './handlers/realm-update.js';
export type { UpdateRealm };
import type { DefaultStreamCommand, DefaultStreamReplies } from './handlers/default-streams.js';
import type { PlaygroundCommand, PlaygroundReplies } from './handlers/realm-playgrounds.js';
import type { UpdateRealmUserDefaults, RealmUserDefaultsReplies } from './handlers/realm-user-defaults.js';
import type { RealmDomainCommand, RealmDomainReplies } from './handlers/realm-domains.js';
import type { BotStorageCommand, BotStorageReplies } from './handlers/bot-storage.js';
import type { TestWelcomeBotMessage, WelcomeBotTestReplies } from './handlers/welcome-bot-test.js';
import type { DeleteTopic, DeleteTopicReplies } from './handlers/delete-topic.js';
import type { ReportMessage, ReportMessageReplies } from './handlers/message-report.js';
import type { DeleteExpiredMessages, RetentionReplies } from './handlers/message-retention.js';
export type { DeleteExpiredMessages };
import type { DeleteUnclaimedAttachments, AttachmentExpiryReplies } from './handlers/attachment-expiry.js';
export type { ReportMessage };
export type { DeleteTopic };
import type { RealmEmojiCommand } from './handlers/realm-emoji.js';
import type { ChangeAvatar } from './handlers/avatars.js';
export type { RealmEmojiCommand, ChangeAvatar };
import type { SessionCommand, SessionReplies } from './handlers/sessions.js';
export type { SessionCommand };
import type { MutedUserCommand, MutedUserReplies } from './handlers/muted-users.js';
import type { ChangeAlertWords, AlertWordReplies } from './handlers/alert-words.js';
import type { SavedSnippetCommand, SavedSnippetReplies } from './handlers/saved-snippets.js';
import type { TypingEditMessage, TypingEditReplies } from './handlers/typing-edit.js';
import type { OwnAccountCommand, OwnAccountReplies } from './handlers/own-account.js';
import type { PushDeviceCommand, PushDeviceReplies } from './handlers/push-devices.js';
import type { BotCommand, BotReplies } from './handlers/bots.js';
export type { BotCommand };

/** Every command a realm actor accepts. */
export type Command =
  | CreateRealm | InternalSend | EnsureSystemBots | SetAnnouncementChannels | LinkifierCommand | CreateUser | Subscribe
  | SendMessage | Typing | UpdatePresence | UpdateSubscriptions | SetSubscriptionProperties | CreateChannel | UpdateChannel | ArchiveChannel
  | SetUserTopic | CreateUserGroup | UpdateUserGroupMembership | UpdateUserGroup | DeactivateUserGroup | UpdateUserStatus
  | CustomProfileFieldCommand | NavigationViewCommand | ChannelFolderCommand | DraftCommand | InviteCommand | UserAdminCommand
  | UserCreateCommand | UpdateSettings | DeleteMessage | EditMessage | ReactionCommand | MessageFlagCommand
  | SessionCommand | AttachmentCommand | RealmEmojiCommand | ChangeAvatar
  | UpdateRealm | DefaultStreamCommand | PlaygroundCommand | UpdateRealmUserDefaults | RealmDomainCommand | BotStorageCommand | TestWelcomeBotMessage | DeleteTopic | ReportMessage | DeleteExpiredMessages
  | DeleteUnclaimedAttachments
  | MutedUserCommand | ChangeAlertWords | SavedSnippetCommand | TypingEditMessage | OwnAccountCommand | PushDeviceCommand
  | BotCommand
  | ScheduledMessageCommand | ReminderCommand | DeliverScheduledMessage | ChangeRealmIcon | AddSubmessage;

/** The reply each command type yields on success. */
export interface CommandReplies extends MessageFlagReplies, CustomProfileFieldReplies, NavigationViewReplies, ChannelFolderReplies, ReactionReplies, DraftReplies, InviteReplies, UserAdminReplies,
  UserCreateReplies, UserSettingsReplies, SessionReplies, AttachmentReplies, RealmUpdateReplies, DefaultStreamReplies, PlaygroundReplies, RealmUserDefaultsReplies, RealmDomainReplies, BotStorageReplies, WelcomeBotTestReplies, DeleteTopicReplies, ReportMessageReplies, RetentionReplies,
  AttachmentExpiryReplies,
  MutedUserReplies, AlertWordReplies, SavedSnippetReplies, TypingEditReplies, OwnAccountReplies, PushDeviceReplies,
  BotReplies,
  ScheduledMessageReplies, ReminderReplies, DeliveryReplies, RealmIconReplies, SubmessageReplies {
  create_realm: Record<string, never>;
  create_user: { userId: number; apiKey: string };
  subscribe: Record<string, never>;
  send_message: { id: number; automatic_new_visibility_policy?: number };
  internal_send: { id: number };
  ensure_system_bots: Record<string, never>;
  set_announcement_channels: Record<string, never>;
  typing: Record<string, never>;
  update_presence: Record<string, unknown>;
  set_user_topic: Record<string, never>;
  add_linkifier: { id: number };
  update_linkifier: Record<string, never>;
  remove_linkifier: Record<string, never>;
  reorder_linkifiers: Record<string, never>;
  create_user_group: { groupId: number };
  update_user_group_membership: Record<string, never>;
  update_user_group: Record<string, never>;
  deactivate_user_group: Record<string, never>;
  /** `subscribed`/`already_subscribed`/`unauthorized` and/or `removed`/`not_removed`, as on the wire. */
  update_subscriptions: Record<string, unknown>;
  set_subscription_properties: Record<string, never>;
  create_channel: { streamId: number };
  update_channel: Record<string, never>;
  archive_channel: Record<string, never>;
  update_user_status: Record<string, never>;
  delete_message: Record<string, never>;
  edit_message: EditMessageReply;
  add_realm_emoji: Record<string, never>;
  remove_realm_emoji: Record<string, never>;
  change_avatar: { avatar_url: string };
}

export type CommandReply<C extends Command> = CommandReplies[C['type']];
