/**
 * The request dispatcher (Zulip's `rest_dispatch` in zerver/lib/rest.py): routes an `ApiRequest`
 * through the route table (`endpoints.ts`) to one `Endpoint`, resolves the method, authenticates
 * (`validate_api_key`), derives the client name, decodes parameters (`params.ts`), calls the
 * handler and wraps the outcome in Zulip's JSON envelope
 * (https://zulip.com/api/rest-error-handling), adding `ignored_parameters_unsupported` on success.
 *
 * Everything that can be computed from the route table is computed once in `createDispatcher`
 * (route trie, allowed-method lists, `Allow` headers); the per-request path does no regex
 * compilation and no JSON work beyond the parameters the endpoint declares.
 */
import { Errors, ZulipError } from '../errors.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { User } from '../domain/realm-state.js';
import type { AnyEndpoint, EndpointOutcome, Route } from './define-endpoint.js';
import { ConsumedNames, decodeParams, lastValue, type NameSet, type ParamPairs } from './params.js';
import { parseBasicAuth } from '../auth/basic-auth.js';
import { LRUCache } from 'lru-cache';
import { rateLimitedError, type ApiRateLimits } from './api-rate-limits.js';
import { log } from '../log.js';
import type { FileBody, UploadedFile, UploadServices } from './uploaded-file.js';
import { authenticateJson, browserClientName, type SessionPrincipal } from './session-auth.js';
import { CSRF_FORM_FIELD } from '../auth/sessions.js';
import { API_PREFIX, JSON_PREFIX, buildTrie, decodeSegment, match } from './route-trie.js';

/**
 * One request as `http/` hands it over: everything copied out of uWS, body already parsed.
 * `path` is the full URL path, duplicate slashes collapsed, still percent-encoded (the registry
 * decodes each segment), e.g. `/api/v1/users/iago%40zulip.com`; `method` is upper-case (as sent);
 * header names are lower-case.
 */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: ParamPairs;
  /** Form fields (urlencoded or multipart) for POST/PATCH/PUT/DELETE; empty otherwise. */
  readonly body: ParamPairs;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The client's IP: the TCP peer, or `X-Forwarded-For`'s client when the peer is one of
   * `--trusted-proxies` (http/client-ip.ts `clientIp`). For rate limits and logs.
   */
  readonly remoteAddress: string;
  /** The TCP peer's IP (a proxy's, behind one); absent in hand-built requests = `remoteAddress`. */
  readonly peerAddress?: string;
  /** The client's scheme per `--trusted-proxies` (http/client-ip.ts); absent = `http`. */
  readonly scheme?: 'http' | 'https';
  /**
   * Registers a callback for a client that goes away before the answer (long-polls use it to let
   * go of the queue). Called at once if it already left. Absent in tests that build requests by hand.
   */
  readonly onAbort?: (callback: () => void) => void;
  /**
   * Filled in by the dispatcher for the request log and metrics (`http/server.ts`): the matched
   * route template and who asked. Absent in tests that build requests by hand.
   */
  readonly trace?: RequestTrace;
  /** File parts of a streamed multipart upload (`POST /user_uploads`), already on disk. */
  readonly files?: readonly UploadedFile[];
  /** The request body as received (incoming webhooks read JSON bodies); absent = empty. */
  readonly rawBody?: Buffer;
}

/** What the dispatcher learned about a request, for logs and metrics (issue 13 §2). */
export interface RequestTrace {
  /** Route template, e.g. `/api/v1/messages/{message_id}`; `unmatched` until a route matches. */
  route: string;
  /** Subdomain of the realm the Host selected ('' = root), or null when none. */
  realm: string | null;
  /** The authenticated user's id, or null. */
  userId: number | null;
}

/**
 * What to send back. `body` is serialized as compact JSON + "\n" with `Content-Type:
 * application/json`; `null` means no body at all (204).
 */
export interface ApiResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown> | null;
  /** A file download (`GET /user_uploads/...`): streamed instead of `body` (which is then null). */
  readonly file?: FileBody;
}

/** What the dispatcher needs from the rest of the server. */
export interface ApiServices {
  /** The realm served under this Host header (lower-case, may include `:port`), or null. */
  realmForHost(host: string): RealmHandle | null;
  /**
   * Checks an API key against `realm` (null when the Host matched no realm; Zulip's
   * `validate_api_key`). Returns the user with their realm, or the error to send (401
   * UNAUTHORIZED with `WWW-Authenticate`).
   */
  authenticate(realm: RealmHandle | null, email: string, apiKey: string): Authenticated | ZulipError;
  /** API rate limits (`api/api-rate-limits.ts`); absent or null = no limits (`--rate-limits off`). */
  rateLimits?: ApiRateLimits | null;
  /** The upload store and limits (`POST /user_uploads`, file downloads); absent = uploads refused. */
  uploads?: UploadServices;
}

