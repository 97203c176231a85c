/**
 * The uWebSockets.js HTTP server (see the README's "How it works"). The only module that starts uWS.
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
} from 'uWebSockets.js';
import { Errors, ZulipError } from '../errors.js';
import { API_PREFIX, JSON_PREFIX, errorResponse, type ApiRequest, type ApiResponse, type RequestTrace } from '../api/registry.js';
import { isRawAnswer, type RawRoute } from '../api/raw-route.js';
import {
  copyRequestHead,
  DEFAULT_MAX_BODY_BYTES,
  apiRequestFromFields,
  buildApiRequest,
  readBody,
  RequestAborted,
  toApiRequest,
  type ResponseState,
} from './request.js';
import { NEVER_CACHE, statusLine, writeResponse } from './response.js';
import { attachEventSocket, type EventSocketOptions } from './websocket.js';
import type { TrustedProxies } from './client-ip.js';
import { serveMetrics, type MetricsEndpoint } from './metrics-endpoint.js';
import { log } from '../log.js';
import { listenExclusive } from './listen-exclusive.js';
import { isMultipart, readMultipartUpload, type UploadRoute } from './multipart-upload.js';
import { writeFileResponse } from './file-writer.js';
import type { WebResponse } from '../api/html-page.js';
import { IMMUTABLE_CACHE, STATIC_PREFIX, type StaticAssets } from './static-assets.js';

/** The first of `routes` whose `matches` accepts `path` (a loop: `find` needed a closure per request). */
function findRawRoute(routes: readonly RawRoute[] | undefined, path: string): RawRoute | undefined {
  if (routes === undefined) return undefined;
  for (const route of routes) if (route.matches(path)) return route;
  return undefined;
}

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
  /** The client's address (the peer socket's; see `clientAddress`). */
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

/**
 * The client's address for logs and metrics: the peer socket's for now (a trusted reverse proxy's
 * `X-Forwarded-For` is honoured by the external-URL work, issue 13 §1).
 */
function clientAddress(peer: string): string {
  return peer;
}

