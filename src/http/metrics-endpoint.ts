/**
 * `GET /metrics` (issue 13 §2): the Prometheus text exposition, never open to the world by default.
 * Two ways to serve it, both off unless configured:
 *
 * - `--metrics-port P`: a separate listener (`startMetricsServer`) on `--metrics-host` (default
 *   127.0.0.1) that serves only `/metrics` and `/health`, so a firewall can keep it private;
 * - `--metrics-token T`: on the main port, for requests carrying `Authorization: Bearer T`
 *   (compared in constant time); anything else → 401 UNAUTHORIZED.
 */
import { timingSafeEqual } from 'node:crypto';
import { App, us_listen_socket_close, us_socket_local_port, type HttpResponse } from 'uWebSockets.js';
import { Errors } from '../errors.js';
import { errorResponse, type ApiResponse } from '../api/registry.js';
import { copyRequestHead, type RequestHead, type ResponseState } from './request.js';
import { NEVER_CACHE, statusLine, writeResponse } from './response.js';
import { listenExclusive } from './listen-exclusive.js';

/** How to produce the exposition, and the token guarding it on the main port ('' = no token needed). */
export interface MetricsEndpoint {
  /** Bearer token required on this listener; '' on the dedicated metrics port. */
  readonly token: string;
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

function tokenMatches(expected: string, authorization: string | undefined): boolean {
  if (expected === '') return true;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (m === null) return false;
  const given = Buffer.from(m[1]!);
  const want = Buffer.from(expected);
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * Answers `/metrics` on `res`: 405 for methods other than GET/HEAD, 401 without the token, else
 * 200 with the exposition. Calls `done(status)` once the answer is written (or the client left).
 */
export function serveMetrics(
  res: HttpResponse,
  state: ResponseState,
  head: RequestHead,
  endpoint: MetricsEndpoint,
  done: (status: number) => void,
): void {
  const isHead = head.method === 'HEAD';
  const send = (response: ApiResponse) => {
    writeResponse(res, state, response, isHead, false);
    done(response.status);
  };
  if (head.method !== 'GET' && !isHead) {
    const error = Errors.methodNotAllowed(['GET']);
    return send({ status: error.status, headers: { Allow: 'GET' }, body: error.toBody() });
  }
  if (!tokenMatches(endpoint.token, head.headers.authorization)) return send(errorResponse(Errors.metricsTokenRequired()));
  endpoint.scrape().then(
    ({ contentType, body }) => {
      if (state.aborted || state.done) return done(499);
      state.done = true;
      res.cork(() => {
        res.writeStatus(statusLine(200)).writeHeader('Content-Type', contentType).writeHeader('Cache-Control', NEVER_CACHE);
        res.end(isHead ? '' : body);
      });
      done(200);
    },
    () => send(errorResponse(Errors.internal())),
  );
}

/** A running dedicated metrics listener. */
export interface MetricsServer {
  readonly port: number;
  close(): void;
}

/**
 * Starts the dedicated metrics listener on `host:port` (0 = any free port): `GET /metrics` (no
 * token) and `GET /health`; everything else 404. Rejects with the host, port and cause when it
 * cannot bind.
 */
export function startMetricsServer(
  host: string,
  port: number,
  scrape: MetricsEndpoint['scrape'],
  health: () => ApiResponse,
): Promise<MetricsServer> {
  const app = App();
  const endpoint: MetricsEndpoint = { token: '', scrape };
  app.any('/*', (res, req) => {
    const state: ResponseState = { aborted: false, done: false, onAbort: null };
    res.onAborted(() => {
      state.aborted = true;
    });
    const head = copyRequestHead(res, req);
    if (head.path === '/metrics') return serveMetrics(res, state, head, endpoint, () => {});
    const response = head.path === '/health' ? health() : errorResponse(Errors.notFound());
    writeResponse(res, state, response, head.method === 'HEAD', false);
  });
  return new Promise((resolve, reject) => {
    listenExclusive(app, host, port, (socket) => {
      if (socket === false) {
        app.close();
        reject(new Error(`cannot listen on ${host}:${port} for metrics`));
        return;
      }
      resolve({
        port: us_socket_local_port(socket),
        close() {
          us_listen_socket_close(socket);
          app.close();
        },
      });
    });
  });
}
