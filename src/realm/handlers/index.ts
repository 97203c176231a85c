/**
 * Command type → handler (`decide`). The realm actor looks handlers up here; adding a command
 * means adding its type in `commands.ts` and its handler file here.
 */
import type { Command, CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';
import { createRealm } from './realm.js';
import { createUser } from './users.js';
import { createStream, subscribe } from './streams.js';
import { sendMessage } from './messages.js';
import { typing } from './typing.js';
import { setUserTopic } from './user-topics.js';
import { createUserGroup, updateUserGroup, updateUserGroupMembership } from './user-groups.js';
import { updateSubscriptions } from './subscriptions.js';
import { setSubscriptionProperties } from './subscription-properties.js';
import { createChannel, updateChannel, archiveChannel } from './channels.js';

type HandlerTable = { [T in Command['type']]: Handler<Extract<Command, { type: T }>, CommandReplies[T]> };

export const handlers: HandlerTable = {
  create_realm: createRealm,
  create_user: createUser,
  create_stream: createStream,
  subscribe,
  send_message: sendMessage,
  typing,
  set_user_topic: setUserTopic,
  create_user_group: createUserGroup,
  update_user_group_membership: updateUserGroupMembership,
  update_user_group: updateUserGroup,
  update_subscriptions: updateSubscriptions,
  set_subscription_properties: setSubscriptionProperties,
  create_channel: createChannel,
  update_channel: updateChannel,
  archive_channel: archiveChannel,
};
