/**
 * Folds of the `scheduled_messages` and `reminders` events into a register state (Zulip's
 * zerver/lib/events.py `apply_event`: add, replace or drop by id, the list kept by delivery time).
 */
type Json = Record<string, any>;

const byTime = (idKey: string) => (a: Json, b: Json) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a[idKey] - b[idKey];

/** Folds one `scheduled_messages` or `reminders` event; throws on an op it does not know. */
export function applyScheduledEvent(state: Json, event: Json): void {
  const [key, idKey, one] = event.type === 'reminders' ? ['reminders', 'reminder_id', 'reminder'] : ['scheduled_messages', 'scheduled_message_id', 'scheduled_message'];
  const list = state[key] as Json[] | undefined;
  if (list === undefined) return;
  if (event.op === 'add') list.push(...structuredClone(event[key] as Json[]));
  else if (event.op === 'update') {
    const i = list.findIndex((m) => m[idKey] === event[one][idKey]);
    if (i < 0) throw new Error(`applyEvent: ${key} update of unknown ${event[one][idKey]}`);
    list[i] = structuredClone(event[one]);
  } else if (event.op === 'remove') {
    const i = list.findIndex((m) => m[idKey] === event[idKey]);
    if (i < 0) throw new Error(`applyEvent: ${key} remove of unknown ${event[idKey]}`);
    list.splice(i, 1);
  } else throw new Error(`applyEvent: no fold for ${key} ${JSON.stringify(event)}`);
  list.sort(byTime(idKey));
}
