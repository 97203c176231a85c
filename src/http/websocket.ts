/**
 * The uWS routes of `GET /api/v1/events/socket` and `GET /json/events/socket` (WebSocket push of event queues, a parley
 * extension; the protocol is in `api/event-socket.ts`). This file only adapts uWS to it:
 *
 * - `upgrade`: copies Host, Authorization, Cookie, Origin, query and the `Sec-WebSocket-*` headers synchronously,
 *   runs `authorizeSocket`; a refusal is answered as an ordinary Zulip JSON error (e.g. 401 +
 *   `WWW-Authenticate`) and the connection is not upgraded. A GET without `Sec-WebSocket-Key`
 *   falls through to the REST dispatcher (uWS yields it).
 * - `open` / `message` / `drain` / `close` feed an `EventSocketSession`.
 * - Liveness: uWS closes a socket idle for `idleTimeoutSeconds` (default 120) and, with
 *   `sendPingsAutomatically`, pings before that, so only dead peers are dropped.
 * - Buffers: the session stops sending at `thresholdBytes` (1 MiB); uWS's hard limit
 *   `maxBackpressure` is twice that, so control frames to a client that stopped reading are
 *   dropped rather than buffered without bound. Client frames are at most 16 KiB.
 */
import type { HttpResponse, TemplatedApp, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import type { ApiServices } from '../api/registry.js';
import { errorResponse } from '../api/registry.js';
import {
  authorizeSocket,
  DEFAULT_BACKPRESSURE_THRESHOLD_BYTES,
  EVENT_SOCKET_PATH,
  JSON_EVENT_SOCKET_PATH,
  EventSocketSession,
  type SocketGrant,
} from '../api/event-socket.js';
import type { EventQueueManager } from '../events/event-queues.js';
import { Errors, ZulipError } from '../errors.js';
import { parseQuery, type ResponseState } from './request.js';
import { writeResponse } from './response.js';
import { log } from '../log.js';

/** What the socket route needs (`startHttpServer`'s `socket` option). */
export interface EventSocketOptions {
  /** Realm lookup and API-key check, the same as the REST dispatcher's. */
  services: ApiServices;
  /** The server's event queues. */
  queues: EventQueueManager;
  /** Seconds without traffic before uWS closes a socket (pings are sent automatically). Default 120. */
  idleTimeoutSeconds?: number;
  /** Socket buffer (bytes) above which events are held back until it drains. Default 1 MiB. */
  thresholdBytes?: number;
}

/** The mounted route. */
export interface EventSocketRoute {
  /** Number of open sockets. */
  readonly size: number;
  /** Closes every open socket with 1001 "going away" (server shutdown). */
  closeAll(): void;
}

interface SocketData {
  grant: SocketGrant;
  session: EventSocketSession | null;
  /** False once uWS closed the socket: it must not be touched any more. */
  alive: boolean;
}

/** Largest client frame accepted (bytes); the protocol's frames are tiny. */
const MAX_CLIENT_FRAME_BYTES = 16 * 1024;

const utf8 = new TextDecoder();

/**
 * Mounts the socket route on `app` (before the catch-all HTTP route). `isClosing` reports server
 * shutdown: upgrades are then refused with 503 SERVER_NOT_READY.
 */
export function attachEventSocket(app: TemplatedApp, opts: EventSocketOptions, isClosing: () => boolean): EventSocketRoute {
  const thresholdBytes = opts.thresholdBytes ?? DEFAULT_BACKPRESSURE_THRESHOLD_BYTES;
  const open = new Set<WebSocket<SocketData>>();

  const refuse = (res: HttpResponse, error: ZulipError) => {
    const state: ResponseState = { aborted: false, done: false, onAbort: null };
    writeResponse(res, state, errorResponse(error), false, true);
  };

  const behavior: WebSocketBehavior<SocketData> = {
    maxPayloadLength: MAX_CLIENT_FRAME_BYTES,
    idleTimeout: opts.idleTimeoutSeconds ?? 120,
    sendPingsAutomatically: true,
    maxBackpressure: 2 * thresholdBytes,
    closeOnBackpressureLimit: false,

    upgrade(res, req, context) {
      // Everything is synchronous: the request object is only valid during this call.
      const secKey = req.getHeader('sec-websocket-key');
      const protocols = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const authorization = req.getHeader('authorization');
      const cookie = req.getHeader('cookie');
      const origin = req.getHeader('origin');
      const host = req.getHeader('host').toLowerCase();
      const query = parseQuery(req.getQuery() ?? '');
      if (isClosing()) return refuse(res, Errors.serverNotReady());
      let grant: SocketGrant | ZulipError;
      try {
        grant = authorizeSocket(opts.services, opts.queues, {
          host,
          authorization: authorization === '' ? undefined : authorization,
          cookie: cookie === '' ? undefined : cookie,
          origin: origin === '' ? undefined : origin,
          query,
        });
      } catch (error) {
        log.error({ err: error }, 'unhandled error in the event socket upgrade');
        grant = Errors.internal();
      }
      if (grant instanceof ZulipError) return refuse(res, grant);
      // No subprotocol is defined; echo the first one offered so such clients still connect.
      const protocol = protocols.split(',')[0]!.trim();
      const data: SocketData = { grant, session: null, alive: true };
      res.upgrade(data, secKey, protocol, extensions, context);
    },

    open(ws) {
      const data = ws.getUserData();
      const session = new EventSocketSession(
        {
          // uWS send: 1 sent, 0 buffered (drains later), 2 dropped (over maxBackpressure).
          send: (text) => data.alive && ws.send(text) !== 2,
          bufferedAmount: () => (data.alive ? ws.getBufferedAmount() : 0),
          end: (code, reason) => {
            if (data.alive) ws.end(code, reason); // runs the close handler synchronously
          },
          cork: (fn) => {
            if (data.alive) ws.cork(fn);
          },
        },
        opts.queues,
        data.grant.realmId,
        data.grant.userId,
        { thresholdBytes },
      );
      data.session = session;
      open.add(ws);
      const sub = data.grant.subscribe;
      if (sub !== null) session.subscribe(sub.queueId, sub.lastEventId);
    },

    message(ws, message, isBinary) {
      const session = ws.getUserData().session;
      if (session === null) return;
      if (isBinary) session.receiveBinary();
      else session.receive(utf8.decode(message));
    },

    drain(ws) {
      ws.getUserData().session?.drain();
    },

    close(ws) {
      open.delete(ws);
      const data = ws.getUserData();
      data.alive = false;
      data.session?.closed();
    },
  };
  // The API clients' path and the browser app's (same protocol; the app authenticates by cookie).
  app.ws<SocketData>(EVENT_SOCKET_PATH, behavior);
  app.ws<SocketData>(JSON_EVENT_SOCKET_PATH, behavior);

  return {
    get size() {
      return open.size;
    },
    closeAll() {
      for (const ws of [...open]) ws.getUserData().session?.shutdown();
    },
  };
}
