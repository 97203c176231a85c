/**
 * Submessages (https://zulip.com/api/send-submessage; Zulip's zerver/views/submessage.py
 * `process_submessage`, zerver/lib/submessage.py `verify_submessage_sender`,
 * zerver/actions/submessage.py `do_add_submessage`, zerver/lib/widget.py
 * `do_widget_post_save_actions`).
 *
 * `POST /submessage`, checks in Zulip's order: access to the message ("Invalid message(s)"); the
 * first submessage of a message must come from its sender ("You cannot attach a submessage to
 * this message."); `content` must be JSON ("Invalid json for submessage"); on a poll or todo
 * widget, the data must pass the widget's validator (`domain/widgets.ts`). Success: one
 * `submessage` event to everyone who gets events about the message
 * (`eventRecipientsForMessage`, as reactions).
 *
 * At send, a `/poll` or `/todo` message gets its `widget` submessage in the same decision
 * (`widgetOnSend`), included in the `message` event's `submessages`.
 */
import { ok, fail, Errors } from '../../errors.js';
import type { RealmState } from '../../domain/realm-state.js';
import type { MessageSent } from '../../domain/records.js';
import { accessMessage } from '../../domain/access.js';
import { nextSubmessageId, submessagesOf, submessageWire, type Submessage, type SubmessageAdded, type SubmessageWire } from '../../domain/submessages.js';
import { validatePollData, validateTodoData, widgetContentOf, widgetTypeOf } from '../../domain/widgets.js';
import type { Handler, RealmView } from '../decision.js';
import { eventRecipientsForMessage } from './reactions.js';

/** `POST /submessage`. */
export interface AddSubmessage {
  type: 'add_submessage';
  actorId: number;
  messageId: number;
  msgType: string;
  /** JSON text, stored and sent as given. */
  content: string;
}

export interface SubmessageReplies {
  add_submessage: Record<string, never>;
}

export const addSubmessage: Handler<AddSubmessage, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const access = accessMessage(state, actor, cmd.messageId);
  if (!access.ok) return access;
  const existing = submessagesOf(state, cmd.messageId);
  const messageSenderId = state.messages.sender.get(cmd.messageId);
  // Zulip's verify_submessage_sender: the message's sender attaches the first one.
  if (messageSenderId !== actor.id && !existing.some((s) => s.senderId === messageSenderId)) {
    return fail(Errors.badRequest('You cannot attach a submessage to this message.'));
  }
  let data: unknown;
  try {
    data = JSON.parse(cmd.content);
  } catch {
    return fail(Errors.badRequest('Invalid json for submessage'));
  }
  const widgetType = widgetTypeOf(existing);
  const isAuthor = messageSenderId === actor.id;
  const invalid = widgetType === 'poll' ? validatePollData(data, isAuthor) : widgetType === 'todo' ? validateTodoData(data, isAuthor) : null;
  if (invalid !== null) return fail(Errors.badRequest(invalid));
  const submessage: Submessage = { id: nextSubmessageId(state), messageId: cmd.messageId, senderId: actor.id, msgType: cmd.msgType, content: cmd.content };
  return ok({
    records: [{ type: 'submessage_added', v: 1, submessage }],
    events: [{
      userIds: eventRecipientsForMessage(state, cmd.messageId),
      payload: { type: 'submessage', msg_type: submessage.msgType, message_id: submessage.messageId, submessage_id: submessage.id, sender_id: submessage.senderId, content: submessage.content },
    }],
    reply: {},
  });
};

/**
 * Zulip's `do_widget_post_save_actions` for a message about to be sent: its `widget`
 * submessage record and wire form when its content starts with `/poll` or `/todo`, else null.
 */
export function widgetOnSend(state: RealmView | RealmState, record: MessageSent): { record: SubmessageAdded; wire: SubmessageWire } | null {
  const widget = widgetContentOf(record.content);
  if (widget === null) return null;
  const submessage: Submessage = { id: nextSubmessageId(state), messageId: record.id, senderId: record.senderId, msgType: 'widget', content: JSON.stringify(widget) };
  return { record: { type: 'submessage_added', v: 1, submessage }, wire: submessageWire(submessage) };
}
