/**
 * The route index: every path and method parley serves, in one table grouped by resource (our
 * zproject/urls.py; Zulip's REST API reference: https://zulip.com/api/). Paths are relative to
 * `/api/v1`; `{name}` is an integer placeholder, `{name:string}` a string one. Each resource's
 * endpoints live in the api file named in its section; `route()` checks at compile time that an
 * endpoint's `pathParams` match its template, and `api/registry.ts` checks again at startup and
 * rejects duplicates. Unauthenticated endpoints say `auth: 'none'` in their definition
 * (`/fetch_api_key`, `/server_settings`); every other one needs HTTP Basic `email:api_key`.
 */
import { route, type Route } from './define-endpoint.js';
import type { EventQueueManager } from '../events/event-queues.js';
import * as auth from './auth.js';
import * as serverSettings from './server-settings.js';
import { eventEndpoints } from './events.js';
import * as messages from './messages.js';
import * as messageFlags from './message-flags.js';
import * as reactions from './reactions.js';
import * as drafts from './drafts.js';
import * as scheduledMessages from './scheduled-messages.js';
import * as reminders from './reminders.js';
import * as realmIcon from './realm-icon.js';
import * as submessages from './submessages.js';
import * as uploads from './uploads.js';
import * as typing from './typing.js';
import * as streams from './streams.js';
import * as subscriptions from './subscriptions.js';
import * as userTopics from './user-topics.js';
import * as channelFolders from './channel-folders.js';
import * as users from './users.js';
import * as bots from './bots.js';
import * as webhooks from './webhooks/external.js';
import * as settings from './settings.js';
import * as presence from './presence.js';
import * as userStatus from './user-status.js';
import * as userGroups from './user-groups.js';
import * as userGroupMembership from './user-group-membership.js';
import * as customProfileFields from './custom-profile-fields.js';
import * as realmSettings from './realm.js';
import * as defaultStreams from './default-streams.js';
import * as playgrounds from './realm-playgrounds.js';
import * as realmUserDefaults from './realm-user-defaults.js';
import * as realmDomains from './realm-domains.js';
import * as botStorage from './bot-storage.js';
import * as deleteTopic from './delete-topic.js';
import * as messageReport from './message-report.js';
import * as linkifiers from './realm-linkifiers.js';
import * as invites from './invites.js';
import { emailInviteEndpoints } from './email-invites.js';
import type { Mailer } from '../mail/mailer.js';
import * as navigationViews from './navigation-views.js';
import * as realmEmoji from './realm-emoji.js';
import * as avatars from './avatars.js';
import * as mutedUsers from './muted-users.js';
import * as alertWords from './alert-words.js';
import * as savedSnippets from './saved-snippets.js';
import * as readReceipts from './read-receipts.js';
import * as typingEdit from './typing-edit.js';
import * as ownAccount from './own-account.js';
import * as pushDevices from './push-devices.js';

/** Server-wide services some endpoints are bound to. */
export interface EndpointServices {
  queues: EventQueueManager;
  /** Outbound mail (invitation emails); absent = `POST /invites` and the email-invite routes are not served. */
  mailer?: Mailer;
}

