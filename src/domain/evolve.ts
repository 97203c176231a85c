/**
 * `evolve(state, record)`: the only code that mutates a `RealmState` (src/README.md: request path). It is run
 * for live commands and for recovery replay alike, so it must be deterministic: no clock, no
 * randomness, no I/O. Unknown record types or versions throw `UnknownRecordError`
 * (record-versions.ts): a store written by a newer parley must not be half-loaded.
 */
import { evolvePlayground } from './realm-playgrounds.js';
import { newUserSettings, realmUserDefault, realmUserDefaultChanged } from './realm-user-defaults.js';
import { DEFAULT_USER_STATUS } from './user-status.js';
import { evolveRealmDomain } from './realm-domains.js';
import { evolveBotStorage } from './bot-storage.js';
import type { RealmState, UserGroup } from './realm-state.js';
import type { MessageSent, RealmCreated, RealmRecord, StreamCreated, SubscriptionsAdded, UserCreated } from './records.js';
import { Flag, MessageBit } from './message-index.js';
import { directKey } from './recipients.js';
import { newSubscription, streamFromRecord } from './streams.js';
import { userTopicSet } from './user-topics.js';
import { linkifiersChanged } from './linkifiers.js';
import { realmSettingsChanged } from './realm-settings.js';
import { evolveInvites } from './invites.js';
import { evolveEmailInvites } from './email-invites.js';
import { userStatusSet } from './user-status.js';
import { userGroupCreated, userGroupMembershipChanged, userGroupUpdated } from './user-groups.js';
import { streamUpdated } from './evolve-channels.js';
import { evolveProfileFields } from './custom-profile-fields.js';
import { evolveNavigationViews } from './navigation-views.js';
import { evolveChannelFolders } from './channel-folders.js';
import { evolveDrafts } from './drafts.js';
import { evolveScheduledMessages } from './scheduled-messages.js';
import { realmIconChanged } from './realm-icon.js';
import { dropSubmessages, submessageAdded } from './submessages.js';
import { evolveAttachments } from './attachments.js';
import { evolveReactions } from './reactions.js';
import { evolveUserAdmin } from './user-admin.js';
import { messageEdited } from './message-edits.js';
import { wordIndexMessageEdited } from './message-word-index.js';
import { evolveMessagesDeleted } from './message-delete.js';
import { subscriptionsRemoved, subscriptionPropertyChanged } from './subscriptions.js';
import { messageFlagsChanged } from './message-flags.js';
import { evolveRealmEmoji } from './realm-emoji.js';
import { avatarChanged } from './avatars.js';
import { evolveSessions } from './sessions.js';
import { userPasswordChanged } from './user-password.js';
import { evolveMutedUsers } from './muted-users.js';
import { alertWordsChanged } from './alert-words.js';
import { evolveSavedSnippets } from './saved-snippets.js';
import { evolvePushDevices } from './push-devices.js';
import { apiKeyRegenerated } from './api-key-change.js';
import { evolveBots } from './bots.js';
import { assertNever, checkRecordVersion } from './record-versions.js';
import { forgetStaleWire } from './message-wire-cache.js';
import { forgetChannelReceivers, receiverRows } from './channel-receivers.js';

/**
 * Applies one record to the state, in place. Throws `UnknownRecordError` (before touching the
 * state) for a record type or version this parley does not read.
 */
