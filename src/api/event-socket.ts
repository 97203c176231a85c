/**
 * WebSocket push of event queues — `GET /api/v1/events/socket`, a parley extension beyond Zulip.
 * This module is the protocol; `http/websocket.ts` only adapts uWS to it, so everything here is
 * unit-testable with a fake socket.
 *
 * A client registers a queue with `POST /register` as usual, then opens a WebSocket (same HTTP
 * Basic `email:api_key` credentials, realm from `Host`) and subscribes to its queue instead of
 * long-polling `GET /events`. The events it receives are exactly the objects `GET /events` would
 * return, with the same queue-local ids.
 *
 * Frames are JSON text. Client → server:
 * - `{"op":"subscribe","queue_id":"…","last_event_id":N}`: N = the highest event id the client has
 *   processed (-1 right after register). Acknowledges (prunes) events ≤ N like `GET /events`,
 *   attaches the socket as the queue's consumer (evicting a waiting long-poll or another socket),
 *   answers `{"result":"success","msg":"","type":"subscribed","queue_id":"…","last_event_id":M}`
 *   (M = the queue's newest event id) and then sends every held event after N. Subscribing again
 *   (same or another queue) replaces the subscription.
 * - `{"op":"ack","last_event_id":N}`: acknowledges and prunes events ≤ N (exactly like
 *   `GET /events`'s `last_event_id`). No reply. Events are never pruned before they are
 *   acknowledged, so an event sent just before a disconnect is sent again after a resume.
 * - `{"op":"ping"}` → `{"type":"pong"}`.
 *
 * Server → client:
 * - `{"result":"success","msg":"","type":"events","queue_id":"…","events":[…]}`: one or more
 *   events, in id order, never repeated on the same socket unless the client re-subscribes
 *   with an older id.
 * - Zulip error objects `{"result":"error","code":…,"msg":…,…}`. A request error (malformed JSON,
 *   unknown op, bad argument, `ack` before `subscribe`) leaves the socket open. When the
 *   subscription ends the socket is closed right after the error (close code 1000, reason = the
 *   error code): `BAD_EVENT_QUEUE_ID` (`"msg":"Bad event queue ID: <id>","queue_id":"<id>"`) for an
 *   unknown, foreign, expired, deleted or overflowed queue (re-register), or `BAD_REQUEST` with
 *   `queue_id` when another client (a long-poll or socket) took the queue over.
 *
 * Backpressure: before each frame the session checks the socket's buffered byte count; above
 * `thresholdBytes` (default 1 MiB) it stops sending and remembers it is behind, events stay in
 * the queue only. When the socket drains below half the threshold it sends everything after the
 * last id sent. Memory per slow client is therefore bounded by the queue's own backlog cap
 * (`MAX_QUEUE_EVENTS`; past it the queue is dropped and the socket gets BAD_EVENT_QUEUE_ID),
 * plus about one threshold of socket buffer — never an unbounded send buffer.
 */
import { Errors, ZulipError } from '../errors.js';
import { parseBasicAuth } from '../auth/basic-auth.js';
import type { EventQueue, QueueConsumer, QueuedEvent } from '../events/event-queue.js';
import type { EventQueueManager } from '../events/event-queues.js';
import { eventJson } from '../events/event-json.js';
import { decodeParams, P, type ParamPairs } from './params.js';
import type { ApiServices, Authenticated } from './registry.js';
import { sessionFromCookie } from './session-auth.js';
import { checkOrigin } from '../auth/sessions.js';

/** URL path of the socket route. */
export const EVENT_SOCKET_PATH = '/api/v1/events/socket';
/** The same route for the browser app (session cookie; see `authorizeSocket`). */
export const JSON_EVENT_SOCKET_PATH = '/json/events/socket';

/** Default socket buffer size (bytes) above which the server stops sending events: 1 MiB. */
export const DEFAULT_BACKPRESSURE_THRESHOLD_BYTES = 1024 * 1024;

/**
 * Soft cap of one events frame (UTF-16 code units of its JSON, ≈ bytes for ASCII): 256 KiB. A
 * backlog is split into frames of about this size; a single larger event still goes out whole.
 */
export const DEFAULT_MAX_FRAME_CHARS = 256 * 1024;

/** WebSocket close codes used by the route. */
export const CloseCode = {
  /** The subscription ended (see the error frame sent just before). */
  normal: 1000,
  /** The server is shutting down. */
  goingAway: 1001,
} as const;

/**
 * The socket as the session sees it; `http/websocket.ts` implements it over a uWS WebSocket,
 * tests with a fake. Calls are never made after `EventSocketSession.closed()`.
 */
