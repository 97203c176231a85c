/**
 * The shape of one endpoint (a Zulip view function). Each file in `api/` exports its endpoints as
 * named constants; `api/endpoints.ts` gives them their paths and methods (our `zproject/urls.py`),
 * and `api/registry.ts` routes requests to them, decodes parameters with `api/params.ts`,
 * authenticates, and turns the outcome into the Zulip JSON envelope
 * (https://zulip.com/api/rest-error-handling).
 *
 * Types carry the rules: the context of an `auth: 'user'` endpoint has a `realm` and a `user`
 * (the registry has authenticated them before the handler runs), and `ctx.path` has exactly the
 * placeholders the endpoint declares in `pathParams`, which the route's path template must match
 * (checked by the compiler in `route`, and again at startup by the registry).
 */
import type { ZulipError } from '../errors.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { User } from '../domain/realm-state.js';
import type { ParamSpecs, DecodedParams, Dialect } from './params.js';
import type { UploadedFile, UploadServices } from './uploaded-file.js';

/** HTTP methods parley routes. HEAD is answered by the GET handler; OPTIONS by the registry. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Who may call the endpoint (Zulip's `authenticated_rest_api_view` vs a public view):
 * - `user`: HTTP Basic `email:api_key` required (401 UNAUTHORIZED otherwise);
 * - `none`: no authentication; an Authorization header is ignored, even a bad one
 *   (python-zulip-api sends one to `GET /server_settings`).
 */
export type AuthMode = 'user' | 'none';

/**
 * A path placeholder's kind: `int` for `{name}` (a decimal segment, decoded to a number) and
 * `string` for `{name:string}` (any non-empty segment, URL-decoded), `path` for `{name:path}`
 * (the rest of the path, one or more segments joined by `/`, each URL-decoded; only as the last
 * placeholder: Django's `<path:name>` converter).
 */
export type PathParamKind = 'int' | 'string' | 'path';

/** An endpoint's path placeholders by name, e.g. `{ message_id: 'int' }`. */
export type PathParamSpecs = Readonly<Record<string, PathParamKind>>;

/** Decoded path placeholders: numbers for `int`, strings for `string`. */
export type PathParams<PS extends PathParamSpecs> = { readonly [K in keyof PS]: PS[K] extends 'string' | 'path' ? string : number };

/** What every handler receives. `P` is the decoded parameter object. */
interface BaseContext<P, PS extends PathParamSpecs> {
  /** Decoded parameters: keys as declared in `params`, values typed by their spec. */
  readonly params: P;
  /**
   * Path placeholders as declared in `pathParams`, e.g. `{ message_id: 12 }` for
   * `/messages/{message_id}`.
   */
  readonly path: PathParams<PS>;
  /**
   * Zulip's client name: the `client` parameter, else the User-Agent product token, else
   * "Unspecified".
   */
  readonly clientName: string;
  /**
   * The client's IP: `X-Forwarded-For` believed only from `--trusted-proxies`
   * (http/client-ip.ts `clientIp`), else the TCP peer. For rate limits and logs.
   * (No Host here: URLs come from the realm's configured `url`, never from the request.)
   */
  readonly remoteAddress: string;
  /** `https` when a trusted proxy says so in `X-Forwarded-Proto` (http/client-ip.ts `requestScheme`). */
  readonly scheme: 'http' | 'https';
  /** Registers a callback for a client that disconnects before the answer (long-polls). */
  readonly onAbort: (callback: () => void) => void;
  /** File parts of a streamed upload (only `POST /user_uploads` receives any). */
  readonly files: readonly UploadedFile[];
  /** The upload store and limits; null when the server has none. */
  readonly uploads: UploadServices | null;
  /** Request headers, names lower-case (file downloads read `Range`). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * SHA-256 (hex) of the web session that authenticated a `/json` request; null on `/api/v1`
   * (HTTP Basic) and for unauthenticated endpoints. A password change keeps this session alive.
   */
  readonly sessionIdHash: string | null;
}

/** The context of an `auth: 'user'` endpoint: the authenticated user and their realm. */
export interface UserRequestContext<P, PS extends PathParamSpecs = {}> extends BaseContext<P, PS> {
  readonly realm: RealmHandle;
  readonly user: User;
}

