/**
 * The live event stream of one event queue (https://zulip.com/api/real-time-events):
 * `POST /json/register`, then events pushed over parley's WebSocket (`/json/events/socket`, the
 * protocol of `GET /api/v1/events/socket` in the README: `subscribe` with `last_event_id`, `ack`)
 * and, when the socket cannot be opened, Zulip's long-poll `GET /json/events`.
 *
 * No loss, no duplicates: every event id is handed to `onEvents` once, in order; a reconnect
 * (socket or poll) resumes from the highest id processed, and the server re-sends what was not
 * acknowledged. When the queue is gone (`BAD_EVENT_QUEUE_ID`: expired while the laptop slept)
 * the stream registers again and calls `onReset` with the fresh state, as Zulip's web app
 * reloads its data (`web/src/server_events.ts`).
 */
import { api, ApiError } from './api.js';
import type { RegisterResponse, ServerEvent } from './types.js';

/** What the stream reports. */
export interface EventStreamHandlers {
  /** A fresh register answer: at start and after the queue was lost. */
  onReset(state: RegisterResponse): void;
  /** New events, ids increasing, each delivered once. */
  onEvents(events: ServerEvent[]): void;
  /** Transport state for the UI. */
  onStatus(status: 'connecting' | 'live' | 'polling' | 'offline'): void;
}

/** Register parameters (https://zulip.com/api/register-queue). */
const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  include_subscribers: false,
  client_capabilities: { notification_settings_null: true, user_settings_object: true, bulk_message_deletion: true },
};

/** Sockets closed before subscribing, in a row, after which the stream long-polls instead. */
const DEAD_SOCKETS_BEFORE_POLLING = 2;

/** Retry delays after failures (ms), capped at the last. */
const BACKOFF_MS = [500, 1000, 2000, 5000, 10000];

export class EventStream {
  queueId = '';
  /** Highest event id handed to `onEvents` (−1 right after register). */
  lastEventId = -1;
  private socket: WebSocket | null = null;
  /** The socket route refused us (no upgrade, or sockets that die before subscribing): long-poll from now on. */
  private socketUnavailable = false;
  /** Sockets in a row that closed before the server confirmed the subscription. */
  private deadSockets = 0;
  private failures = 0;
  private stopped = false;
  private poll: AbortController | null = null;

  constructor(private readonly handlers: EventStreamHandlers) {}

  /** Registers a queue and starts delivering events. Rejects only when the first register fails. */
  async start(): Promise<RegisterResponse> {
    const state = await this.register();
    this.connect();
    return state;
  }

  /** Stops for good (logout, page hide): closes the socket, aborts the poll. */
  stop(): void {
    this.stopped = true;
    this.socket?.close(1000, 'bye');
    this.poll?.abort();
  }

  /** Opens the socket again now (tests, and the browser's `online` event). */
  reconnect(): void {
    this.socket?.close(4000, 'reconnect');
  }

  private async register(): Promise<RegisterResponse> {
    const state = await api<RegisterResponse>('POST', 'register', REGISTER_PARAMS);
    this.queueId = state.queue_id;
    this.lastEventId = state.last_event_id;
    return state;
  }

  /** Hands new events on, skipping any id already seen. */
  private deliver(events: ServerEvent[]): void {
    const fresh = events.filter((e) => e.id > this.lastEventId);
    if (fresh.length === 0) return;
    this.lastEventId = fresh[fresh.length - 1]!.id;
    this.handlers.onEvents(fresh.filter((e) => e.type !== 'heartbeat'));
  }

  private connect(): void {
    if (this.stopped) return;
    if (this.socketUnavailable) {
      void this.pollLoop();
      return;
    }
    this.handlers.onStatus('connecting');
    const url = new URL('/json/events/socket', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url);
    this.socket = socket;
    let opened = false;
    let subscribed = false;
    let queueLost = false;
    socket.onopen = () => {
      opened = true;
      socket.send(JSON.stringify({ op: 'subscribe', queue_id: this.queueId, last_event_id: this.lastEventId }));
    };
    socket.onmessage = (frame) => {
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(String(frame.data)) as Record<string, unknown>;
      } catch {
        return;
      }
      if (data['type'] === 'subscribed') {
        subscribed = true;
        this.failures = 0;
        this.deadSockets = 0;
        this.handlers.onStatus('live');
      } else if (data['type'] === 'events' && Array.isArray(data['events'])) {
        this.deliver(data['events'] as ServerEvent[]);
        socket.send(JSON.stringify({ op: 'ack', last_event_id: this.lastEventId }));
      } else if (data['result'] === 'error' && data['code'] === 'BAD_EVENT_QUEUE_ID') {
        queueLost = true;
      }
    };
    socket.onclose = () => {
      if (this.socket === socket) this.socket = null;
      if (this.stopped) return;
      if (!subscribed && !queueLost) this.deadSockets += 1;
      if (!opened || this.deadSockets >= DEAD_SOCKETS_BEFORE_POLLING) {
        // The upgrade was refused, or sockets keep dying before they carry anything (a proxy
        // without WebSocket support): Zulip's long-poll works everywhere.
        this.socketUnavailable = true;
        void this.pollLoop();
        return;
      }
      if (queueLost) void this.reregister();
      else this.retryLater(() => this.connect());
    };
  }

  private retryLater(fn: () => void): void {
    this.handlers.onStatus('offline');
    const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]!;
    this.failures += 1;
    setTimeout(fn, delay);
  }

  private async reregister(): Promise<void> {
    if (this.stopped) return;
    try {
      const state = await this.register();
      this.failures = 0;
      this.handlers.onReset(state);
      this.connect();
    } catch {
      this.retryLater(() => void this.reregister());
    }
  }

  /** Long-polls `GET /json/events` until stopped; a lost queue re-registers. */
  private async pollLoop(): Promise<void> {
    this.handlers.onStatus('polling');
    while (!this.stopped) {
      this.poll = new AbortController();
      try {
        const answer = await api<{ events: ServerEvent[] }>(
          'GET',
          'events',
          { queue_id: this.queueId, last_event_id: this.lastEventId },
          { signal: this.poll.signal },
        );
        this.failures = 0;
        this.handlers.onStatus('polling');
        this.deliver(answer.events);
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof ApiError && error.code === 'BAD_EVENT_QUEUE_ID') {
          void this.reregister();
          return;
        }
        this.retryLater(() => void this.pollLoop());
        return;
      }
    }
  }
}