export function evolve(state: RealmState, record: RealmRecord): void {
  checkRecordVersion(record);
  forgetStaleWire(state, record);
  forgetChannelReceivers(state, record);
  switch (record.type) {
    case 'realm_created':
      return realmCreated(state, record);
    case 'user_created':
      return userCreated(state, record);
    case 'stream_created':
      return streamCreated(state, record);
    case 'subscriptions_added':
      return subscriptionsAdded(state, record);
    case 'subscriptions_removed':
      return subscriptionsRemoved(state, record);
    case 'subscription_property_changed':
      return subscriptionPropertyChanged(state, record);
    case 'message_sent':
      return messageSent(state, record);
    case 'message_edited':
      messageEdited(state, record);
      return wordIndexMessageEdited(state, record);
    case 'messages_deleted':
      dropSubmessages(state, record.ids);
      return evolveMessagesDeleted(state, record);
    case 'realm_settings_changed':
      return realmSettingsChanged(state, record);
    case 'linkifiers_changed':
      return linkifiersChanged(state, record);
    case 'realm_playground_added':
    case 'realm_playground_removed':
      return evolvePlayground(state, record);
    case 'realm_user_default_changed':
      return realmUserDefaultChanged(state, record);
    case 'realm_domain_added':
    case 'realm_domain_changed':
    case 'realm_domain_removed':
      return evolveRealmDomain(state, record);
    case 'bot_storage_set':
    case 'bot_storage_removed':
      return evolveBotStorage(state, record);
    case 'user_topic_set':
      return userTopicSet(state, record);
    case 'user_status_set':
      return userStatusSet(state, record);
    case 'user_group_created':
      return userGroupCreated(state, record);
    case 'user_group_membership_changed':
      return userGroupMembershipChanged(state, record);
    case 'user_group_updated':
      return userGroupUpdated(state, record);
    case 'stream_updated':
      return streamUpdated(state, record);
    case 'custom_profile_field_created':
    case 'custom_profile_field_updated':
    case 'custom_profile_field_deleted':
    case 'custom_profile_fields_reordered':
    case 'custom_profile_values_changed':
      return evolveProfileFields(state, record);
    case 'navigation_view_added':
    case 'navigation_view_updated':
    case 'navigation_view_removed':
      return evolveNavigationViews(state, record);
    case 'channel_folder_created':
    case 'channel_folder_updated':
    case 'channel_folders_reordered':
      return evolveChannelFolders(state, record);
    case 'drafts_created':
    case 'draft_edited':
    case 'draft_deleted':
    case 'drafts_cleared':
      return evolveDrafts(state, record);
    case 'scheduled_message_created':
    case 'scheduled_message_edited':
    case 'scheduled_message_deleted':
    case 'scheduled_message_delivered':
    case 'scheduled_message_failed':
      return evolveScheduledMessages(state, record);
    case 'realm_icon_changed':
      return realmIconChanged(state, record);
    case 'submessage_added':
      return submessageAdded(state, record);
    case 'attachment_uploaded':
    case 'attachment_deleted':
    case 'attachment_messages_changed':
      return evolveAttachments(state, record);
    case 'reaction_added':
    case 'reaction_removed':
      return evolveReactions(state, record);
    case 'user_updated':
      return evolveUserAdmin(state, record);
    case 'multiuse_invite_created':
    case 'multiuse_invite_revoked':
      return evolveInvites(state, record);
    case 'email_invites_created':
    case 'email_invite_revoked':
    case 'email_invite_resent':
    case 'email_invites_used':
      return evolveEmailInvites(state, record);
    case 'message_flags_changed':
      return messageFlagsChanged(state, record);
    case 'realm_emoji_added':
    case 'realm_emoji_deactivated':
      return evolveRealmEmoji(state, record);
    case 'avatar_changed':
      return avatarChanged(state, record);
    case 'session_created':
    case 'sessions_ended':
      return evolveSessions(state, record);
    case 'user_password_changed':
      return userPasswordChanged(state, record);
    case 'user_muted':
    case 'user_unmuted':
      return evolveMutedUsers(state, record);
    case 'alert_words_changed':
      return alertWordsChanged(state, record);
    case 'saved_snippet_created':
    case 'saved_snippet_edited':
    case 'saved_snippet_deleted':
      return evolveSavedSnippets(state, record);
    case 'push_device_added':
    case 'push_devices_removed':
      return evolvePushDevices(state, record);
    case 'api_key_regenerated':
      return apiKeyRegenerated(state, record);
    case 'bot_updated':
      return evolveBots(state, record);
    default:
      return assertNever(record, 'record type');
  }
}

function bump(state: RealmState, kind: keyof RealmState['nextIds'], id: number): void {
  if (id >= state.nextIds[kind]) state.nextIds[kind] = id + 1;
}

function realmCreated(state: RealmState, r: RealmCreated): void {
  state.created = true;
  state.subdomain = r.subdomain;
  state.settings.name = r.name;
  state.settings.description = r.description;
  state.settings.dateCreated = r.dateCreated;
  state.settings.groups = { ...r.groups };
  for (const g of r.systemGroups) {
    const group: UserGroup = {
      id: g.id,
      name: g.name,
      description: g.description,
      isSystemGroup: true,
      directMembers: new Set(),
      directSubgroups: new Set(),
      dateCreated: r.dateCreated,
      creatorId: null,
      deactivated: false,
    };
    state.groups.set(g.id, group);
    state.systemGroups.set(g.name, g.id);
    bump(state, 'group', g.id);
  }
}