const EMPTY_BODY = Buffer.alloc(0);

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

  const onAnswered = opts.onAnswered;

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
    const started = onAnswered === undefined ? 0 : performance.now();
    const trace: RequestTrace = { route: 'unmatched', realm: null, userId: null };
    const answered = (status: number) => {
      if (onAnswered === undefined) return;
      onAnswered({
        method: head.method,
        route: trace.route,
        status: state.aborted ? 499 : status,
        ms: performance.now() - started,
        realm: trace.realm,
        userId: trace.userId,
        ip: clientAddress(head.remoteAddress),
      });
    };
    const reply = (response: ApiResponse, closeConnection = false) => {
      writeResponse(res, state, response, head.method === 'HEAD', closeConnection);
      answered(response.status);
      finish(state);
    };
    const fail = (error: unknown) => {
      if (error instanceof RequestAborted) {
        answered(499);
        return finish(state);
      }
      if (error instanceof ZulipError) return reply(errorResponse(error), error.status === 413);
      log.error({ err: error, method: head.method, path: head.path }, 'unhandled error');
      reply(errorResponse(Errors.internal()));
    };
    if (closing !== null) return reply(errorResponse(Errors.serverNotReady()), true);
    if (head.path === '/health' && opts.health !== undefined) {
      trace.route = '/health';
      return reply(opts.health());
    }
    if (head.path === '/metrics' && opts.metrics !== undefined) {
      trace.route = '/metrics';
      return serveMetrics(res, state, head, opts.metrics, (status) => {
        answered(status);
        finish(state);
      });
    }
    const join = opts.join;
    const pages = opts.pages;
    const pageRoute = join !== undefined && join.matches(head.path) ? join : pages !== undefined && pages.matches(head.path) ? pages : undefined;
    if (pageRoute !== undefined) {
      // Reads the body, lets the route answer with a page, writes it (headers, cookies, body) corked.
      // Inline rather than a helper closure: a closure here was allocated for every request.
      trace.route = pageRoute === join ? '/join/{key}/' : head.path;
      readBody(res, state, head.headers['content-length'], maxBodyBytes)
        .then((body) => {
          state.onAbort = null;
          return toApiRequest(head, body);
        })
        .then((req) => (state.aborted ? undefined : pageRoute.handle(req)))
        .then((page) => {
          if (page === undefined || state.aborted || state.done) {
            answered(499);
            return finish(state);
          }
          state.done = true;
          res.cork(() => {
            res.writeStatus(statusLine(page.status)).writeHeader('Cache-Control', NEVER_CACHE);
            for (const name in page.headers) res.writeHeader(name, page.headers[name]!);
            for (const cookie of page.cookies ?? []) res.writeHeader('Set-Cookie', cookie);
            res.end(head.method === 'HEAD' ? '' : page.body);
          });
          answered(page.status);
          finish(state);
        }, fail);
      return;
    }
    const raw = findRawRoute(opts.rawRoutes, head.path);
    // A raw route under /static/ (the emoji data file) wins over the built app's files.
    if (opts.assets !== undefined && head.path.startsWith(STATIC_PREFIX) && raw === undefined) {
      trace.route = '/static/{name}';
      return serveAsset(res, state, head.method, head.path, head.headers['accept-encoding'], opts.assets, (status) => {
        answered(status);
        finish(state);
      });
    }
    if (raw !== undefined) {
      trace.route = raw.name;
      if (head.method !== 'GET' && head.method !== 'HEAD') return reply(errorResponse(Errors.methodNotAllowed(['GET', 'HEAD'])));
      toApiRequest(head, EMPTY_BODY)
        .then((req) => (state.aborted ? undefined : raw.handle(req)))
        .then((answer) => {
          if (answer === undefined || state.aborted || state.done) {
            answered(499);
            return finish(state);
          }
          if (!isRawAnswer(answer)) return reply(answer);
          const bytes = answer;
          state.done = true;
          res.cork(() => {
            res.writeStatus(statusLine(bytes.status));
            for (const name in bytes.headers) res.writeHeader(name, bytes.headers[name]!);
            if (head.method === 'HEAD') {
              res.writeHeader('Content-Length', String(bytes.body.byteLength));
              res.endWithoutBody();
            } else {
              res.end(bytes.body);
            }
          });
          answered(bytes.status);
          finish(state);
        }, fail);
      return;
    }
    const userUploads = opts.userUploads;
    if (userUploads !== undefined && userUploads.matches(head.path)) {
      trace.route = '/user_uploads/{path}';
      readBody(res, state, head.headers['content-length'], maxBodyBytes)
        .then((body) => {
          state.onAbort = null;
          return toApiRequest(head, body, onClientAbort, trace);
        })
        .then((req) => (state.aborted ? undefined : userUploads.handle(req)))
        .then(async (response) => {
          if (response === undefined || state.aborted) {
            answered(499);
            return finish(state);
          }
          if (response.file === undefined) return reply(response);
          try {
            await writeFileResponse(res, state, response, head.method === 'HEAD');
          } catch (error) {
            if (!state.done) return fail(error);
          }
          answered(response.status);
          finish(state);
        })
        .catch(fail);
      return;
    }
    if (!head.path.startsWith(API_PREFIX) && !head.path.startsWith(JSON_PREFIX)) return reply(errorResponse(Errors.notFound()));
    const upload = opts.upload;
    // Streamed to disk only with credentials (API key or session cookie): an anonymous upload is
    // refused (401) after at most --max-body-bytes, never spooled.
    const credentials = head.headers.authorization !== undefined || head.headers.cookie !== undefined;
    const streamUpload = upload !== undefined && credentials && upload.matches(head.method, head.path);
    if (streamUpload && isMultipart(head.headers['content-type'])) {
      let files: readonly { discard(): Promise<void> }[] = [];
      readMultipartUpload(res, state, head, upload!)
        .then((parsed) => {
          files = parsed.files;
          const apiRequest = { ...apiRequestFromFields(head, parsed.fields, onClientAbort, trace), files: parsed.files };
          return state.aborted ? undefined : dispatch(apiRequest);
        })
        .then((response) => {
          if (response === undefined) {
            answered(499);
            return finish(state);
          }
          reply(response);
        }, (error: unknown) => {
          // The body may be unread (over-size, broken, disk full): answer and close the connection.
          if (error instanceof ZulipError) return reply(errorResponse(error), true);
          fail(error);
        })
        .finally(() => {
          for (const file of files) void file.discard();
        });
      return;
    }

    readBody(res, state, head.headers['content-length'], maxBodyBytes)
      .then((body) => {
        state.onAbort = null;
        // Urlencoded bodies (every send) parse synchronously: no promise in between.
        const apiRequest = buildApiRequest(head, body, onClientAbort, trace);
        if (apiRequest instanceof Promise) return apiRequest.then((parsed) => (state.aborted ? undefined : dispatch(parsed)));
        return state.aborted ? undefined : dispatch(apiRequest);
      })
      .then((response) => {
        if (response === undefined) {
          answered(499);
          return finish(state);
        }
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

/**
 * Answers `GET`/`HEAD /static/<name>` from the built app (`static-assets.ts`): the file with its
 * Content-Type, a year-long immutable cache and the best compression the client accepts
 * (`Content-Encoding`, `Vary: Accept-Encoding`); other methods 405; unknown files (or no built
 * app) a JSON 404. `done(status)` is called once written.
 */
function serveAsset(
  res: HttpResponse,
  state: ResponseState,
  method: string,
  path: string,
  acceptEncoding: string | undefined,
  assets: StaticAssets,
  done: (status: number) => void,
): void {
  if (method !== 'GET' && method !== 'HEAD') {
    const error = Errors.methodNotAllowed(['GET', 'HEAD']);
    writeResponse(res, state, { status: error.status, headers: { Allow: 'GET, HEAD' }, body: error.toBody() }, method === 'HEAD');
    return done(error.status);
  }
  const file = assets.asset(path, acceptEncoding);
  if (file === null) {
    writeResponse(res, state, errorResponse(Errors.notFound()), method === 'HEAD');
    return done(404);
  }
  state.done = true;
  res.cork(() => {
    res.writeStatus('200 OK').writeHeader('Content-Type', file.contentType).writeHeader('Cache-Control', IMMUTABLE_CACHE);
    res.writeHeader('Vary', 'Accept-Encoding').writeHeader('X-Content-Type-Options', 'nosniff');
    if (file.encoding !== null) res.writeHeader('Content-Encoding', file.encoding);
    if (method === 'HEAD') {
      res.writeHeader('Content-Length', String(file.body.length));
      res.endWithoutBody();
    } else {
      res.end(file.body);
    }
  });
  done(200);
}
