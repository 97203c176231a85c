/**
 * The uWebSockets.js HTTP server (src/README.md: request path). The only module that starts uWS.
 *
 * Per request: register `onAborted` first, copy the request head synchronously, read the body
 * (bounded), parse it, call `dispatch`, write the reply corked — unless the client went away.
 * Paths outside `/api/v1/` are a JSON 404 without dispatching.
 */
// Must come before uWebSockets.js: it sets the environment the native module reads on load.
import './uws-env.js';
import {
  App,
  us_listen_socket_close,
  us_socket_local_port,
  type HttpResponse,
  type HttpRequest,
  type us_listen_socket,
} from 'uWebSockets.js';
import { Errors, ZulipError } from '../errors.js';
import { API_PREFIX, errorResponse, type ApiRequest, type ApiResponse } from '../api/registry.js';
import {
  copyRequestHead,
  DEFAULT_MAX_BODY_BYTES,
  readBody,
  RequestAborted,
  toApiRequest,
  type ResponseState,
} from './request.js';
import { NEVER_CACHE, statusLine, writeResponse } from './response.js';
import { attachEventSocket, type EventSocketOptions } from './websocket.js';
import type { TrustedProxies } from './client-ip.js';

/** Options for `startHttpServer`. */
export interface HttpServerOptions {
  /** Interface to bind, e.g. `127.0.0.1` or `0.0.0.0`. */
  host: string;
  /** TCP port; 0 picks a free one (see the returned `port`). */
  port: number;
  /** Answers one request. May throw/reject: a ZulipError is sent as is, anything else → 500. */
  dispatch: (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;
  /** Request body limit in bytes (default 5 MiB); larger → 413. */
  maxBodyBytes?: number;
  /** Proxies whose `X-Forwarded-For`/`-Proto` are believed (`--trusted-proxies`); default none. */
  trustedProxies?: TrustedProxies;
  /** Serve `GET /api/v1/bench/ceiling` directly from uWS (benchmark throughput ceiling). */
  benchCeiling?: boolean;
  /** Serve WebSocket event push at `GET /api/v1/events/socket` (see `websocket.ts`). */
  socket?: EventSocketOptions;
  /** Serves `GET`/`POST /join/{key}/` (invitation links, `api/join.ts`): an HTML answer written verbatim. */
  join?: { matches(path: string): boolean; handle(req: ApiRequest): Promise<{ status: number; headers: Record<string, string>; body: string }> };
}

/** A running server. */
export interface HttpServer {
  /** The port actually bound. */
  readonly port: number;
  /**
   * Stops accepting connections, answers requests that arrive meanwhile on open keep-alive
   * connections with 503 SERVER_NOT_READY, waits until every in-flight request is answered (or
   * aborted), then closes the remaining idle connections. Open event sockets are closed at once
   * with 1001 (going away). Idempotent.
   */
  close(): Promise<void>;
}

/** The body of the bench ceiling route (the cheapest possible success answer). */
export const BENCH_CEILING_BODY = '{"result":"success","msg":""}\n';

/**
 * Starts the HTTP server and resolves once it listens. Rejects if it cannot bind `host:port`.
 */
export function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const dispatch = opts.dispatch;
  const app = App();
  let inFlight = 0;
  let closing: Promise<void> | null = null;
  let drained: (() => void) | null = null;

  const finish = (state: ResponseState & { counted: boolean }) => {
    if (!state.counted) return;
    state.counted = false;
    inFlight--;
    if (inFlight === 0 && drained !== null) drained();
  };

