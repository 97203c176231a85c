/**
 * Edit-typing notifications (https://zulip.com/api/set-typing-status-for-message-edit, Zulip FL
 * 351; `zerver/views/typing.py` `send_message_edit_notification_backend`, `zerver/actions/typing.py`
 * `do_send_stream_message_edit_typing_notification` /
 * `do_send_direct_message_edit_typing_notification`). Nothing is persisted; the command goes
 * through the actor so its events are ordered with everything else.
 *
 * Checks, in Zulip's order: `access_message(is_modifying_message=True)` ("Invalid message(s)"),
 * `validate_user_can_edit_message` with no time buffer, then the sender's
 * `send_stream_typing_notifications` / `send_private_typing_notifications` setting.
 * Receivers: a channel message's active subscribers (none at all in a channel with more than
 * {@link MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS} of them, as Zulip); a direct message's active
 * participants; in both cases only users with `receives_typing_notifications`.
 */
import { ok, fail, Errors } from '../../errors.js';
import { accessMessage, checkCanEditMessageContent } from '../../domain/access.js';
import { personalSetting } from '../../domain/user-settings.js';
import type { RealmView, Handler } from '../decision.js';
import type { EventPayloadOf } from '../../events/schemas.js';

/** `POST /messages/{message_id}/typing`. */
export interface TypingEditMessage {
  type: 'typing_edit_message';
  senderId: number;
  messageId: number;
  op: 'start' | 'stop';
}

/** Replies of the edit-typing command (merged into `CommandReplies`). */
export interface TypingEditReplies {
  typing_edit_message: Record<string, never>;
}

/** Zulip's `settings.MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS`: larger channels get no typing events. */
export const MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

const receives = (state: RealmView, userId: number): boolean => {
  const user = state.users.get(userId);
  return user !== undefined && user.isActive && personalSetting(user, 'receives_typing_notifications') !== false;
};

export const typingEditMessage: Handler<TypingEditMessage, Record<string, never>> = (state, cmd, ctx) => {
  const sender = state.users.get(cmd.senderId);
  if (sender === undefined || !sender.isActive) return fail(Errors.noSuchUser());
  const accessible = accessMessage(state, sender, cmd.messageId, { forModification: true });
  if (!accessible.ok) return accessible;
  const m = state.messages;
  const denied = checkCanEditMessageContent(state, sender, m.sender.get(cmd.messageId), ctx.now() - m.timestamp.get(cmd.messageId), 0);
  if (denied) return fail(denied);
  const recipient = state.recipients.get(m.recipient.get(cmd.messageId))!;
  if (recipient.type === 'stream') {
    if (personalSetting(sender, 'send_stream_typing_notifications') === false) return fail(Errors.channelTypingDisabled());
    const subscribers = [...(state.subscriptions.get(recipient.streamId)?.keys() ?? [])].filter((id) => state.users.get(id)?.isActive);
    if (subscribers.length > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS) return ok({ records: [], events: [], reply: {} });
    const userIds = subscribers.filter((id) => receives(state, id));
    const payload: EventPayloadOf<'typing_edit_message'> = {
      type: 'typing_edit_message', op: cmd.op, sender_id: sender.id, message_id: cmd.messageId,
      recipient: { type: 'channel', channel_id: recipient.streamId, topic: state.topics.value(m.topic.get(cmd.messageId)) },
    };
    return ok({ records: [], events: [{ userIds, payload }], reply: {} });
  }
  if (personalSetting(sender, 'send_private_typing_notifications') === false) return fail(Errors.directTypingDisabled());
  const userIds = recipient.userIds.filter((id) => receives(state, id));
  const payload: EventPayloadOf<'typing_edit_message'> = {
    type: 'typing_edit_message', op: cmd.op, sender_id: sender.id, message_id: cmd.messageId,
    recipient: { type: 'direct', user_ids: userIds },
  };
  return ok({ records: [], events: [{ userIds, payload }], reply: {} });
};