export interface SocketTransport {
  /** Queues one text frame. Returns false when the socket dropped it (its hard buffer limit). */
  send(text: string): boolean;
  /** Bytes written but not yet accepted by the kernel (uWS `getBufferedAmount()`). */
  bufferedAmount(): number;
  /**
   * Closes gracefully with a close frame (`code`, short `reason`). May synchronously lead to
   * `EventSocketSession.closed()` (uWS calls its close handler immediately).
   */
  end(code: number, reason: string): void;
  /** Runs `fn` with the socket corked (many frames, one syscall). Optional. */
  cork?(fn: () => void): void;
}

/** An accepted upgrade request: who connects, and an optional immediate subscription. */
export interface SocketGrant {
  readonly realmId: number;
  readonly userId: number;
  /** From `?queue_id=…&last_event_id=N`; null when the URL has no `queue_id`. */
  readonly subscribe: { readonly queueId: string; readonly lastEventId: number } | null;
}

/** What the upgrade request carries (copied out of uWS). */
export interface SocketUpgradeRequest {
  /** The `Host` header, lower-case ('' when absent). */
  readonly host: string;
  /** The `Authorization` header; undefined when absent. */
  readonly authorization: string | undefined;
  /** The `Cookie` header; undefined when absent. */
  readonly cookie?: string | undefined;
  /** The `Origin` header (browsers always send it on a WebSocket handshake); undefined when absent. */
  readonly origin?: string | undefined;
  /** The request's scheme per trusted proxies (absent = http), for the origin check. */
  readonly scheme?: 'http' | 'https';
  /** Query string pairs of the URL. */
  readonly query: ParamPairs;
}

const queryParams = { queue_id: P.string(), last_event_id: P.int() };

/**
 * Checks an upgrade request before the server upgrades it: Basic credentials against
 * `services` exactly as the REST API does (missing → 401 "Not logged in…", bad → 401 with
 * `WWW-Authenticate`), or, without an `Authorization` header, the browser's session cookie
 * (`session-auth.ts`; no session → 401 with the session challenge) from a page of the realm's own
 * origin or the one it was sent to (another `Origin` → 403 CSRF_FAILED: a WebSocket handshake carries no CSRF token, so the
 * origin is what stops cross-site socket hijacking), then the optional `queue_id`/`last_event_id` query parameters (both or
 * neither; the queue must exist and belong to the user, else BAD_EVENT_QUEUE_ID).
 * Returns the grant, or the error to answer the HTTP request with (no upgrade).
 */
export function authorizeSocket(
  services: ApiServices,
  queues: EventQueueManager,
  req: SocketUpgradeRequest,
): SocketGrant | ZulipError {
  const authenticated = req.authorization === undefined && req.cookie !== undefined ? bySession(services, req) : byApiKey(services, req);
  if (authenticated instanceof ZulipError) return authenticated;
  const { realm, user } = authenticated;
  let params: { queue_id?: string | undefined; last_event_id?: number | undefined };
  try {
    params = decodeParams(queryParams, [], req.query, 'req', new Set());
  } catch (error) {
    if (error instanceof ZulipError) return error;
    throw error;
  }
  if (params.queue_id === undefined && params.last_event_id === undefined) {
    return { realmId: realm.id, userId: user.id, subscribe: null };
  }
  if (params.queue_id === undefined) return Errors.badRequest("Missing 'queue_id' argument");
  if (params.last_event_id === undefined) return Errors.badRequest("Missing 'last_event_id' argument");
  if (queues.get(params.queue_id, realm.id, user.id) === undefined) return Errors.badEventQueueId(params.queue_id);
  return { realmId: realm.id, userId: user.id, subscribe: { queueId: params.queue_id, lastEventId: params.last_event_id } };
}

/** Basic `email:api_key` credentials, as the REST API checks them. */
function byApiKey(services: ApiServices, req: SocketUpgradeRequest): Authenticated | ZulipError {
  const credentials = parseBasicAuth(req.authorization);
  if (credentials === null) return Errors.notLoggedIn();
  if (credentials instanceof ZulipError) return credentials;
  return services.authenticate(services.realmForHost(req.host), credentials.email, credentials.apiKey);
}

/** The session cookie, from a page of the realm's origin. */
function bySession(services: ApiServices, req: SocketUpgradeRequest): Authenticated | ZulipError {
  const session = sessionFromCookie(services.realmForHost(req.host), { cookie: req.cookie ?? '' });
  if (session === null) return Errors.notLoggedInSession();
  if (session.realm.state.settings.deactivated) return Errors.realmDeactivated();
  const headers: Record<string, string> = { host: req.host };
  if (req.origin !== undefined) headers.origin = req.origin;
  return checkOrigin(headers, session.realm.url, req.scheme ?? 'http') ?? session;
}

