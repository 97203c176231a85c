/**
 * One client's event queue (https://zulip.com/api/real-time-events): events get increasing ids from 0,
 * are kept until acknowledged (`last_event_id` prunes), and are handed to at most one waiting
 * consumer at a time — a long-poll (`GET /events`) or a WebSocket subscription.
 *
 * Queues live in memory only, as in Zulip: after a restart clients get BAD_EVENT_QUEUE_ID and
 * re-register.
 */
import type { MessageFilter } from './narrow-filter.js';

/** A client event as delivered: the payload plus its queue-local `id`. */
export type QueuedEvent = Record<string, unknown> & { id: number };

/** What the client asked for at `POST /register` (only what delivery needs). */
export interface QueueSettings {
  /** Event types to deliver; null = all. `heartbeat` is always delivered. */
  eventTypes: ReadonlySet<string> | null;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  allPublicStreams: boolean;
  /** Message-event filter from the register `narrow`; null = every message. */
  narrow: MessageFilter;
  clientCapabilities: Readonly<Record<string, boolean>>;
  /** Idle time after which the queue is deleted (seconds); undefined = the server default (600). */
  idleTimeoutSeconds?: number;
}

/**
 * A consumer waiting for events: called at most once per wake-up with events after
 * `lastEventId`. A long-poll detaches itself after one delivery; a socket stays attached.
 */
export interface QueueConsumer {
  deliver(events: readonly QueuedEvent[]): void;
  /** Replaced by another consumer, or the queue was deleted/expired (deleted = true). */
  evicted(deleted: boolean): void;
}

/** Largest backlog kept for a queue nobody drains; past it the queue is dropped (client re-registers). */
export const MAX_QUEUE_EVENTS = 50_000;

/**
 * Events held by all of one user's queues together (`EventQueueManager` bounds it): every queue
 * of the user shares one counter and keeps it current on push, acknowledgement and close.
 */
export interface BacklogCounter {
  events: number;
}

/** An event as held in a queue: its id and the (shared, never mutated) payload. */
interface HeldEvent {
  readonly id: number;
  readonly payload: Record<string, unknown>;
}

/** The event as a client receives it: the payload's fields, then `id`. */
function delivered(held: HeldEvent): QueuedEvent {
  return { ...held.payload, id: held.id } as QueuedEvent;
}

export class EventQueue {
  /**
   * Held events as `{id, payload}` pairs, made into `QueuedEvent`s only when handed out: V8 keeps
   * `{...payload, id}` in dictionary mode (~350 bytes per event against ~50 for the pair), which
   * decides what an undrained queue costs.
   */
  private events: HeldEvent[] = [];
  private nextEventId = 0;
  private consumer: QueueConsumer | null = null;
  /** Last time a client polled, acknowledged, or was attached (ms since epoch). */
  lastActivity: number;
  /** Set when the queue is gone; further pushes are ignored. */
  closed = false;

  /**
   * @param id queue id sent to the client
   * @param minCommandSeq events of realm commands below this sequence number were already part
   *   of the register state and are not delivered (see `EventQueueManager.publish`)
   */
  constructor(
    readonly id: string,
    readonly realmId: number,
    readonly userId: number,
    readonly settings: QueueSettings,
    readonly minCommandSeq: number,
    now: number,
    /** The owner's counter across all their queues (a private one when not given). */
    readonly backlog: BacklogCounter = { events: 0 },
  ) {
    this.lastActivity = now;
  }

  /** Id the next event will get; `last_event_id` right after register is this minus one. */
  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  /** Number of events held (not yet acknowledged). */
  get size(): number {
    return this.events.length;
  }

  /** Whether a client is attached (a long-poll in flight or an open socket). */
  get attached(): boolean {
    return this.consumer !== null;
  }

  /** Appends an event (assigning its id) and wakes the consumer. Returns false when the backlog overflowed. */
  push(payload: Record<string, unknown>): boolean {
    if (this.closed) return true;
    const event: HeldEvent = { id: this.nextEventId++, payload };
    this.events.push(event);
    this.backlog.events++;
    if (this.events.length > MAX_QUEUE_EVENTS) return false;
    if (this.consumer !== null) this.consumer.deliver([delivered(event)]);
    return true;
  }

  /** Drops events with id ≤ `lastEventId` (Zulip's acknowledgement). */
  acknowledge(lastEventId: number, now: number): void {
    this.lastActivity = now;
    let i = 0;
    while (i < this.events.length && this.events[i]!.id <= lastEventId) i++;
    if (i > 0) {
      this.events.splice(0, i);
      this.backlog.events -= i;
    }
  }

  /** Events with id > `lastEventId`, in order. */
  eventsAfter(lastEventId: number): QueuedEvent[] {
    const after: QueuedEvent[] = [];
    for (const held of this.events) if (held.id > lastEventId) after.push(delivered(held));
    return after;
  }

  /** Attaches a consumer, evicting the previous one (Zulip: a newer poll replaces an older one). */
  attach(consumer: QueueConsumer, now: number): void {
    const previous = this.consumer;
    this.consumer = consumer;
    this.lastActivity = now;
    previous?.evicted(false);
  }

  /** Detaches `consumer` if it is the current one. */
  detach(consumer: QueueConsumer, now: number): void {
    if (this.consumer === consumer) {
      this.consumer = null;
      this.lastActivity = now;
    }
  }

  /** Closes the queue: the consumer is told, events are dropped. */
  close(): void {
    this.closed = true;
    this.backlog.events -= this.events.length;
    this.events = [];
    const consumer = this.consumer;
    this.consumer = null;
    consumer?.evicted(true);
  }
}
