/**
 * `typing`: start/stop typing notifications (Zulip's `POST /typing`). Nothing is persisted; the
 * command goes through the actor so its events are ordered with everything else.
 * Direct: the event goes to every recipient and the sender. Channel: to the channel's subscribers.
 */
import { ok, fail, Errors } from '../../errors.js';
import { apiEmail } from '../../domain/users.js';
import { accessStreamById } from '../../domain/access.js';
import type { CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';
import type { EventPayloadOf } from '../../events/schemas.js';

/** A typing notification: no records, only `typing` events (zulip-behavior.md §10.4). */
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

export const typing: Handler<Typing, CommandReplies['typing']> = (state, cmd) => {
  const sender = state.users.get(cmd.senderId);
  if (sender === undefined) return fail(Errors.noSuchUser());
  const senderRef = { user_id: sender.id, email: apiEmail(sender, state.host) };
  if (cmd.messageType === 'direct') {
    const ids = cmd.to ?? [];
    if (ids.length === 0) return fail(Errors.badRequest("Empty 'to' list"));
    const users = [];
    for (const id of ids) {
      const user = state.users.get(id);
      if (user === undefined || !user.isActive) return fail(Errors.invalidUserId(id));
      users.push(user);
    }
    const everyone = [...new Map([sender, ...users].map((u) => [u.id, u])).values()].sort((a, b) => a.id - b.id);
    const payload: EventPayloadOf<'typing'> = {
      type: 'typing',
      op: cmd.op,
      message_type: 'direct',
      sender: senderRef,
      recipients: everyone.map((u) => ({ user_id: u.id, email: apiEmail(u, state.host) })),
    };
    return ok({ records: [], events: [{ userIds: everyone.map((u) => u.id), payload }], reply: {} });
  }
  if (cmd.streamId === undefined) return fail(Errors.badRequest('Missing stream_id'));
  if (cmd.topic === undefined) return fail(Errors.missingTopic());
  // Zulip's `check_send_typing_notification`: `access_stream_by_id` (content access, active channel).
  const access = accessStreamById(state, sender, cmd.streamId);
  if (!access.ok) return access;
  const stream = access.value.stream;
  const subscribers = [...(state.subscriptions.get(stream.id)?.keys() ?? [])];
  const payload: EventPayloadOf<'typing'> = { type: 'typing', op: cmd.op, message_type: 'stream', sender: senderRef, stream_id: stream.id, topic: cmd.topic };
  return ok({ records: [], events: [{ userIds: subscribers, payload }], reply: {} });
};