/** A successfully authenticated request's principal: the user and the realm they belong to. */
export interface Authenticated {
  readonly realm: RealmHandle;
  readonly user: User;
}

export { API_PREFIX, JSON_PREFIX } from './route-trie.js';

const NEVER_ABORTS = (): void => {};
const NO_BODY = Buffer.alloc(0);
const NO_FILES: readonly UploadedFile[] = [];

/** The wire form of a ZulipError: its status, its extra headers, `toBody()`. */
export function errorResponse(error: ZulipError): ApiResponse {
  return { status: error.status, headers: error.headers, body: error.toBody() };
}

const USER_AGENT = /^(?<name>[^/ ]*[^0-9/(]*)(\/(?<version>[^/ ]*))?([ /].*)?$/s;

/**
 * Zulip's client name from a User-Agent (zerver/lib/user_agent.py `parse_user_agent`): the product
 * token before the first `/` (`ZulipMobile/27.1 (Android)` → `ZulipMobile`); `Unspecified` when
 * absent or unparsable.
 */
export function clientNameFromUserAgent(userAgent: string | undefined): string {
  if (userAgent === undefined) return 'Unspecified';
  let name = clientNames.get(userAgent);
  if (name === undefined) {
    name = USER_AGENT.exec(userAgent)?.groups?.name?.trim() || 'Unspecified';
    clientNames.set(userAgent, name);
  }
  return name;
}

/** User-Agent → client name; bounded, least recently used evicted (a server sees few distinct agents). */
const clientNames = new LRUCache<string, string>({ max: 1000 });

const NO_PATH_PARAMS: Readonly<Record<string, number | string>> = Object.freeze({});

/** `response` with `extra` headers added (the `X-RateLimit-*` ones). */
function withHeaders(response: ApiResponse, extra: Record<string, string>): ApiResponse {
  // An explicit literal, not a spread: this runs on every authenticated answer.
  return { status: response.status, headers: response.headers === undefined ? extra : { ...response.headers, ...extra }, body: response.body };
}

/** Where `dispatch` leaves the rate-limit headers for the answer, whatever the answer is. */
interface RateLimitNote {
  headers: Record<string, string> | null;
}

/** HTTP Basic `email:api_key` (Zulip's `validate_api_key`): the principal or the 401/400 to send. */
function authenticateBasic(services: ApiServices, realm: RealmHandle | null, header: string | undefined): Authenticated | ZulipError {
  const credentials = parseBasicAuth(header);
  if (credentials === null) return Errors.notLoggedIn();
  if (credentials instanceof ZulipError) return credentials;
  return services.authenticate(realm, credentials.email, credentials.apiKey);
}

/** Unconsumed parameter names from body and query, deduplicated and sorted; null when none. */
function ignoredParameters(req: ApiRequest, consumed: NameSet): string[] | null {
  // Two calls rather than a loop over `[req.body, req.query]`: that array was made per request.
  const out = unconsumedNames(req.query, consumed, unconsumedNames(req.body, consumed, null));
  return out === null ? null : out.sort();
}

/** `out` plus the names of `pairs` not in `consumed` and not yet in `out` (null while none). */
function unconsumedNames(pairs: ParamPairs, consumed: NameSet, out: string[] | null): string[] | null {
  for (let i = 0; i < pairs.length; i++) {
    const name = pairs[i]![0];
    if (consumed.has(name)) continue;
    out ??= [];
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * Builds the request dispatcher for the route table `routes` (`endpoints.ts`).
 *
 * Route paths are relative to `/api/v1` with `{name}` (decimal integer) and `{name:string}` (any
 * non-empty segment, URL-decoded) placeholders, both handed to the handler in `ctx.path`; at each
 * segment a static match is tried first, then integer, then string.
 *
 * Every route is served twice: under `/api/v1/` (HTTP Basic) and under `/json/` for the browser
 * app, where `auth: 'user'` means the session cookie and Zulip's CSRF check instead
 * (`session-auth.ts` `authenticateJson`), the client name is "website" for browsers, and endpoints
 * marked `web: false` (they return an API key) are 404.
 *
 * Per request: path outside `/api/v1/` and `/json/`, or unrouted → 404 JSON (`Errors.notFound`); a POST with a
 * `method` form field is dispatched as that method; HEAD uses the GET handler; OPTIONS → 204 with
 * `Allow`; other unsupported methods → 405 (`allowed_methods`, no `code`, `Allow` header). Then
 * `auth: 'user'` → Basic credentials (`Errors.notLoggedIn` when absent) checked by
 * `services.authenticate`, whose user and realm the handler receives; `auth: 'none'` ignores the
 * header and gets the Host's realm, if any. With `services.rateLimits`, an authenticated call is
 * counted per user (`api_by_user`, except endpoints with `rateLimit: false`), an unauthenticated or
 * refused one per IP (`api_by_ip`): past the limit → 429 RATE_LIMIT_HIT, and every answer after
 * the check carries `X-RateLimit-*` headers. Parameters are decoded, the handler
 * runs, and a success becomes `{"result":"success","msg":"",...data}` (+
 * `ignored_parameters_unsupported` when non-empty). A ZulipError returned or thrown anywhere
 * becomes its own response; any other throw is logged to stderr and answered 500.
 *
 * Throws (synchronously, at startup) on a malformed path template, a duplicate method+path, or
 * placeholders that differ from the endpoint's `pathParams`.
 */
export function createDispatcher(
  routes: readonly Route[],
  services: ApiServices,
): (req: ApiRequest) => Promise<ApiResponse> {
  const root = buildTrie(routes);

  /** Wraps a handler outcome in the envelope. */
  function envelope(req: ApiRequest, outcome: EndpointOutcome, consumed: NameSet): ApiResponse {
    if (outcome instanceof ZulipError) return errorResponse(outcome);
    const body: Record<string, unknown> = { result: 'success', msg: '' };
    Object.assign(body, outcome);
    const ignored = ignoredParameters(req, consumed);
    if (ignored !== null) body.ignored_parameters_unsupported = ignored;
    return { status: 200, body };
  }

  /**
   * An unauthenticated call: counted per IP (`api_by_ip`); null when allowed. A function of the
   * dispatcher, not a closure made per request (issue 17: allocations per send).
   */
  function limitByIp(limits: ApiRateLimits | null, req: ApiRequest, note: RateLimitNote): ApiResponse | null {
    if (limits === null) return null;
    const verdict = limits.takeIp(req.remoteAddress);
    note.headers = verdict.headers;
    return verdict.limited ? rateLimitedError(verdict) : null;
  }

  /**
   * Everything up to the handler call; returns a promise only when the handler does, and that
   * promise is the final answer (envelope, failures and `note`'s headers applied).
   */
  function dispatch(req: ApiRequest, note: RateLimitNote): ApiResponse | Promise<ApiResponse> {
    const path = req.path;
    const web = path.startsWith(JSON_PREFIX);
    if (!web && !path.startsWith(API_PREFIX)) return errorResponse(Errors.notFound());
    const segs = path.slice(web ? JSON_PREFIX.length : API_PREFIX.length).split('/').map(decodeSegment);
    const values: (number | string)[] = [];
    const node = match(root, segs, 0, values);
    if (node === null) return errorResponse(Errors.notFound());

    let method = req.method;
    if (method === 'POST') {
      const override = lastValue(req.body, 'method');
      if (override !== undefined) method = override.toUpperCase();
    }
    if (method === 'HEAD' && node.routes.has('GET')) method = 'GET';
    if (method === 'OPTIONS') return { status: 204, headers: { Allow: node.allowHeader }, body: null };
    const route = node.routes.get(method);
    if (route === undefined) {
      const error = Errors.methodNotAllowed(node.allowed);
      return { status: error.status, headers: { Allow: node.allowHeader }, body: error.toBody() };
    }
    const endpoint = route.endpoint;
    // Endpoints that hand out an API key are never served to a browser session.
    if (web && endpoint.web === false) return errorResponse(Errors.notFound());
    const trace = req.trace;
    if (trace !== undefined) trace.route = web ? route.jsonTemplate : route.template;

    const host = (req.headers.host ?? '').toLowerCase();
    const realm = services.realmForHost(host);
    const limits = services.rateLimits ?? null;
    if (trace !== undefined && realm !== null) trace.realm = realm.subdomain;
    let principal: Authenticated | null = null;
    let sessionIdHash: string | null = null;
    if (endpoint.auth === 'user') {
      // `/json`: the session cookie, then Zulip's CSRF check; `/api/v1`: HTTP Basic only.
      const authenticated = web ? authenticateJson(realm, req) : authenticateBasic(services, realm, req.headers.authorization);
      if (authenticated instanceof ZulipError) return limitByIp(limits, req, note) ?? errorResponse(authenticated);
      principal = authenticated;
      // Zulip's validate_api_key: incoming webhook bots only post messages (urls.py `allow_incoming_webhooks`).
      if (authenticated.user.botType === 2 && endpoint.allowIncomingWebhookBots !== true) return errorResponse(Errors.incomingWebhookBotNotAllowed());
      if (web) sessionIdHash = (authenticated as SessionPrincipal).idHash;
      const userId = authenticated.user.id;
      if (trace !== undefined) trace.userId = userId;
      if (limits !== null) {
        const realmId = authenticated.realm.id;
        const verdict = endpoint.rateLimit === false ? limits.peekUser(realmId, userId) : limits.takeUser(realmId, userId);
        note.headers = verdict.headers;
        if (verdict.limited) return rateLimitedError(verdict);
      }
    } else {
      const limited = limitByIp(limits, req, note);
      if (limited !== null) return limited;
    }

    const consumed = new ConsumedNames();
    if (method !== req.method && req.method === 'POST') consumed.add('method');
    if (web) consumed.add(CSRF_FORM_FIELD);
    const params = decodeParams(endpoint.params, req.body, req.query, endpoint.dialect ?? 'req', consumed);

    let pathParams = NO_PATH_PARAMS;
    if (values.length > 0) {
      const decoded: Record<string, number | string> = {};
      route.placeholders.forEach((ph, i) => (decoded[ph.name] = values[i]!));
      pathParams = decoded;
    }
    const client = lastValue(req.body, 'client') || lastValue(req.query, 'client');
    const clientName = web
      ? browserClientName(client, clientNameFromUserAgent(req.headers['user-agent']))
      : client || clientNameFromUserAgent(req.headers['user-agent']);
    const onAbort = req.onAbort ?? NEVER_ABORTS;
    const scheme = req.scheme ?? 'http';
    const files = req.files ?? NO_FILES;
    const uploads = services.uploads ?? null;
    // `auth: 'user'` endpoints were authenticated above: they get the principal's realm and user.
    // Two literals of one shape (not a spread): the hot path keeps a single object layout.
    const ctx: Parameters<AnyEndpoint['handler']>[0] =
      principal === null
        ? { params, path: pathParams, realm, user: null, clientName, remoteAddress: req.remoteAddress, scheme, onAbort, files, uploads, headers: req.headers, sessionIdHash, rawBody: req.rawBody ?? NO_BODY }
        : { params, path: pathParams, realm: principal.realm, user: principal.user, clientName, remoteAddress: req.remoteAddress, scheme, onAbort, files, uploads, headers: req.headers, sessionIdHash, rawBody: req.rawBody ?? NO_BODY };
    const result = endpoint.handler(ctx);
    if (!(result instanceof Promise)) return envelope(req, result, consumed);
    // The one promise step of an asynchronous handler (writes): envelope, failures and the
    // rate-limit headers at once, so the answer is final here (see the function returned below).
    return result.then(
      (outcome) => {
        try {
          return noted(envelope(req, outcome, consumed), note);
        } catch (error) {
          return noted(failure(req, error), note);
        }
      },
      (error: unknown) => noted(failure(req, error), note),
    );
  }

  // Not an async function: a wrapper that awaits and returns costs a generator object, a promise
  // and an await per request (issue 17). `dispatch`'s own promise is already the final answer.
  return (req) => {
    const note: RateLimitNote = { headers: null };
    let response: ApiResponse | Promise<ApiResponse>;
    try {
      response = dispatch(req, note);
    } catch (error) {
      response = failure(req, error);
    }
    return response instanceof Promise ? response : Promise.resolve(noted(response, note));
  };
}

/** The answer to an error thrown or rejected while answering `req`: its own, or a logged 500. */
function failure(req: ApiRequest, error: unknown): ApiResponse {
  if (error instanceof ZulipError) return errorResponse(error);
  log.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
  return errorResponse(Errors.internal());
}

/** `response` with the rate-limit headers `dispatch` left in `note`, if any. */
function noted(response: ApiResponse, note: RateLimitNote): ApiResponse {
  return note.headers === null ? response : withHeaders(response, note.headers);
}
