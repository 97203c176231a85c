/**
 * Queued events as JSON for `GET /events` and the event socket. A `message` event's message object
 * is shared by every queue that receives the same variant (message-event.ts), so its JSON is
 * computed once per object and reused: a message to a channel with N listening clients is
 * serialized once per variant, not N times. Shared message objects are never mutated after
 * publishing (message-event.ts), which is what makes caching by identity sound.
 */
import type { QueuedEvent } from './event-queue.js';

/** JSON of shared message objects, by identity (dropped with the object). */
const messageJson = new WeakMap<object, string>();

/** `JSON.stringify(event)`, with a message event's shared message object serialized once. */
export function eventJson(event: QueuedEvent): string {
  const message = event.message;
  if (event.type !== 'message' || typeof message !== 'object' || message === null) return JSON.stringify(event);
  let json = messageJson.get(message);
  if (json === undefined) messageJson.set(message, (json = JSON.stringify(message)));
  let out = '';
  for (const key in event) {
    const value = key === 'message' ? json : JSON.stringify(event[key]);
    if (value === undefined) continue; // as JSON.stringify: undefined and functions are left out
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${value}`;
  }
  return `${out}}`;
}

/** A JSON array of `events`. */
export function eventsJson(events: readonly QueuedEvent[]): string {
  let out = '';
  for (const event of events) out += (out === '' ? '[' : ',') + eventJson(event);
  return out === '' ? '[]' : `${out}]`;
}
