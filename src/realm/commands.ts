/**
 * Commands: inputs to a realm actor, imperative (src/README.md: words). xstate calls every actor input an
 * "event"; in this codebase those inputs are commands, and "event" means only a Zulip client
 * event delivered through `GET /events`.
 *
 * Each command type maps to one handler in `realm/handlers/` and one reply type below.
 */
import type { GroupSettingValue, RoleCode } from '../domain/realm-state.js';

export interface CreateRealm {
  type: 'create_realm';
  subdomain: string;
  name: string;
  description: string;
}

export interface CreateUser {
  type: 'create_user';
  email: string;
  fullName: string;
  role: RoleCode;
  /** argon2id hash computed by the caller (off the actor's critical path), or null. */
  passwordHash: string | null;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  timezone: string;
}

export interface CreateStream {
  type: 'create_stream';
  /** Acting user, or null for system setup (demo data, CLI). */
  actorId: number | null;
  name: string;
  description: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  /** Undefined = Zulip's default (public: true; private: false). */
  historyPublicToSubscribers?: boolean;
  isDefault: boolean;
  subscriberIds: number[];
}

export interface Subscribe {
  type: 'subscribe';
  streamId: number;
  userIds: number[];
}

/**
 * Subscribe and/or unsubscribe (https://zulip.com/api/subscribe, https://zulip.com/api/unsubscribe,
 * https://zulip.com/api/update-subscriptions): `POST`, `DELETE` and `PATCH
 * /users/me/subscriptions`. Channels in `add` that do not exist are created by `actorId`.
 */
export interface UpdateSubscriptions {
  type: 'update_subscriptions';
  actorId: number;
  /** Validated `subscriptions` / `add` entries. */
  add: Array<{ name: string; color?: string; description?: string }>;
  /** Channel names to unsubscribe from. */
  remove: string[];
  /** Emails or user ids; undefined or empty = the actor. */
  principals?: Array<string | number>;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault: boolean;
  authorizationErrorsFatal: boolean;
  /** Announce new channels in the realm's new-channel announcements channel. */
  announce?: boolean;
}

/** Changes of the actor's own subscription settings (https://zulip.com/api/update-subscription-settings). */
export interface SetSubscriptionProperties {
  type: 'set_subscription_properties';
  actorId: number;
  changes: Array<{ streamId: number; property: string; value: unknown }>;
}

export interface SendMessage {
  type: 'send_message';
  senderId: number;
  /** `stream` (also for wire `channel`) or `private` (also for wire `direct`). */
  messageType: 'stream' | 'private';
  /** The decoded `to` parameter: name, id, or a list (https://zulip.com/api/send-message). */
  to: unknown;
  /** Stripped topic; undefined when the client passed none. */
  topic: string | undefined;
  content: string;
  client: string;
  /** Undefined = Zulip's heuristic on the client name. */
  readBySender?: boolean;
  queueId?: string;
  localId?: string;
  /** Set only by `internal_send` (system bots): skips the sender permission checks. */
  internal?: boolean;
  /** The realm's URL as the client reached it (`realmUrl(host)`): local links render relative. */
  realmUrl?: string;
}

/**
 * A message from a system bot (Zulip's `internal_send_stream_message` / `internal_send_private_message`):
 * the realm's Notification Bot or Welcome Bot, created on first use. Skips the sender-side
 * permission checks (`can_send_message_group`, channel access) as Zulip's internal sends do.
 * Never built from client input; handlers issue it as a follow-up (`Decision.followUps`).
 */
export interface InternalSend {
  type: 'internal_send';
  bot: 'notification' | 'welcome';
  /** `stream`: `to` is a channel id and `topic` is required; `private`: `to` lists user ids. */
  messageType: 'stream' | 'private';
  to: number | number[];
  topic?: string;
  content: string;
  /** Marks the message as a resolve/unresolve notice (Zulip's `RESOLVE_TOPIC_NOTIFICATION` type). */
  resolveTopicNotice?: true;
}

/** Create the realm's system bots that do not exist yet (realm creation; see `system-bots.ts`). */
export interface EnsureSystemBots {
  type: 'ensure_system_bots';
}

/**
 * A presence report (`POST /users/me/presence`, https://zulip.com/api/update-presence): no records;
 * the handler
 * updates the in-memory presence store (see `domain/presence.ts`) and may emit a `presence` event.
 */
export interface UpdatePresence {
  type: 'update_presence';
  userId: number;
  status: 'active' | 'idle';
  /** Reply without `presences`. */
  pingOnly: boolean;
  slim: boolean;
  /** FL 263: only presences changed after this id; undefined = all. */
  lastUpdateId?: number;
}

/** A typing notification: no records, only `typing` events (https://zulip.com/api/get-events). */
export interface Typing {
  type: 'typing';
  senderId: number;
  op: 'start' | 'stop';
  messageType: 'direct' | 'stream';
  /** Direct: recipient user ids. */
  to?: number[];
  /** Channel: the channel and topic. */
  streamId?: number;
  topic?: string;
}

