/**
 * All event queues of the server (https://zulip.com/api/real-time-events): creation at `POST
 * /register`, lookup by
 * `queue_id`, routing of realm events to the queues of the users allowed to see them, long-polls
 * with heartbeats, and garbage collection of idle queues (600 s, as Zulip).
 *
 * Consistency with `/register`: a queue is created with the realm's current command sequence
 * number; event batches of commands at or below it are skipped, because their effects are already
 * in the state the register response was built from.
 */
import { randomBytes } from 'node:crypto';
import { EventQueue, type BacklogCounter, type QueueConsumer, type QueueSettings, type QueuedEvent } from './event-queue.js';
import { finalizeMessageEvent, type MessageVariants } from './message-event.js';
import type { RealmEvent } from './realm-event.js';
import { log } from '../log.js';

/** Timing knobs (seconds); tests shorten them. */
export interface EventQueueTiming {
  /** Idle time after which a queue with no attached client is deleted (Zulip: 600). */
  idleTimeoutSeconds: number;
  /** A long-poll with no events gets a heartbeat after this long (Zulip: 45, with jitter below). */
  heartbeatSeconds: number;
  /** Up to this many extra seconds of random jitter on each heartbeat. */
  heartbeatJitterSeconds: number;
  /** How often idle queues are looked for. */
  gcIntervalSeconds: number;
}

/**
 * Longest idle lifetime a client may ask for with `queue_lifespan_secs`: 7 days (Zulip's
 * `MAX_QUEUE_TIMEOUT_SECS`, zerver/tornado/event_queue.py `ClientDescriptor.__init__`).
 */
export const MAX_QUEUE_LIFESPAN_SECONDS = 7 * 24 * 3600;

/**
 * Most queues one user may hold (parley's bound; Zulip has none and relies on its idle timeout).
 * Registering one more drops the user's longest-idle queue first, so a client that re-registers
 * never fails; a dropped queue answers BAD_EVENT_QUEUE_ID and its client registers again.
 */
export const MAX_QUEUES_PER_USER = 50;

/**
 * Most events one user's queues may hold together (parley's bound; Zulip has none). Without it
 * one user could pin MAX_QUEUES_PER_USER × MAX_QUEUE_EVENTS (2,500,000) events. Past it the user's
 * longest-idle queues are dropped until the backlog fits again. It is at least twice one queue's
 * cap (`MAX_QUEUE_EVENTS`), so a client that polls (its queue the most recently active, its
 * backlog below one queue's cap) is never the one dropped.
 */
export const MAX_USER_BACKLOG_EVENTS = 100_000;

export const DEFAULT_TIMING: EventQueueTiming = {
  idleTimeoutSeconds: 600,
  heartbeatSeconds: 45,
  heartbeatJitterSeconds: 10,
  gcIntervalSeconds: 60,
};

/** The queue to drop first: no client attached, then least recent activity. */
function longestIdle(queues: ReadonlySet<EventQueue>): EventQueue {
  let pick: EventQueue | undefined;
  for (const q of queues) {
    if (pick === undefined || (pick.attached && !q.attached) || (pick.attached === q.attached && q.lastActivity < pick.lastActivity)) pick = q;
  }
  return pick!;
}

/** The outcome of a long-poll: events (possibly only a heartbeat), or null when the queue is gone. */
export type PollResult = QueuedEvent[] | null;

export class EventQueueManager {
  private readonly queues = new Map<string, EventQueue>();
  /** realm id → user id → that user's queues. */
  private readonly byUser = new Map<number, Map<number, Set<EventQueue>>>();
  /** realm id → queues registered with all_public_streams. */
  private readonly publicStreamQueues = new Map<number, Set<EventQueue>>();
  private readonly gcTimer: NodeJS.Timeout;
  private readonly prefix = randomBytes(4).toString('hex');
  private counter = 0;
  private stopped = false;

  /**
   * @param maxQueuesPerUser see `MAX_QUEUES_PER_USER`
   * @param now clock in milliseconds (injectable for tests)
   * @param maxUserBacklogEvents see `MAX_USER_BACKLOG_EVENTS`
   */
  constructor(
    readonly timing: EventQueueTiming = DEFAULT_TIMING,
    private readonly now: () => number = Date.now,
    private readonly maxQueuesPerUser: number = MAX_QUEUES_PER_USER,
    private readonly maxUserBacklogEvents: number = MAX_USER_BACKLOG_EVENTS,
  ) {
    this.gcTimer = setInterval(() => this.collectIdle(), timing.gcIntervalSeconds * 1000);
    this.gcTimer.unref();
  }

  /** Number of live queues. */
  get size(): number {
    return this.queues.size;
  }

  /** Live queues and how many have a client attached (a waiting long-poll or a socket); O(queues), for metrics. */
  stats(): { queues: number; consumers: number } {
    let consumers = 0;
    for (const queue of this.queues.values()) if (queue.attached) consumers++;
    return { queues: this.queues.size, consumers };
  }