/** Tuning of a session. */
export interface EventSocketSessionOptions {
  /** Stop sending events while the socket buffers more than this many bytes (default 1 MiB). */
  thresholdBytes?: number;
  /** Soft cap of one events frame, see `DEFAULT_MAX_FRAME_CHARS`. */
  maxFrameChars?: number;
  /** Clock for queue activity stamps (ms since epoch). */
  now?: () => number;
}

const PONG = '{"type":"pong"}';

/** Zulip's INVALID_JSON error for an unparsable frame. */
const malformedJson = () => new ZulipError('INVALID_JSON', 'Malformed JSON', 400);

/**
 * One open socket of one user. Feed it the socket's life: `receive(text)` per text frame,
 * `receiveBinary()` per binary frame, `drain()` when the socket's buffer shrank, `closed()` once
 * it is gone. It subscribes to at most one queue at a time, acting as that queue's consumer.
 */
export class EventSocketSession {
  private queue: EventQueue | null = null;
  private consumer: QueueConsumer | null = null;
  /** Highest event id handed to the socket (or acknowledged/claimed by the client). */
  private lastSentId = -1;
  /** The socket buffer was over the threshold: wait for `drain()`. */
  private behind = false;
  private ended = false;
  private readonly thresholdBytes: number;
  private readonly maxFrameChars: number;
  private readonly now: () => number;

  constructor(
    private readonly transport: SocketTransport,
    private readonly queues: EventQueueManager,
    readonly realmId: number,
    readonly userId: number,
    options: EventSocketSessionOptions = {},
  ) {
    this.thresholdBytes = options.thresholdBytes ?? DEFAULT_BACKPRESSURE_THRESHOLD_BYTES;
    this.maxFrameChars = options.maxFrameChars ?? DEFAULT_MAX_FRAME_CHARS;
    this.now = options.now ?? Date.now;
  }

  /** The subscribed queue's id, or null. */
  get queueId(): string | null {
    return this.queue?.id ?? null;
  }

  /** Whether sending is paused until `drain()` (socket buffer over the threshold). */
  get isBehind(): boolean {
    return this.behind;
  }

  /** Highest event id sent (or acknowledged) on this subscription; -1 before any. */
  get lastSent(): number {
    return this.lastSentId;
  }