import type { CreateChannel, UpdateChannel, ArchiveChannel } from './channel-commands.js';
import type { LinkifierCommand } from './linkifier-commands.js';
export type { AddLinkifier, UpdateLinkifier, RemoveLinkifier, ReorderLinkifiers } from './linkifier-commands.js';
export type { CreateChannel, UpdateChannel, ArchiveChannel };
import type { UpdateUserStatus } from './handlers/user-status.js';
export type { UpdateUserStatus };

/**
 * Set the channels receiving Notification Bot announcements of new channels and new users
 * (Zulip's `new_stream_announcements_stream` / `signup_announcements_stream`); undefined =
 * unchanged, null = none. Used by the demo organization; no endpoint yet.
 */
export interface SetAnnouncementChannels {
  type: 'set_announcement_channels';
  newStreams?: number | null;
  signups?: number | null;
}
export type Command = CreateRealm | InternalSend | EnsureSystemBots | SetAnnouncementChannels | LinkifierCommand | CreateUser | CreateStream | Subscribe | SendMessage | Typing | UpdatePresence | UpdateSubscriptions | SetSubscriptionProperties | CreateChannel | UpdateChannel | ArchiveChannel | SetUserTopic | CreateUserGroup | UpdateUserGroupMembership | UpdateUserGroup | DeactivateUserGroup | UpdateUserStatus | CustomProfileFieldCommand | NavigationViewCommand | ChannelFolderCommand | DraftCommand | InviteCommand | UserAdminCommand | DeleteMessage | EditMessage | ReactionCommand | MessageFlagCommand;

import type { CustomProfileFieldCommand, CustomProfileFieldReplies } from './handlers/custom-profile-fields.js';
import type { NavigationViewCommand, NavigationViewReplies } from './handlers/navigation-views.js';
import type { ChannelFolderCommand, ChannelFolderReplies } from './handlers/channel-folders.js';
import type { MessageFlagCommand, MessageFlagReplies } from './handlers/message-flags.js';
import type { ReactionCommand, ReactionReplies } from './handlers/reactions.js';
import type { DraftCommand, DraftReplies } from './handlers/drafts.js';
import type { InviteCommand, InviteReplies } from './handlers/invites.js';
import type { UserAdminCommand, UserAdminReplies } from './handlers/user-admin.js';
import type { DeleteMessage } from './handlers/message-delete.js';
export type { DeleteMessage };
import type { EditMessage, EditMessageReply } from './handlers/message-edit.js';
export type { EditMessage };

/**
 * Set a user's visibility policy for (channel, topic) (https://zulip.com/api/update-user-topic):
 * `POST /user_topics`
 * and, with `legacy`, `PATCH /users/me/subscriptions/muted_topics`
 * (https://zulip.com/api/mute-topic; add = 1, remove = 0).
 */
export interface SetUserTopic {
  type: 'set_user_topic';
  userId: number;
  /** By id, or by name (legacy endpoint only). */
  stream: { id: number } | { name: string };
  topic: string;
  /** 0 inherit, 1 muted, 2 unmuted, 3 followed. */
  visibilityPolicy: number;
  /** The deprecated muted_topics endpoint: its error for an unknown channel on remove. */
  legacy?: boolean;
}

/** `POST /user_groups/create`: a user-defined group (settings already defaulted by the endpoint). */
export interface CreateUserGroup {
  type: 'create_user_group';
  actorId: number;
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  /** Group-setting values given by the client, by wire name (`can_manage_group`, …). */
  settings: Record<string, GroupSettingValue>;
}

/** `POST /user_groups/{id}/members` and `/subgroups`: add and/or delete direct members or subgroups. */
export interface UpdateUserGroupMembership {
  type: 'update_user_group_membership';
  actorId: number;
  groupId: number;
  addMembers: number[];
  removeMembers: number[];
  addSubgroups: number[];
  removeSubgroups: number[];
}

/** `PATCH /user_groups/{id}`: new name and/or description; `deactivated: false` reactivates. */
export interface UpdateUserGroup {
  type: 'update_user_group';
  actorId: number;
  groupId: number;
  name?: string;
  description?: string;
  deactivated?: boolean;
}

/** `POST /user_groups/{id}/deactivate`. */
export interface DeactivateUserGroup {
  type: 'deactivate_user_group';
  actorId: number;
  groupId: number;
}

/** The reply each command type yields on success. */
export interface CommandReplies extends MessageFlagReplies, CustomProfileFieldReplies, NavigationViewReplies, ChannelFolderReplies, ReactionReplies, DraftReplies, InviteReplies, UserAdminReplies {
  create_realm: Record<string, never>;
  create_user: { userId: number; apiKey: string };
  create_stream: { streamId: number };
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
}

export type CommandReply<C extends Command> = CommandReplies[C['type']];
