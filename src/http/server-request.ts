/**
 * One HTTP request from its head to its answer (server.ts hands every uWS request to
 * `ServerRequest.handle`): register `onAborted` first, copy the request head synchronously, pick
 * the route, read the body (bounded), parse it, call `dispatch`, write the reply corked — unless
 * the client went away — and report the answer (`onAnswered`: the request log, metrics).
 *
 * The request's lifecycle is one object with named methods (issue 17: per-request closures were
 * ~1.4 KB of a send's allocation): it is the `ResponseState` the writers check, the `RequestTrace`
 * the dispatcher fills in, and the `BodyTarget` of the body collector. Only the callbacks that
 * uWS or a handler call without a receiver are closures, made once in the constructor.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { Errors, ZulipError } from '../errors.js';
import { API_PREFIX, JSON_PREFIX, errorResponse, type ApiRequest, type ApiResponse, type RequestTrace } from '../api/registry.js';
import { isRawAnswer, type RawRoute } from '../api/raw-route.js';
import {
  BodyCollector,
  copyRequestHead,
  apiRequestFromFields,
  buildApiRequest,
  readBody,
  RequestAborted,
  toApiRequest,
  type BodyTarget,
  type RequestHead,
  type ResponseState,
} from './request.js';
import { NEVER_CACHE, statusLine, writeResponse } from './response.js';
import { serveMetrics } from './metrics-endpoint.js';
import { log } from '../log.js';
import { isMultipart, readMultipartUpload } from './multipart-upload.js';
import { writeFileResponse } from './file-writer.js';
import { IMMUTABLE_CACHE, STATIC_PREFIX, type StaticAssets } from './static-assets.js';
import type { HttpServerOptions } from './server.js';

/** What every request of one server shares: its options and the in-flight count `close()` waits on. */
export interface ServerScope {
  readonly opts: HttpServerOptions;
  /** Request body limit in bytes (`opts.maxBodyBytes` or the default). */
  readonly maxBodyBytes: number;
  /** Requests not yet answered or aborted. */
  inFlight: number;
  /** Set by `close()`: called when `inFlight` drops to 0. */
  drained: (() => void) | null;
  /** Whether `close()` was called (new requests are answered 503). */
  closing: boolean;
}

const EMPTY_BODY = Buffer.alloc(0);

/** The first of `routes` whose `matches` accepts `path` (a loop: `find` needed a closure per request). */
function findRawRoute(routes: readonly RawRoute[] | undefined, path: string): RawRoute | undefined {
  if (routes === undefined) return undefined;
  for (const route of routes) if (route.matches(path)) return route;
  return undefined;
}

/**
 * The client's address for logs and metrics: the peer socket's for now (a trusted reverse proxy's
 * `X-Forwarded-For` is honoured by the external-URL work, issue 13 §1).
 */
function clientAddress(peer: string): string {
  return peer;
}

/** One request being answered (see the module header). */
export class ServerRequest implements ResponseState, RequestTrace, BodyTarget {
  // ResponseState
  aborted = false;
  done = false;
  onAbort: (() => void) | null = null;
  // RequestTrace (filled in by the dispatcher)
  route = 'unmatched';
  realm: string | null = null;
  userId: number | null = null;
  /** Still counted in `scope.inFlight`. */
  private counted = true;
  /** Handlers' abort callbacks (long-polls), run when the client goes away. */
  private abortListeners: Array<() => void> | null = null;
  /** The API body being read, until it is read. */
  private collector: BodyCollector | null = null;
  private readonly head: RequestHead;
  /** `performance.now()` at the head (0 without `onAnswered`). */
  private readonly started: number;
  /** `ApiRequest.onAbort`: handlers call it without a receiver. */
  private readonly onClientAbort: (listener: () => void) => void;
  /** `dispatch`'s outcome, as promise callbacks (made once, not per promise step). */
  private readonly onResponse: (response: ApiResponse | undefined) => void;
  private readonly onFailure: (error: unknown) => void;

  /** Answers one uWS request; call synchronously from the uWS route handler. */
  static handle(scope: ServerScope, res: HttpResponse, req: HttpRequest): void {
    new ServerRequest(scope, res, req).pickRoute();
  }

  private constructor(
    private readonly scope: ServerScope,
    private readonly res: HttpResponse,
    req: HttpRequest,
  ) {
    scope.inFlight++;
    // The closures share one context (this): uWS and handlers call them without a receiver.
    res.onAborted(() => this.clientAborted());
    this.onClientAbort = (listener) => this.addAbortListener(listener);
    this.onResponse = (response) => this.reply(response);
    this.onFailure = (error) => this.fail(error);
    this.head = copyRequestHead(res, req, scope.opts.trustedProxies);
    this.started = scope.opts.onAnswered === undefined ? 0 : performance.now();
  }