  /**
   * Creates a queue for `userId` in `realmId`. `commandSeq`: the realm's sequence at register
   * time. When the user already holds `maxQueuesPerUser` queues, the one idle longest (a queue
   * with no client attached before one with a client) is deleted first.
   */
  register(realmId: number, userId: number, settings: QueueSettings, commandSeq: number): EventQueue {
    let users = this.byUser.get(realmId);
    if (users === undefined) this.byUser.set(realmId, (users = new Map()));
    let mine = users.get(userId);
    if (mine === undefined) users.set(userId, (mine = new Set()));
    while (mine.size >= this.maxQueuesPerUser) this.delete(longestIdle(mine));
    const id = `${this.prefix}:${++this.counter}`;
    // All of a user's queues share one backlog counter (it goes away with the last queue).
    const backlog: BacklogCounter = mine.values().next().value?.backlog ?? { events: 0 };
    const queue = new EventQueue(id, realmId, userId, settings, commandSeq + 1, this.now(), backlog);
    this.queues.set(id, queue);
    mine.add(queue);
    if (settings.allPublicStreams) {
      let set = this.publicStreamQueues.get(realmId);
      if (set === undefined) this.publicStreamQueues.set(realmId, (set = new Set()));
      set.add(queue);
    }
    return queue;
  }

  /** Whether `userId` of `realmId` holds any event queue (Zulip's `receiver_is_off_zulip`, negated). */
  hasQueues(realmId: number, userId: number): boolean {
    return (this.byUser.get(realmId)?.get(userId)?.size ?? 0) > 0;
  }

  /** The queue with this id if it belongs to `userId` of `realmId` (else undefined: no oracle). */
  get(queueId: string, realmId: number, userId: number): EventQueue | undefined {
    const queue = this.queues.get(queueId);
    return queue !== undefined && queue.realmId === realmId && queue.userId === userId ? queue : undefined;
  }

  /** Deletes a queue; an attached client is told. */
  delete(queue: EventQueue): void {
    if (!this.queues.delete(queue.id)) return;
    this.byUser.get(queue.realmId)?.get(queue.userId)?.delete(queue);
    this.publicStreamQueues.get(queue.realmId)?.delete(queue);
    queue.close();
  }

  /**
   * Routes one command's events to queues. `commandSeq` is the command's sequence number in its
   * realm; queues created after it was decided skip it.
   */
  publish(realmId: number, commandSeq: number, events: readonly RealmEvent[]): void {
    const users = this.byUser.get(realmId);
    if (users === undefined) return;
    for (const event of events) {
      const delivered = new Set<EventQueue>();
      const variants: MessageVariants = new Map();
      for (const userId of event.userIds) {
        const queues = users.get(userId);
        if (queues !== undefined) for (const q of queues) this.deliver(q, commandSeq, event, delivered, variants);
      }
      if (event.message?.publicStreamId !== undefined) {
        for (const q of this.publicStreamQueues.get(realmId) ?? []) this.deliver(q, commandSeq, event, delivered, variants);
      }
    }
  }

  private deliver(
    queue: EventQueue,
    commandSeq: number,
    event: RealmEvent,
    delivered: Set<EventQueue>,
    variants: MessageVariants,
  ): void {
    if (delivered.has(queue) || commandSeq < queue.minCommandSeq) return;
    delivered.add(queue);
    const type = event.payload.type as string;
    if (queue.settings.eventTypes !== null && !queue.settings.eventTypes.has(type)) return;
    if (event.capability !== undefined && (queue.settings.clientCapabilities[event.capability.name] === true) !== event.capability.has) return;
    // Zulip's `accepts_event`: clients that asked for `user_topic` do not get the legacy `muted_topics`.
    if (type === 'muted_topics' && queue.settings.eventTypes?.has('user_topic')) return;
    // Zulip's `accepts_event`: `realm_linkifiers` only for clients declaring `linkifier_url_template`.
    if (type === 'realm_linkifiers' && queue.settings.clientCapabilities.linkifier_url_template !== true) return;
    // Zulip's `accepts_event`: legacy settings events only for clients without `user_settings_object`.
    if ((type === 'update_display_settings' || type === 'update_global_notifications') && queue.settings.clientCapabilities.user_settings_object === true) return;
    let payload: Record<string, unknown> | null = type === 'message' ? finalizeMessageEvent(queue, event, variants) : event.payload;
    if (payload === null) return;
    // https://zulip.com/api/get-events: `slim_presence` queues get presence events without `email`.
    if (type === 'presence' && queue.settings.slimPresence) {
      const { email: _email, ...slim } = payload;
      payload = slim;
    }
    // Zulip's `process_deletion_event`: the empty topic's display name for clients without
    // `empty_topic_name`; one legacy `message_id` event per id without `bulk_message_deletion`.
    // Zulip: update_message topics of the empty topic as its display name for the same clients.
    if (type === 'update_message' && event.emptyTopicDisplayName !== undefined && queue.settings.clientCapabilities.empty_topic_name !== true) {
      payload = { ...payload };
      for (const key of ['orig_subject', 'subject']) if (payload[key] === '') payload[key] = event.emptyTopicDisplayName;
    }
    // Zulip's `process_user_topic_event`: the empty topic's display name for the same clients.
    if (type === 'user_topic' && payload.topic_name === '' && event.emptyTopicDisplayName !== undefined && queue.settings.clientCapabilities.empty_topic_name !== true) {
      payload = { ...payload, topic_name: event.emptyTopicDisplayName };
    }
    if (type === 'delete_message') {
      if (payload.topic === '' && event.emptyTopicDisplayName !== undefined && queue.settings.clientCapabilities.empty_topic_name !== true) {
        payload = { ...payload, topic: event.emptyTopicDisplayName };
      }
      if (queue.settings.clientCapabilities.bulk_message_deletion !== true) {
        const { message_ids: ids, ...rest } = payload;
        for (const messageId of ids as number[]) {
          if (!queue.push({ ...rest, message_id: messageId })) return this.dropOverflowed(queue);
        }
        this.boundUserBacklog(queue);
        return;
      }
    }
    if (!queue.push(payload)) return this.dropOverflowed(queue);
    this.boundUserBacklog(queue);
  }