/** The full route table, handed to `createDispatcher` (`api/registry.ts`). */
export function buildRoutes(services: EndpointServices): Route[] {
  const events = eventEndpoints(services.queues);
  const emailInvites = services.mailer === undefined ? null : emailInviteEndpoints(services.mailer);
  return [
    // --- Server and authentication (auth.ts, server-settings.ts) ---
    route('/server_settings', { GET: serverSettings.getServerSettings }),
    route('/fetch_api_key', { POST: auth.fetchApiKey }),

    // --- Real-time events (events.ts) ---
    route('/register', { POST: events.register }),
    route('/events', { GET: events.getEvents, DELETE: events.deleteQueue }),

    // --- Messages (messages.ts) ---
    route('/messages', { GET: messages.getMessages, POST: messages.sendMessage }),
    route('/messages/{message_id}', { GET: messages.getMessage, PATCH: messages.updateMessage, DELETE: messages.deleteMessage }),
    route('/messages/{message_id}/report', { POST: messageReport.reportMessage }),
    route('/messages/{message_id}/history', { GET: messages.getMessageHistory }),
    route('/messages/render', { POST: messages.renderMessage }),
    route('/messages/matches_narrow', { GET: messages.checkMessagesMatchNarrow }),

    // --- Personal message flags (message-flags.ts) ---
    route('/messages/flags', { POST: messageFlags.updateMessageFlags }),
    route('/messages/flags/narrow', { POST: messageFlags.updateMessageFlagsForNarrow }),
    route('/mark_all_as_read', { POST: messageFlags.markAllAsRead }),
    route('/mark_stream_as_read', { POST: messageFlags.markStreamAsRead }),
    route('/mark_topic_as_read', { POST: messageFlags.markTopicAsRead }),

    // --- Emoji reactions (reactions.ts) ---
    route('/messages/{message_id}/reactions', { POST: reactions.addReaction, DELETE: reactions.removeReaction }),

    // --- Drafts (drafts.ts) ---
    route('/drafts', { GET: drafts.getDrafts, POST: drafts.createDrafts }),
    route('/drafts/{draft_id}', { PATCH: drafts.editDraft, DELETE: drafts.deleteDraft }),

    // --- Scheduled messages and reminders (scheduled-messages.ts, reminders.ts) ---
    route('/scheduled_messages', { GET: scheduledMessages.getScheduledMessages, POST: scheduledMessages.createScheduledMessage }),
    route('/scheduled_messages/{scheduled_message_id}', { PATCH: scheduledMessages.updateScheduledMessage, DELETE: scheduledMessages.deleteScheduledMessage }),
    route('/reminders', { GET: reminders.getReminders, POST: reminders.createReminder }),
    route('/reminders/{reminder_id}', { DELETE: reminders.deleteReminder }),

    // --- Organization icon (realm-icon.ts) ---
    route('/realm/icon', { POST: realmIcon.uploadIcon, DELETE: realmIcon.deleteIcon }),

    // --- Widgets (submessages.ts) ---
    route('/submessage', { POST: submessages.processSubmessage }),

    // --- Uploads and attachments (uploads.ts) ---
    route('/user_uploads', { POST: uploads.uploadFile }),
    route('/user_uploads/{realm_id_str:string}/{hex:string}/{random:string}/{filename:string}', { GET: uploads.getFileTemporaryUrl }),
    route('/attachments', { GET: uploads.getAttachments }),
    route('/attachments/{attachment_id}', { DELETE: uploads.removeAttachment }),

    // --- Typing notifications (typing.ts) ---
    route('/typing', { POST: typing.setTypingStatus }),

    // --- Channels (streams.ts) ---
    route('/streams', { GET: streams.getStreams }),
    route('/channels/create', { POST: streams.createChannel }),
    route('/streams/{stream_id}', { GET: streams.getStreamById, PATCH: streams.updateStream, DELETE: streams.archiveStream }),
    route('/streams/{stream_id}/members', { GET: streams.getStreamMembers }),
    route('/streams/{stream_id}/email_address', { GET: streams.getStreamEmailAddress }),
    route('/streams/{stream_id}/delete_topic', { POST: deleteTopic.deleteTopic }),
    route('/get_stream_id', { GET: streams.getStreamId }),
    route('/users/me/{stream_id}/topics', { GET: streams.getStreamTopics }),

    // --- Subscriptions (subscriptions.ts) ---
    route('/users/me/subscriptions', {
      GET: subscriptions.getSubscriptions,
      POST: subscriptions.subscribe,
      PATCH: subscriptions.updateSubscriptions,
      DELETE: subscriptions.unsubscribe,
    }),
    route('/users/me/subscriptions/properties', { POST: subscriptions.updateSubscriptionSettings }),
    route('/users/me/subscriptions/{stream_id}', { PATCH: subscriptions.updateSubscriptionSettingsOfStream }),
    route('/users/{user_id}/subscriptions/{stream_id}', { GET: subscriptions.getSubscriptionStatus }),

    // --- Per-topic visibility: mute, follow (user-topics.ts) ---
    route('/user_topics', { POST: userTopics.updateUserTopic }),
    route('/users/me/subscriptions/muted_topics', { PATCH: userTopics.muteTopic }),

    // --- Channel folders (channel-folders.ts) ---
    route('/channel_folders', { GET: channelFolders.getChannelFolders, PATCH: channelFolders.reorderChannelFolders }),
    route('/channel_folders/create', { POST: channelFolders.createChannelFolder }),
    route('/channel_folders/{channel_folder_id}', { PATCH: channelFolders.updateChannelFolder }),

    // --- Users (users.ts) ---
    route('/users', { GET: users.getUsers, POST: users.createUser }),
    route('/users/me', { GET: users.getOwnUser }),
    route('/users/{user_id}', { GET: users.getUserById, PATCH: users.updateUser, DELETE: users.deactivateUser }),
    route('/users/{email:string}', { GET: users.getUserByEmail }),
    route('/users/{user_id}/reactivate', { POST: users.reactivateUser }),

    // --- Bots (bots.ts) ---
    route('/bot_storage', { GET: botStorage.getBotStorage, PUT: botStorage.putBotStorage, DELETE: botStorage.removeBotStorage }),
    route('/bots', { GET: bots.getBots, POST: bots.createBot }),
    route('/bots/{bot_id}', { PATCH: bots.updateBot, DELETE: bots.deactivateBot }),
    route('/bots/{bot_id}/api_key', { GET: bots.getBotApiKey }),
    route('/bots/{bot_id}/api_key/regenerate', { POST: bots.regenerateBotApiKey }),
    // --- Incoming webhooks (webhooks/external.ts) ---
    route('/external/{integration:string}', { POST: webhooks.incomingWebhook }),

    // --- The caller's own settings (settings.ts) ---
    route('/settings', { PATCH: settings.updateSettings }),

    // --- Presence (presence.ts) ---
    route('/users/me/presence', { POST: presence.updatePresence }),
    route('/realm/presence', { GET: presence.getRealmPresence }),
    route('/users/{user_id}/presence', { GET: presence.getUserPresenceById }),
    route('/users/{email:string}/presence', { GET: presence.getUserPresenceByEmail }),

    // --- User status (user-status.ts) ---
    route('/users/me/status', { POST: userStatus.updateStatus }),
    route('/users/{user_id}/status', { GET: userStatus.getUserStatus, POST: userStatus.updateUserStatus }),

    // --- User groups (user-groups.ts) ---
    route('/user_groups', { GET: userGroups.getUserGroups }),
    route('/user_groups/create', { POST: userGroups.createUserGroup }),
    route('/user_groups/{user_group_id}', { PATCH: userGroups.updateUserGroup }),
    route('/user_groups/{user_group_id}/members', { GET: userGroupMembership.getUserGroupMembers, POST: userGroups.updateUserGroupMembers }),
    route('/user_groups/{user_group_id}/members/{user_id}', { GET: userGroupMembership.getIsUserGroupMember }),
    route('/user_groups/{user_group_id}/subgroups', { GET: userGroupMembership.getUserGroupSubgroups, POST: userGroups.updateUserGroupSubgroups }),
    route('/user_groups/{user_group_id}/deactivate', { POST: userGroups.deactivateUserGroup }),

    // --- Organization settings (realm.ts) ---
    route('/realm', { PATCH: realmSettings.updateRealm }),
    route('/realm/test_welcome_bot_custom_message', { POST: realmSettings.testWelcomeBotMessage }),
    route('/default_streams', { POST: defaultStreams.addDefaultStream, DELETE: defaultStreams.removeDefaultStream }),
    route('/realm/playgrounds', { POST: playgrounds.addPlayground }),
    route('/realm/playgrounds/{playground_id}', { DELETE: playgrounds.removePlayground }),
    route('/realm/user_settings_defaults', { PATCH: realmUserDefaults.updateRealmUserDefaults }),
    route('/realm/domains', { GET: realmDomains.listRealmDomains, POST: realmDomains.addRealmDomain }),
    route('/realm/domains/{domain:string}', { PATCH: realmDomains.changeRealmDomain, DELETE: realmDomains.removeRealmDomain }),

    // --- Custom profile fields and values (custom-profile-fields.ts) ---
    route('/realm/profile_fields', {
      GET: customProfileFields.listCustomProfileFields,
      POST: customProfileFields.createCustomProfileField,
      PATCH: customProfileFields.reorderCustomProfileFields,
    }),
    route('/realm/profile_fields/{field_id}', {
      PATCH: customProfileFields.updateCustomProfileField,
      DELETE: customProfileFields.deleteCustomProfileField,
    }),
    route('/users/me/profile_data', { PATCH: customProfileFields.updateProfileData, DELETE: customProfileFields.removeProfileData }),

    // --- Linkifiers (realm-linkifiers.ts) ---
    route('/realm/linkifiers', { GET: linkifiers.getLinkifiers, PATCH: linkifiers.reorderLinkifiers }),
    route('/realm/filters', { POST: linkifiers.addLinkifier }),
    route('/realm/filters/{filter_id}', { PATCH: linkifiers.updateLinkifier, DELETE: linkifiers.removeLinkifier }),

    // --- Custom emoji and avatars (realm-emoji.ts, avatars.ts) ---
    route('/realm/emoji', { GET: realmEmoji.listEmoji }),
    route('/realm/emoji/{emoji_name:string}', { POST: realmEmoji.uploadEmoji, DELETE: realmEmoji.deleteEmoji }),
    route('/users/me/avatar', { POST: avatars.setAvatar, DELETE: avatars.deleteAvatar }),

    // --- Invitations (invites.ts; the `/join/` sign-up page is served by join.ts outside /api/v1) ---
    route('/invites', { GET: invites.getInvites, ...(emailInvites && { POST: emailInvites.sendInvites }) }),
    route('/invites/multiuse', { POST: invites.createMultiuseInvite }),
    route('/invites/multiuse/{invite_id}', { DELETE: invites.revokeMultiuseInvite }),
    ...(emailInvites ? [
      route('/invites/{invite_id}', { DELETE: emailInvites.revokeEmailInvite }),
      route('/invites/{invite_id}/resend', { POST: emailInvites.resendEmailInvite }),
    ] : []),

    // --- Navigation views (navigation-views.ts) ---
    route('/navigation_views', { GET: navigationViews.getNavigationViews, POST: navigationViews.addNavigationView }),
    route('/navigation_views/{fragment:path}', {
      PATCH: navigationViews.editNavigationView,
      DELETE: navigationViews.removeNavigationView,
    }),

    // --- Personal features (muted-users.ts, alert-words.ts, saved-snippets.ts, read-receipts.ts,
    // typing-edit.ts, own-account.ts, push-devices.ts) ---
    route('/users/me/muted_users/{muted_user_id}', { POST: mutedUsers.muteUser, DELETE: mutedUsers.unmuteUser }),
    route('/users/me/alert_words', { GET: alertWords.listAlertWords, POST: alertWords.addAlertWords, DELETE: alertWords.removeAlertWords }),
    route('/saved_snippets', { GET: savedSnippets.getSavedSnippets, POST: savedSnippets.createSavedSnippet }),
    route('/saved_snippets/{saved_snippet_id}', { PATCH: savedSnippets.editSavedSnippet, DELETE: savedSnippets.deleteSavedSnippet }),
    route('/messages/{message_id}/read_receipts', { GET: readReceipts.getReadReceipts }),
    route('/messages/{message_id}/typing', { POST: typingEdit.setTypingStatusForMessageEdit }),
    route('/users/me', { DELETE: ownAccount.deactivateOwnUser }),
    route('/users/me/api_key/regenerate', { POST: ownAccount.regenerateApiKey }),
    route('/users/me/apns_device_token', { POST: pushDevices.addApnsToken, DELETE: pushDevices.removeApnsToken }),
    route('/users/me/android_gcm_reg_id', { POST: pushDevices.addFcmToken, DELETE: pushDevices.removeFcmToken }),
  ].flat();
}
