/**
 * typebox schemas of the `scheduled_messages` and `reminders` events
 * (https://zulip.com/api/get-events#scheduled_messages-add, #reminders-add; Zulip's
 * zerver/lib/event_types.py `ScheduledMessagesAddEvent`, `ScheduledMessagesUpdateEvent`,
 * `ScheduledMessagesRemoveEvent`, `RemindersAddEvent`, and zerver/lib/reminders.py
 * `notify_remove_reminder`), sent to the scheduling user only. The objects are the ones
 * `/register` lists (`register/schemas.ts`).
 */
import Type from 'typebox';
import { Bool, Int, IntList, Str, strict } from './register/schema-helpers.js';

/**
 * A scheduled message (Zulip's `ScheduledMessage.to_dict`): `to` is the channel id for `stream`
 * (with `topic`), the other participants' ids for `private` (no `topic`).
 */
export const ScheduledMessageObject = Type.Union([
  Type.Object(
    {
      scheduled_message_id: Int(), type: Type.Literal('stream'), to: Int(), topic: Str(), content: Str(),
      rendered_content: Str(), scheduled_delivery_timestamp: Int(), failed: Bool(),
    },
    strict,
  ),
  Type.Object(
    {
      scheduled_message_id: Int(), type: Type.Literal('private'), to: IntList(), content: Str(),
      rendered_content: Str(), scheduled_delivery_timestamp: Int(), failed: Bool(),
    },
    strict,
  ),
]);

/** A reminder (Zulip's `ScheduledMessage.to_reminder_dict`): always a direct message to oneself. */
export const ReminderObject = Type.Object(
  {
    reminder_id: Int(), type: Type.Literal('private'), to: IntList(), content: Str(), rendered_content: Str(),
    scheduled_delivery_timestamp: Int(), failed: Bool(), reminder_target_message_id: Int(),
  },
  strict,
);

/** `scheduled_messages`: op `add` (the new ones), `update` (the whole edited one), `remove` (its id: sent, or deleted). */
export const ScheduledMessagesEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('scheduled_messages'), op: Type.Literal('add'), scheduled_messages: Type.Array(ScheduledMessageObject) }, strict),
  Type.Object({ id: Int(), type: Type.Literal('scheduled_messages'), op: Type.Literal('update'), scheduled_message: ScheduledMessageObject }, strict),
  Type.Object({ id: Int(), type: Type.Literal('scheduled_messages'), op: Type.Literal('remove'), scheduled_message_id: Int() }, strict),
]);

/** `reminders`: op `add` (the new ones), `remove` (its id: sent, or deleted). */
export const RemindersEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('reminders'), op: Type.Literal('add'), reminders: Type.Array(ReminderObject) }, strict),
  Type.Object({ id: Int(), type: Type.Literal('reminders'), op: Type.Literal('remove'), reminder_id: Int() }, strict),
]);
