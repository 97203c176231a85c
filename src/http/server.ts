/**
 * The uWebSockets.js HTTP server (see the README's "How it works"). The only module that starts uWS.
 *
 * Per request (server-request.ts): register `onAborted` first, copy the request head
 * synchronously, read the body (bounded), parse it, call `dispatch`, write the reply corked —
 * unless the client went away. Paths outside `/api/v1/` are a JSON 404 without dispatching.
 */
// Must come before uWebSockets.js: it sets the environment the native module reads on load.
import './uws-env.js';
import { App, us_listen_socket_close, us_socket_local_port } from 'uWebSockets.js';
import { API_PREFIX, type ApiRequest, type ApiResponse } from '../api/registry.js';
import { NEVER_CACHE } from './response.js';
import type { RawRoute } from '../api/raw-route.js';
import { DEFAULT_MAX_BODY_BYTES } from './request.js';
import { attachEventSocket, type EventSocketOptions } from './websocket.js';
import type { TrustedProxies } from './client-ip.js';
import type { MetricsEndpoint } from './metrics-endpoint.js';
import { listenExclusive } from './listen-exclusive.js';
import type { UploadRoute } from './multipart-upload.js';
import type { WebResponse } from '../api/html-page.js';
import type { StaticAssets } from './static-assets.js';
import { ServerRequest, type ServerScope } from './server-request.js';

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
  /**
   * Serves `GET`/`POST /join/{key}/` (invitation links, `api/join.ts`): an HTML answer written
   * verbatim.
   */
  join?: PageRoutes;
  /**
   * Serves the browser's pages (`api/web-pages.ts`: `/`, `/login/`, `/accounts/login/`,
   * `/accounts/logout/`): HTML answers with cookies, written verbatim.
   */
  pages?: PageRoutes;
  /** Serves the built browser app's files at `/static/<name>` (`static-assets.ts`); absent = 404. */
  assets?: StaticAssets;
  /**
   * Byte-serving routes outside `/api/v1` (avatars and emoji under `/user_avatars/`, the
   * `/thumbnail` redirect, the `/external_content/` image proxy): the first whose `matches` accepts
   * the path answers with its `RawAnswer` (a JSON `ApiResponse` for errors). Only GET and HEAD.
   */
  rawRoutes?: readonly RawRoute[];
  /** `GET /health` (Zulip's unauthenticated health endpoint): the answer to send. */
  health?: () => ApiResponse;
  /** `GET /metrics` on this port, guarded by a bearer token (`--metrics-token`); absent = 404. */
  metrics?: MetricsEndpoint;
  /** Called once per answered (or aborted: status 499) request, for the request log and metrics. */
  onAnswered?: (answer: AnsweredRequest) => void;
  /**
   * Upload routes (`POST /api/v1/user_uploads`): multipart bodies streamed to disk with their own
   * size limit instead of `maxBodyBytes` (see multipart-upload.ts).
   */
  upload?: UploadRoute;
  /** `GET /user_uploads/...` (files, outside `/api/v1`): answers that may stream a file. */
  userUploads?: { matches(path: string): boolean; handle(req: ApiRequest): Promise<ApiResponse> };
}

/** Non-JSON routes answered by the API layer with a page (`api/html-page.ts` `WebResponse`). */
export interface PageRoutes {
  /** Whether `path` is one of these routes. */
  matches(path: string): boolean;
  /** The answer; a rejection is answered like any dispatch failure (JSON error). */
  handle(req: ApiRequest): Promise<WebResponse>;
}

/** One finished request, as the request log and the metrics see it. */
export interface AnsweredRequest {
  readonly method: string;
  /** Route template (`/api/v1/messages/{message_id}`, `/health`, `/join/{key}/`) or `unmatched`. */
  readonly route: string;
  /** HTTP status sent; 499 when the client went away first (nginx's convention). */
  readonly status: number;
  /** Milliseconds from the request head to the answer. */
  readonly ms: number;
  /** Subdomain of the realm the Host selected ('' = root), null when none or not routed. */
  readonly realm: string | null;
  /** Authenticated user id, or null. */
  readonly userId: number | null;
  /** The client's address (the peer socket's; server-request.ts `clientAddress`). */
  readonly ip: string;
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
  const app = App();
  const scope: ServerScope = {
    opts,
    maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    inFlight: 0,
    drained: null,
    closing: false,
  };
  let closing: Promise<void> | null = null;

  if (opts.benchCeiling === true) {
    app.get(`${API_PREFIX}bench/ceiling`, (res) => {
      res
        .writeStatus('200 OK')
        .writeHeader('Content-Type', 'application/json')
        .writeHeader('Cache-Control', NEVER_CACHE)
        .end(BENCH_CEILING_BODY);
    });
  }
  const sockets = opts.socket === undefined ? null : attachEventSocket(app, opts.socket, () => scope.closing);
  app.any('/*', (res, req) => ServerRequest.handle(scope, res, req));

  return new Promise((resolve, reject) => {
    listenExclusive(app, opts.host, opts.port, (listenSocket) => {
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
            scope.closing = true;
            us_listen_socket_close(listenSocket);
            sockets?.closeAll(); // 1001 going away
            const end = () => {
              app.close();
              done();
            };
            if (scope.inFlight === 0) end();
            else scope.drained = end;
          });
          return closing;
        },
      });
    });
  });
}
