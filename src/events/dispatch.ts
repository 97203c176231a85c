/**
 * Fan-out of client events once a command's records are durable (src/README.md: request path). Event queues
 * (`POST /register`, `GET /events`) subscribe here; the realm actor publishes in command order.
 */
import type { RealmEvent } from './realm-event.js';

/** Receives every realm's events, in order, with the sequence number of the command that made them. */
export type EventListener = (realmId: number, commandSeq: number, events: readonly RealmEvent[]) => void;

export class EventDispatcher {
  private readonly listeners = new Set<EventListener>();

  /** Adds a listener; returns a function that removes it. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers `events` to every listener; a throwing listener is logged and skipped. */
  publish(realmId: number, commandSeq: number, events: readonly RealmEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(realmId, commandSeq, events);
      } catch (error) {
        console.error('event listener failed', error);
      }
    }
  }
}