  /** Handles one text frame from the client (see the module comment for the ops). */
  receive(text: string): void {
    if (this.ended) return;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return this.sendError(malformedJson());
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      return this.sendError(Errors.badRequest('Frame must be a JSON object'));
    }
    const body = frame as Record<string, unknown>;
    const op = body.op;
    if (op === undefined) return this.sendError(Errors.missingArgument('op'));
    if (typeof op !== 'string') return this.sendError(Errors.badRequest('op is not a string'));
    switch (op) {
      case 'ping':
        this.transport.send(PONG);
        return;
      case 'subscribe': {
        const queueId = body.queue_id;
        if (queueId === undefined) return this.sendError(Errors.missingArgument('queue_id'));
        if (typeof queueId !== 'string') return this.sendError(Errors.badRequest('queue_id is not a string'));
        const lastEventId = this.eventIdArgument(body);
        if (lastEventId instanceof ZulipError) return this.sendError(lastEventId);
        return this.subscribe(queueId, lastEventId);
      }
      case 'ack': {
        const lastEventId = this.eventIdArgument(body);
        if (lastEventId instanceof ZulipError) return this.sendError(lastEventId);
        return this.acknowledge(lastEventId);
      }
      default:
        return this.sendError(Errors.badRequest(`Unknown op '${op}'`));
    }
  }

  /** A binary frame: not part of the protocol; answered with an error, the socket stays open. */
  receiveBinary(): void {
    if (!this.ended) this.sendError(Errors.badRequest('Binary frames are not supported'));
  }

  /**
   * Subscribes to `queueId` (which must belong to this socket's user), acknowledging events
   * ≤ `lastEventId`, and sends the backlog after it. An unknown or foreign queue → error frame
   * BAD_EVENT_QUEUE_ID, then close.
   */
  subscribe(queueId: string, lastEventId: number): void {
    if (this.ended) return;
    this.unsubscribe();
    const queue = this.queues.get(queueId, this.realmId, this.userId);
    if (queue === undefined || queue.closed) return this.endWith(Errors.badEventQueueId(queueId));
    const now = this.now();
    queue.acknowledge(lastEventId, now);
    this.queue = queue;
    this.lastSentId = lastEventId;
    const consumer: QueueConsumer = {
      deliver: (events) => {
        if (this.consumer === consumer) this.deliver(events);
      },
      evicted: (deleted) => {
        if (this.consumer === consumer) this.evicted(deleted);
      },
    };
    this.consumer = consumer;
    queue.attach(consumer, now);
    this.transport.send(
      JSON.stringify({ result: 'success', msg: '', type: 'subscribed', queue_id: queue.id, last_event_id: queue.lastEventId }),
    );
    this.flush();
  }

  /** Acknowledges events ≤ `lastEventId` of the subscribed queue (prunes them). */
  acknowledge(lastEventId: number): void {
    if (this.ended) return;
    const queue = this.queue;
    if (queue === null) return this.sendError(Errors.badRequest('Not subscribed to an event queue'));
    queue.acknowledge(lastEventId, this.now());
    // Events the client acknowledged without receiving them are gone, as with GET /events.
    if (lastEventId > this.lastSentId) this.lastSentId = lastEventId;
  }

  /** The socket's buffer shrank (uWS `drain`): resume once it is below half the threshold. */
  drain(): void {
    if (this.ended || !this.behind) return;
    if (this.transport.bufferedAmount() > this.thresholdBytes / 2) return;
    this.behind = false;
    this.flush();
  }

  /** The socket is gone: detach from the queue (it lives on and expires when idle). Idempotent. */
  closed(): void {
    if (this.ended) return;
    this.ended = true;
    this.unsubscribe();
  }

  /** Server shutdown: close with 1001 "going away". */
  shutdown(): void {
    if (this.ended) return;
    this.transport.end(CloseCode.goingAway, 'server shutting down');
    this.closed();
  }

  private unsubscribe(): void {
    const queue = this.queue;
    const consumer = this.consumer;
    this.queue = null;
    this.consumer = null;
    this.lastSentId = -1;
    if (queue !== null && consumer !== null) queue.detach(consumer, this.now());
  }

  /** `last_event_id` of a frame: required, an integer. */
  private eventIdArgument(body: Record<string, unknown>): number | ZulipError {
    const value = body.last_event_id;
    if (value === undefined) return Errors.missingArgument('last_event_id');
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return Errors.badRequest('last_event_id is not an integer');
    return value;
  }

  /** New events pushed to the queue (queue consumer callback). */
  private deliver(events: readonly QueuedEvent[]): void {
    if (this.ended || this.behind || events.length === 0) return;
    // The usual case: the next event(s) in sequence. Anything else: resend from the queue.
    if (events[0]!.id === this.lastSentId + 1) this.corked(() => this.pump(events));
    else this.flush();
  }

  private evicted(deleted: boolean): void {
    const queueId = this.queue!.id;
    this.queue = null;
    this.consumer = null;
    if (deleted) this.endWith(Errors.badEventQueueId(queueId));
    else this.endWith(Errors.badRequest('Event queue was taken over by another client', { queue_id: queueId }));
  }

  /** Sends every held event after the last one sent (unless behind). */
  private flush(): void {
    const queue = this.queue;
    if (this.ended || this.behind || queue === null) return;
    const pending = queue.eventsAfter(this.lastSentId);
    if (pending.length > 0) this.corked(() => this.pump(pending));
  }

  /** Sends `events` (ids > lastSentId only) in frames, stopping when the socket is over the threshold. */
  private pump(events: readonly QueuedEvent[]): void {
    const queue = this.queue!;
    const prefix = `{"result":"success","msg":"","type":"events","queue_id":${JSON.stringify(queue.id)},"events":[`;
    let i = 0;
    while (i < events.length && events[i]!.id <= this.lastSentId) i++;
    while (i < events.length) {
      if (this.transport.bufferedAmount() > this.thresholdBytes) {
        this.behind = true;
        return;
      }
      const parts: string[] = [];
      let chars = prefix.length;
      let j = i;
      do {
        const json = eventJson(events[j]!);
        parts.push(json);
        chars += json.length + 1;
        j++;
      } while (j < events.length && chars < this.maxFrameChars);
      if (!this.transport.send(prefix + parts.join(',') + ']}')) {
        this.behind = true; // dropped by the socket: resend from the queue on drain
        return;
      }
      this.lastSentId = events[j - 1]!.id;
      i = j;
      if (this.ended || this.queue !== queue) return;
    }
  }

  private corked(fn: () => void): void {
    if (this.transport.cork !== undefined) this.transport.cork(fn);
    else fn();
  }

  /** A request error: error frame, socket stays open. */
  private sendError(error: ZulipError): void {
    this.transport.send(JSON.stringify(error.toBody()));
  }

  /** The subscription cannot go on: error frame, then close (1000, reason = error code). */
  private endWith(error: ZulipError): void {
    if (this.ended) return;
    this.unsubscribe();
    this.sendError(error);
    this.transport.end(CloseCode.normal, error.code);
    this.closed();
  }
}