  /** A queue past its own backlog limit is dropped (its client re-registers). */
  private dropOverflowed(queue: EventQueue): void {
    log.warn({ event: 'queue_dropped', queue_id: queue.id }, 'event queue dropped: more than its backlog limit of unacknowledged events');
    this.delete(queue);
  }

  /**
   * Keeps the backlog of `queue`'s owner within `maxUserBacklogEvents` by dropping the owner's
   * longest-idle queues (no client attached first, then least recent activity).
   */
  private boundUserBacklog(queue: EventQueue): void {
    const backlog = queue.backlog;
    if (backlog.events <= this.maxUserBacklogEvents) return;
    const mine = this.byUser.get(queue.realmId)?.get(queue.userId);
    if (mine === undefined) return;
    let dropped = 0;
    while (backlog.events > this.maxUserBacklogEvents && mine.size > 0) {
      this.delete(longestIdle(mine));
      dropped++;
    }
    log.warn(
      { event: 'queue_dropped', realm_id: queue.realmId, user_id: queue.userId, dropped, backlog: backlog.events },
      "event queues dropped: the user's queues together held more than their backlog limit of unacknowledged events",
    );
  }

  /**
   * Zulip's `GET /events` on a queue: acknowledges `lastEventId`, then returns the events after it
   * at once if there are any (or if `dontBlock`), else waits for the next event or a heartbeat.
   * `onAbort` registers a callback for a client that goes away mid-poll (nothing is kept then).
   */
  poll(queue: EventQueue, lastEventId: number, dontBlock: boolean, onAbort: (cb: () => void) => void): Promise<PollResult> {
    queue.acknowledge(lastEventId, this.now());
    const ready = queue.eventsAfter(lastEventId);
    if (ready.length > 0 || dontBlock || this.stopped) return Promise.resolve(ready);
    return new Promise((resolve) => {
      let done = false;
      const finish = (result: PollResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        queue.detach(consumer, this.now());
        resolve(result);
      };
      const consumer: QueueConsumer = {
        deliver: (events) => finish([...events]),
        evicted: (deleted) => finish(deleted ? null : []),
      };
      const jitter = Math.random() * this.timing.heartbeatJitterSeconds;
      const timer = setTimeout(() => queue.push({ type: 'heartbeat' }), (this.timing.heartbeatSeconds + jitter) * 1000);
      queue.attach(consumer, this.now());
      onAbort(() => finish([]));
    });
  }

  /** A queue's idle lifetime, seconds: what it asked for at register, else the server's default. */
  idleTimeoutSeconds(queue: EventQueue): number {
    return queue.settings.idleTimeoutSeconds ?? this.timing.idleTimeoutSeconds;
  }

  /** Deletes queues idle (no client attached) for longer than their idle timeout. */
  collectIdle(): number {
    const now = this.now();
    let removed = 0;
    for (const queue of this.queues.values()) {
      const lifespan = this.idleTimeoutSeconds(queue);
      if (!queue.attached && queue.lastActivity < now - lifespan * 1000) {
        this.delete(queue);
        removed++;
      }
    }
    return removed;
  }

  /** Answers every waiting long-poll (so HTTP shutdown is not held up) and stops the GC timer. */
  shutdown(): void {
    this.stopped = true;
    clearInterval(this.gcTimer);
    for (const queue of this.queues.values()) if (queue.attached) queue.push({ type: 'heartbeat' });
  }
}