function userCreated(state: RealmState, r: UserCreated): void {
  state.users.set(r.id, {
    id: r.id,
    email: r.email,
    fullName: r.fullName,
    role: r.role,
    isActive: true,
    isBot: r.isBot,
    botType: r.botType,
    botOwnerId: r.botOwnerId,
    dateJoined: r.dateJoined,
    timezone: r.timezone,
    avatarVersion: 1,
    apiKey: r.apiKey,
    passwordHash: r.passwordHash,
    emailAddressVisibility: state.settings.emailAddressVisibility,
    ...(r.systemBot !== undefined && { systemBot: r.systemBot }),
  });
  // Zulip's copy_default_settings: the organization's defaults become the new user's own values.
  const settings = newUserSettings(state);
  if (settings !== undefined) state.users.get(r.id)!.settings = settings;
  if (realmUserDefault(state, 'presence_enabled') === false) state.userStatus.set(r.id, { ...DEFAULT_USER_STATUS, presenceEnabled: false });
  state.usersByEmail.set(r.email.toLowerCase(), r.id);
  state.usersByApiKey.set(r.apiKey, r.id);
  state.userStreams.set(r.id, new Set());
  bump(state, 'user', r.id);
}

function streamCreated(state: RealmState, r: StreamCreated): void {
  const stream = streamFromRecord(r);
  state.streams.set(r.id, stream);
  state.streamsByName.set(r.name.toLowerCase(), r.id);
  state.subscriptions.set(r.id, new Map());
  state.recipients.set(r.recipientId, { type: 'stream', streamId: r.id });
  bump(state, 'stream', r.id);
  bump(state, 'recipient', r.recipientId);
}

function subscriptionsAdded(state: RealmState, r: SubscriptionsAdded): void {
  const subs = state.subscriptions.get(r.streamId)!;
  for (const { userId, color } of r.subscriptions) {
    subs.set(userId, newSubscription(color));
    state.userStreams.get(userId)!.add(r.streamId);
  }
}

function messageSent(state: RealmState, r: MessageSent): void {
  if (r.newDirectUserIds !== undefined) {
    state.recipients.set(r.recipientId, { type: 'direct', userIds: r.newDirectUserIds });
    state.directRecipients.set(directKey(r.newDirectUserIds), r.recipientId);
    bump(state, 'recipient', r.recipientId);
  }
  const recipient = state.recipients.get(r.recipientId)!;
  state.messages.add({
    id: r.id,
    senderId: r.senderId,
    recipientId: r.recipientId,
    topicId: state.topics.intern(r.topic),
    timestamp: r.timestamp,
    clientId: state.clients.intern(r.client),
    bits: (r.isMeMessage ? MessageBit.isMe : 0) | (r.resolveTopicNotice ? MessageBit.resolveTopicNotice : 0),
  });
  bump(state, 'message', r.id);
  state.wordIndex?.messageSent(r.id, r.content, r.topic);

  // UserMessage rows: the sender always; channel subscribers or conversation members.
  const extra = r.userFlags;
  let senderDone = false;
  if (recipient.type === 'stream') {
    // The channel's cached active subscribers and their rows: one array walk, no Map lookups.
    const { userIds, rows } = receiverRows(state, recipient.streamId);
    for (let i = 0; i < userIds.length; i++) {
      const userId = userIds[i]!;
      let flags = extra === undefined ? 0 : (extra[userId] ?? 0);
      if (userId === r.senderId) {
        senderDone = true;
        if (r.readBySender) flags |= Flag.read;
      }
      rows[i]!.append(r.id, flags);
    }
  } else {
    for (const userId of recipient.userIds) {
      const user = state.users.get(userId);
      if (user === undefined || !user.isActive) continue;
      let flags = extra?.[userId] ?? 0;
      if (userId === r.senderId) {
        senderDone = true;
        if (r.readBySender) flags |= Flag.read;
      }
      state.messages.userMessages(userId).append(r.id, flags);
    }
  }
  if (!senderDone) state.messages.userMessages(r.senderId).append(r.id, r.readBySender ? Flag.read : 0);

  if (recipient.type === 'stream') {
    const stream = state.streams.get(recipient.streamId)!;
    if (stream.firstMessageId === null) stream.firstMessageId = r.id;
  }
}