  /** uWS `onAborted`: never touch `res` again; stop reading, tell the handler's listeners. */
  private clientAborted(): void {
    this.aborted = true;
    const onAbort = this.onAbort;
    this.onAbort = null;
    if (onAbort !== null) onAbort();
    const collector = this.collector;
    this.collector = null;
    if (collector !== null) collector.abort();
    const listeners = this.abortListeners;
    this.abortListeners = null;
    if (listeners !== null) for (const listener of listeners) listener();
    this.finish();
  }

  private addAbortListener(listener: () => void): void {
    if (this.aborted) listener();
    else (this.abortListeners ??= []).push(listener);
  }

  /** Leaves the in-flight count (once); the last one out lets `close()` finish. */
  private finish(): void {
    if (!this.counted) return;
    this.counted = false;
    const scope = this.scope;
    scope.inFlight--;
    if (scope.inFlight === 0 && scope.drained !== null) scope.drained();
  }

  /** Reports the answer to `onAnswered` (499 when the client went away first). */
  private answered(status: number): void {
    const onAnswered = this.scope.opts.onAnswered;
    if (onAnswered === undefined) return;
    onAnswered({
      method: this.head.method,
      route: this.route,
      status: this.aborted ? 499 : status,
      ms: performance.now() - this.started,
      realm: this.realm,
      userId: this.userId,
      ip: clientAddress(this.head.remoteAddress),
    });
  }

  /** `answered` then `finish`: the end of every path that wrote (or could not write) by itself. */
  private ended(status: number): void {
    this.answered(status);
    this.finish();
  }

  /** The client left before there was an answer to write: logged as 499. */
  private abandoned(): void {
    this.ended(499);
  }

  /** Writes a JSON answer (nothing once aborted or answered), reports it, leaves the count. */
  private reply(response: ApiResponse | undefined, closeConnection = false): void {
    if (response === undefined) return this.abandoned();
    writeResponse(this.res, this, response, this.head.method === 'HEAD', closeConnection);
    this.ended(response.status);
  }

  /** Any failure: an abort is 499, a ZulipError its own answer (413 closes), anything else 500. */
  private fail(error: unknown): void {
    if (error instanceof RequestAborted) return this.abandoned();
    if (error instanceof ZulipError) return this.reply(errorResponse(error), error.status === 413);
    log.error({ err: error, method: this.head.method, path: this.head.path }, 'unhandled error');
    this.reply(errorResponse(Errors.internal()));
  }

  /** Picks what answers the request by its path. */
  private pickRoute(): void {
    const opts = this.scope.opts;
    const head = this.head;
    const path = head.path;
    if (this.scope.closing) return this.reply(errorResponse(Errors.serverNotReady()), true);
    if (path === '/health' && opts.health !== undefined) {
      this.route = '/health';
      return this.reply(opts.health());
    }
    if (path === '/metrics' && opts.metrics !== undefined) {
      this.route = '/metrics';
      return serveMetrics(this.res, this, head, opts.metrics, (status) => this.ended(status));
    }
    const join = opts.join;
    const pages = opts.pages;
    const pageRoute = join !== undefined && join.matches(path) ? join : pages !== undefined && pages.matches(path) ? pages : undefined;
    if (pageRoute !== undefined) {
      this.route = pageRoute === join ? '/join/{key}/' : path;
      return this.servePage(pageRoute);
    }
    const raw = findRawRoute(opts.rawRoutes, path);
    // A raw route under /static/ (the emoji data file) wins over the built app's files.
    if (opts.assets !== undefined && path.startsWith(STATIC_PREFIX) && raw === undefined) {
      this.route = '/static/{name}';
      return serveAsset(this.res, this, head.method, path, head.headers['accept-encoding'], opts.assets, (status) => this.ended(status));
    }
    if (raw !== undefined) {
      this.route = raw.name;
      return this.serveRaw(raw);
    }
    const userUploads = opts.userUploads;
    if (userUploads !== undefined && userUploads.matches(path)) {
      this.route = '/user_uploads/{path}';
      return this.serveUserUpload(userUploads);
    }
    if (!path.startsWith(API_PREFIX) && !path.startsWith(JSON_PREFIX)) return this.reply(errorResponse(Errors.notFound()));
    const upload = opts.upload;
    // Streamed to disk only with credentials (API key or session cookie): an anonymous upload is
    // refused (401) after at most --max-body-bytes, never spooled.
    const credentials = head.headers.authorization !== undefined || head.headers.cookie !== undefined;
    // Content type first: it rules out every send without asking the upload routes.
    if (upload !== undefined && credentials && isMultipart(head.headers['content-type']) && upload.matches(head.method, path)) {
      return this.serveStreamedUpload(upload);
    }
    this.serveApi();
  }

