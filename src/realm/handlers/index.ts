/**
 * Command type → handler (`decide`). The realm actor looks handlers up here; adding a command
 * means declaring its type next to its handler, adding it to the union in `commands.ts`, and
 * listing the handler here.
 */
import type { Command, CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';
import { createRealm } from './realm.js';
import { createUser } from './users.js';
import { subscribe } from './streams.js';
import { sendMessage } from './messages.js';
import { ensureSystemBots, internalSend } from './internal-send.js';
import { setAnnouncementChannels } from './realm-settings.js';
import { typing } from './typing.js';
import { updatePresence } from './presence.js';
import { setUserTopic } from './user-topics.js';
import { addLinkifier, updateLinkifier, removeLinkifier, reorderLinkifiers } from './realm-linkifiers.js';
import { updateUserStatus } from './user-status.js';
import { createUserGroup, deactivateUserGroup, updateUserGroup, updateUserGroupMembership } from './user-groups.js';
import { updateSubscriptions } from './subscriptions.js';
import { setSubscriptionProperties } from './subscription-properties.js';
import { createChannel } from './channel-create.js';
import { updateChannel, archiveChannel } from './channels.js';
import { acceptMultiuseInvite, createMultiuseInvite, revokeMultiuseInvite } from './invites.js';
import { acceptEmailInvite, inviteUsers, resendEmailInvite, revokeEmailInvite } from './email-invites.js';
import {
  createCustomProfileField,
  updateCustomProfileField,
  deleteCustomProfileField,
  reorderCustomProfileFields,
  setCustomProfileValues,
  removeCustomProfileValues,
} from './custom-profile-fields.js';
import { addNavigationView, updateNavigationView, removeNavigationView } from './navigation-views.js';
import { createChannelFolder, updateChannelFolder, reorderChannelFolders } from './channel-folders.js';
import { updateMessageFlags, markAllAsRead, markChannelAsRead } from './message-flags.js';
import { addReaction, removeReaction } from './reactions.js';
import { createScheduledMessage, editScheduledMessage, deleteScheduledMessage } from './scheduled-messages.js';
import { createReminder, deleteReminder } from './reminders.js';
import { deliverScheduledMessage } from './scheduled-delivery.js';
import { changeRealmIcon } from './realm-icon.js';
import { addSubmessage } from './submessages.js';
import { createDrafts, editDraft, deleteDraft } from './drafts.js';
import { uploadFile, deleteAttachment } from './attachments.js';
import { deleteUnclaimedAttachments } from './attachment-expiry.js';
import { deleteMessage } from './message-delete.js';
import { editMessage } from './message-edit.js';
import { updateUser, deactivateUser, reactivateUser } from './user-admin.js';
import { adminCreateUser, addBot } from './user-create.js';
import { updateSettings } from './user-settings.js';
import { updateRealm } from './realm-update.js';
import { addDefaultStream, removeDefaultStream } from './default-streams.js';
import { addPlayground, removePlayground } from './realm-playgrounds.js';
import { updateRealmUserDefaults } from './realm-user-defaults.js';
import { addRealmDomain, changeRealmDomain, removeRealmDomain } from './realm-domains.js';
import { putBotStorage, removeBotStorage } from './bot-storage.js';
import { testWelcomeBotMessage } from './welcome-bot-test.js';
import { deleteTopic } from './delete-topic.js';
import { reportMessage } from './message-report.js';
import { deleteExpiredMessages } from './message-retention.js';
import { addRealmEmoji, removeRealmEmoji } from './realm-emoji.js';
import { changeAvatar } from './avatars.js';
import { createSession, endSession, changePassword } from './sessions.js';
import { muteUser, unmuteUser } from './muted-users.js';
import { changeAlertWords } from './alert-words.js';
import { createSavedSnippet, editSavedSnippet, deleteSavedSnippet } from './saved-snippets.js';
import { typingEditMessage } from './typing-edit.js';
import { deactivateOwnAccount, regenerateApiKey } from './own-account.js';
import { addPushDevice, removePushDevice } from './push-devices.js';
import { updateBot, deactivateBot, regenerateBotApiKey } from './bots.js';

type HandlerTable = { [T in Command['type']]: Handler<Extract<Command, { type: T }>, CommandReplies[T]> };

export const handlers: HandlerTable = {
  create_realm: createRealm,
  create_user: createUser,
  subscribe,
  send_message: sendMessage,
  internal_send: internalSend,
  ensure_system_bots: ensureSystemBots,
  set_announcement_channels: setAnnouncementChannels,
  typing,
  update_presence: updatePresence,
  set_user_topic: setUserTopic,
  add_linkifier: addLinkifier,
  update_linkifier: updateLinkifier,
  remove_linkifier: removeLinkifier,
  reorder_linkifiers: reorderLinkifiers,
  update_user_status: updateUserStatus,
  create_user_group: createUserGroup,
  update_user_group_membership: updateUserGroupMembership,
  update_user_group: updateUserGroup,
  deactivate_user_group: deactivateUserGroup,
  update_subscriptions: updateSubscriptions,
  set_subscription_properties: setSubscriptionProperties,
  create_channel: createChannel,
  update_channel: updateChannel,
  archive_channel: archiveChannel,
  create_custom_profile_field: createCustomProfileField,
  update_custom_profile_field: updateCustomProfileField,
  delete_custom_profile_field: deleteCustomProfileField,
  reorder_custom_profile_fields: reorderCustomProfileFields,
  set_custom_profile_values: setCustomProfileValues,
  remove_custom_profile_values: removeCustomProfileValues,
  add_navigation_view: addNavigationView,
  update_navigation_view: updateNavigationView,
  remove_navigation_view: removeNavigationView,
  create_channel_folder: createChannelFolder,
  update_channel_folder: updateChannelFolder,
  reorder_channel_folders: reorderChannelFolders,
  update_message_flags: updateMessageFlags,
  mark_all_as_read: markAllAsRead,
  mark_channel_as_read: markChannelAsRead,
  add_reaction: addReaction,
  remove_reaction: removeReaction,
  create_drafts: createDrafts,
  edit_draft: editDraft,
  delete_draft: deleteDraft,
  create_scheduled_message: createScheduledMessage,
  edit_scheduled_message: editScheduledMessage,
  delete_scheduled_message: deleteScheduledMessage,
  create_reminder: createReminder,
  delete_reminder: deleteReminder,
  deliver_scheduled_message: deliverScheduledMessage,
  change_realm_icon: changeRealmIcon,
  add_submessage: addSubmessage,
  upload_file: uploadFile,
  delete_attachment: deleteAttachment,
  delete_unclaimed_attachments: deleteUnclaimedAttachments,
  delete_message: deleteMessage,
  edit_message: editMessage,
  create_multiuse_invite: createMultiuseInvite,
  revoke_multiuse_invite: revokeMultiuseInvite,
  accept_multiuse_invite: acceptMultiuseInvite,
  invite_users: inviteUsers,
  revoke_email_invite: revokeEmailInvite,
  resend_email_invite: resendEmailInvite,
  accept_email_invite: acceptEmailInvite,
  update_user: updateUser,
  deactivate_user: deactivateUser,
  reactivate_user: reactivateUser,
  admin_create_user: adminCreateUser,
  update_settings: updateSettings,
  add_realm_emoji: addRealmEmoji,
  remove_realm_emoji: removeRealmEmoji,
  change_avatar: changeAvatar,
  add_bot: addBot,
  update_bot: updateBot,
  deactivate_bot: deactivateBot,
  regenerate_bot_api_key: regenerateBotApiKey,
  update_realm: updateRealm,
  add_default_stream: addDefaultStream,
  remove_default_stream: removeDefaultStream,
  add_playground: addPlayground,
  remove_playground: removePlayground,
  update_realm_user_defaults: updateRealmUserDefaults,
  add_realm_domain: addRealmDomain,
  change_realm_domain: changeRealmDomain,
  remove_realm_domain: removeRealmDomain,
  put_bot_storage: putBotStorage,
  remove_bot_storage: removeBotStorage,
  test_welcome_bot_message: testWelcomeBotMessage,
  delete_topic: deleteTopic,
  report_message: reportMessage,
  delete_expired_messages: deleteExpiredMessages,
  create_session: createSession,
  end_session: endSession,
  change_password: changePassword,
  mute_user: muteUser,
  unmute_user: unmuteUser,
  change_alert_words: changeAlertWords,
  create_saved_snippet: createSavedSnippet,
  edit_saved_snippet: editSavedSnippet,
  delete_saved_snippet: deleteSavedSnippet,
  typing_edit_message: typingEditMessage,
  deactivate_own_account: deactivateOwnAccount,
  regenerate_api_key: regenerateApiKey,
  add_push_device: addPushDevice,
  remove_push_device: removePushDevice,
};