/** The context of an `auth: 'none'` endpoint: the realm chosen by the Host header, if any; no user. */
export interface PublicRequestContext<P, PS extends PathParamSpecs = {}> extends BaseContext<P, PS> {
  readonly realm: RealmHandle | null;
  readonly user: null;
}

/** The handler context for auth mode `A`. */
export type RequestContext<A extends AuthMode, P, PS extends PathParamSpecs = {}> = A extends 'user'
  ? UserRequestContext<P, PS>
  : PublicRequestContext<P, PS>;

/** A success body (merged into `{"result":"success","msg":""}`) or an error to send. */
export type EndpointOutcome = Record<string, unknown> | ZulipError;

/** One endpoint: who may call it, what it reads, and the handler. Its path is given in `endpoints.ts`. */
export interface Endpoint<A extends AuthMode = AuthMode, S extends ParamSpecs = ParamSpecs, PS extends PathParamSpecs = PathParamSpecs> {
  readonly auth: A;
  /**
   * The path placeholders the handler reads; the route's template must have exactly these. Default
   * none.
   */
  readonly pathParams?: PS;
  /** Which of Zulip's two JSON-parameter error dialects this endpoint speaks (`req` when absent). */
  readonly dialect?: Dialect;
  readonly params: S;
  /**
   * Whether a call counts toward the per-user API rate limit (`api/api-rate-limits.ts`); default
   * true. False only for the long-poll `GET /events`: a client re-polls as soon as it is answered
   * (with events or a heartbeat), so counting polls would throttle a busy client for receiving.
   */
  readonly rateLimit?: boolean;
  /**
   * Whether the endpoint is also served under `/json/` to browser sessions; default true. False for
   * endpoints that return the caller's API key (`fetch_api_key`): the key never reaches a browser.
   */
  readonly web?: boolean;
  /**
   * `auth` alone decides the context type (`NoInfer`): a handler typed for a user context needs
   * `auth: 'user'`.
   */
  handler(ctx: RequestContext<NoInfer<A>, DecodedParams<S>, PS>): EndpointOutcome | Promise<EndpointOutcome>;
}

/** An endpoint of any auth mode, parameters and placeholders, as the route table holds them. */
export type AnyEndpoint = Endpoint<any, any, any>;

/** Identity helper that types `handler`'s context from `auth`, `params` and `pathParams`. */
export function defineEndpoint<A extends AuthMode, S extends ParamSpecs, PS extends PathParamSpecs = {}>(
  endpoint: Endpoint<A, S, PS>,
): Endpoint<A, S, PS> {
  return endpoint;
}

/** One row of the route table: method, path template (relative to `/api/v1`) and endpoint. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly endpoint: AnyEndpoint;
}

/** The `{...}` placeholders of a path template, as written (`message_id`, `email:string`). */
type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** The `pathParams` a template requires: `'/users/{email:string}/presence'` → `{ email: 'string' }`. */
export type PathParamSpecsOf<T extends string> = {
  [K in Placeholders<T> as K extends `${infer Name}:${'string' | 'path'}` ? Name : K]: K extends `${string}:string`
    ? 'string'
    : K extends `${string}:path`
      ? 'path'
      : 'int';
};

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** `E` when its `pathParams` are exactly those of template `T`; otherwise a type naming the mismatch. */
type MatchingEndpoint<T extends string, E> =
  E extends Endpoint<AuthMode, ParamSpecs, infer PS>
    ? Same<PS, PathParamSpecsOf<T>> extends true
      ? E
      : { error: `pathParams must be exactly the placeholders of ${T}` }
    : never;

/**
 * The routes of one path template, one per method (Zulip's `rest_path(path, GET=..., POST=...)`).
 * `path` is relative to `/api/v1`; `{name}` is an integer placeholder, `{name:string}` a string one,
 * `{name:path}` the rest of the path.
 * A type error here means an endpoint's `pathParams` do not match the template.
 */
export function route<T extends string, M extends Partial<Record<Method, unknown>>>(
  // `M`'s constraint says nothing about endpoints on purpose: an endpoint-typed contextual type
  // would leak into the inference of an inline `defineEndpoint` call and widen its auth mode.
  path: T,
  methods: M & { [K in keyof M]: MatchingEndpoint<T, M[K]> },
): Route[] {
  return (Object.keys(methods) as Method[]).map((method) => ({ method, path, endpoint: methods[method] as AnyEndpoint }));
}