  /** The API (every send): body collected, parsed, dispatched; no promise until `dispatch`'s. */
  private serveApi(): void {
    const collector = new BodyCollector(this, this.scope.maxBodyBytes);
    this.collector = collector;
    collector.start(this.res, this.head.headers['content-length']);
  }

  /** BodyTarget: the API body is here. Urlencoded bodies (every send) parse synchronously. */
  bodyRead(body: Buffer): void {
    this.collector = null;
    let request: ApiRequest | Promise<ApiRequest>;
    try {
      request = buildApiRequest(this.head, body, this.onClientAbort, this);
    } catch (error) {
      return this.fail(error);
    }
    if (request instanceof Promise) request.then((parsed) => this.dispatch(parsed), this.onFailure);
    else this.dispatch(request);
  }

  /** BodyTarget: the API body could not be read (abort, 413). */
  bodyFailed(error: RequestAborted | ZulipError): void {
    this.collector = null;
    this.fail(error);
  }

  private dispatch(request: ApiRequest): void {
    if (this.aborted) return this.abandoned();
    let response: ApiResponse | Promise<ApiResponse>;
    try {
      response = this.scope.opts.dispatch(request);
    } catch (error) {
      return this.fail(error);
    }
    if (response instanceof Promise) response.then(this.onResponse, this.onFailure);
    else this.reply(response);
  }

  /** Join links and browser pages: body read, the route answers with a page (headers, cookies, body). */
  private servePage(pageRoute: NonNullable<HttpServerOptions['pages']>): void {
    const head = this.head;
    readBody(this.res, this, head.headers['content-length'], this.scope.maxBodyBytes)
      .then((body) => {
        this.onAbort = null;
        return toApiRequest(head, body);
      })
      .then((req) => (this.aborted ? undefined : pageRoute.handle(req)))
      .then((page) => {
        if (page === undefined || this.aborted || this.done) return this.abandoned();
        this.done = true;
        const res = this.res;
        res.cork(() => {
          res.writeStatus(statusLine(page.status)).writeHeader('Cache-Control', NEVER_CACHE);
          for (const name in page.headers) res.writeHeader(name, page.headers[name]!);
          for (const cookie of page.cookies ?? []) res.writeHeader('Set-Cookie', cookie);
          res.end(head.method === 'HEAD' ? '' : page.body);
        });
        this.ended(page.status);
      }, this.onFailure);
  }

  /** Byte-serving routes outside `/api/v1` (GET and HEAD only). */
  private serveRaw(raw: RawRoute): void {
    const head = this.head;
    if (head.method !== 'GET' && head.method !== 'HEAD') return this.reply(errorResponse(Errors.methodNotAllowed(['GET', 'HEAD'])));
    toApiRequest(head, EMPTY_BODY)
      .then((req) => (this.aborted ? undefined : raw.handle(req)))
      .then((answer) => {
        if (answer === undefined || this.aborted || this.done) return this.abandoned();
        if (!isRawAnswer(answer)) return this.reply(answer);
        const bytes = answer;
        this.done = true;
        const res = this.res;
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
        this.ended(bytes.status);
      }, this.onFailure);
  }

  /** `GET /user_uploads/...`: a JSON answer or a streamed file. */
  private serveUserUpload(userUploads: NonNullable<HttpServerOptions['userUploads']>): void {
    const head = this.head;
    readBody(this.res, this, head.headers['content-length'], this.scope.maxBodyBytes)
      .then((body) => {
        this.onAbort = null;
        return toApiRequest(head, body, this.onClientAbort, this);
      })
      .then((req) => (this.aborted ? undefined : userUploads.handle(req)))
      .then(async (response) => {
        if (response === undefined || this.aborted) return this.abandoned();
        if (response.file === undefined) return this.reply(response);
        try {
          await writeFileResponse(this.res, this, response, head.method === 'HEAD');
        } catch (error) {
          if (!this.done) return this.fail(error);
        }
        this.ended(response.status);
      })
      .catch(this.onFailure);
  }

  /** A multipart upload streamed to disk with its own size limit; staged files discarded after. */
  private serveStreamedUpload(upload: NonNullable<HttpServerOptions['upload']>): void {
    let files: readonly { discard(): Promise<void> }[] = [];
    readMultipartUpload(this.res, this, this.head, upload)
      .then((parsed) => {
        files = parsed.files;
        const apiRequest = { ...apiRequestFromFields(this.head, parsed.fields, this.onClientAbort, this), files: parsed.files };
        return this.aborted ? undefined : this.scope.opts.dispatch(apiRequest);
      })
      .then(this.onResponse, (error: unknown) => {
        // The body may be unread (over-size, broken, disk full): answer and close the connection.
        if (error instanceof ZulipError) return this.reply(errorResponse(error), true);
        this.fail(error);
      })
      .finally(() => {
        for (const file of files) void file.discard();
      });
  }
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