  const handle = (res: HttpResponse, req: HttpRequest): void => {
    const state: ResponseState & { counted: boolean } = { aborted: false, done: false, onAbort: null, counted: true };
    /** Handlers' abort callbacks (long-polls), run when the client goes away. */
    let abortListeners: Array<() => void> | null = null;
    inFlight++;
    res.onAborted(() => {
      state.aborted = true;
      const onAbort = state.onAbort;
      state.onAbort = null;
      if (onAbort !== null) onAbort();
      if (abortListeners !== null) for (const listener of abortListeners) listener();
      abortListeners = null;
      finish(state);
    });
    const onClientAbort = (listener: () => void) => {
      if (state.aborted) listener();
      else (abortListeners ??= []).push(listener);
    };
    const head = copyRequestHead(res, req, opts.trustedProxies);
    const reply = (response: ApiResponse, closeConnection = false) => {
      writeResponse(res, state, response, head.method === 'HEAD', closeConnection);
      finish(state);
    };
    const fail = (error: unknown) => {
      if (error instanceof RequestAborted) return finish(state);
      if (error instanceof ZulipError) return reply(errorResponse(error), error.status === 413);
      console.error(`parley: unhandled error in ${head.method} ${head.path}:`, error);
      reply(errorResponse(Errors.internal()));
    };
    if (closing !== null) return reply(errorResponse(Errors.serverNotReady()), true);
    const join = opts.join;
    if (join !== undefined && join.matches(head.path)) {
      readBody(res, state, head.headers['content-length'], maxBodyBytes)
        .then((body) => {
          state.onAbort = null;
          return toApiRequest(head, body);
        })
        .then((req) => (state.aborted ? undefined : join.handle(req)))
        .then((page) => {
          if (page === undefined || state.aborted || state.done) return finish(state);
          state.done = true;
          res.cork(() => {
            res.writeStatus(statusLine(page.status)).writeHeader('Cache-Control', NEVER_CACHE);
            for (const name in page.headers) res.writeHeader(name, page.headers[name]!);
            res.end(head.method === 'HEAD' ? '' : page.body);
          });
          finish(state);
        }, fail);
      return;
    }
    if (!head.path.startsWith(API_PREFIX)) return reply(errorResponse(Errors.notFound()));

    readBody(res, state, head.headers['content-length'], maxBodyBytes)
      .then((body) => {
        state.onAbort = null;
        return toApiRequest(head, body, onClientAbort);
      })
      .then((apiRequest) => (state.aborted ? undefined : dispatch(apiRequest)))
      .then((response) => {
        if (response === undefined) return finish(state);
        reply(response);
      }, fail);
  };

  if (opts.benchCeiling === true) {
    app.get(`${API_PREFIX}bench/ceiling`, (res) => {
      res
        .writeStatus('200 OK')
        .writeHeader('Content-Type', 'application/json')
        .writeHeader('Cache-Control', NEVER_CACHE)
        .end(BENCH_CEILING_BODY);
    });
  }
  const sockets = opts.socket === undefined ? null : attachEventSocket(app, opts.socket, () => closing !== null);
  app.any('/*', handle);

  return new Promise((resolve, reject) => {
    // uWS's ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT (the enum is declared but not exported).
    const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
    // Exclusive: uWS's default listen sets SO_REUSEPORT, so a second server on a busy port would
    // "succeed" and the kernel would split connections between two processes and two stores.
    // The (host, port, options, cb) form exists at runtime but is missing from the typings.
    const listen = app.listen as unknown as (
      host: string,
      port: number,
      options: number,
      cb: (listenSocket: us_listen_socket | false) => void,
    ) => void;
    listen.call(app, opts.host, opts.port, LIBUS_LISTEN_EXCLUSIVE_PORT, (listenSocket) => {
      if (listenSocket === false) {
        app.close();
        reject(new Error(`cannot listen on ${opts.host}:${opts.port}`));
        return;
      }
      const port = us_socket_local_port(listenSocket);
      resolve({
        port,
        close() {
          closing ??= new Promise<void>((done) => {
            us_listen_socket_close(listenSocket);
            sockets?.closeAll(); // 1001 going away
            const end = () => {
              app.close();
              done();
            };
            if (inFlight === 0) end();
            else drained = end;
          });
          return closing;
        },
      });
    });
  });
}
