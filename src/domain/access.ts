/**
 * The access family: every "may this user see / change this"
 * question of the domain, one function each, after Zulip's `access_*` helpers. Implementations
 * live in `access/` by object kind; import them from here.
 *
 * - channels (`access/streams.ts`): `accessStreamById`, `accessStreamByName`,
 *   `accessStreamForSend`, `accessStreamForAdminister`, `hasContentAccess`, `hasMetadataAccess`,
 *   `canAccessStreamHistory`, `canAdministerChannel`, `canPostInChannel`, `isSubscribed`;
 * - messages (`access/messages.ts`): `accessMessage`, `canAccessMessage`;
 * - users (`access/users.ts`): `accessUserById`, `accessUserByEmail`, `accessUserForPresence`, `canAccessUser`, `canAccessAllUsers`, `canAdminUser`;
 * - drafts (`access/drafts.ts`): `accessDraft`;
 * - scheduled messages and reminders (`access/scheduled-messages.ts`): `accessScheduledMessage`, `accessReminder`;
 * - subscribing (`access/subscriptions.ts`): `canJoinStream`, `canAddSubscribers`,
 *   `canRemoveSubscribers`, `canSeeWithSubscribers`;
 * - moving messages (`access/message-moves.ts`): `canEditTopic`, `canResolveTopics`, `canMoveOutOfChannel`;
 * - user groups (`access/user-groups.ts`): `accessUserGroupById`, `accessUserGroupForUpdate`,
 *   `accessUserGroupForMembers`, `hasRealmPermission`, `hasPermissionForGroupSetting`;
 * - whole-endpoint roles (`access/realm-roles.ts`): `requireRealmAdmin`, `isRealmAdmin`, `accessAvatarChange`,
 *   `requireRealmOwner`, `isRealmOwner`, `requireNonGuest`, `requireMemberOrAdmin`;
 * - custom emoji (`access/emoji.ts`): `checkCanAddCustomEmoji`, `checkCanRemoveCustomEmoji`.
 * - bots (`access/bots.ts`): `accessBotById`.
 *
 * "Unknown" and "not allowed to see" are the same error (no existence oracle): the `access*` functions
 * return the object or that single error, so callers cannot build an existence oracle.
 */
export * from './access/streams.js';
export * from './access/messages.js';
export * from './access/users.js';
export * from './access/drafts.js';
export * from './access/scheduled-messages.js';
export * from './access/subscriptions.js';
export * from './access/message-moves.js';
export * from './access/emoji.js';
export * from './access/attachments.js';
export * from './access/user-groups.js';
export * from './access/realm-roles.js';
export * from './access/bots.js';
