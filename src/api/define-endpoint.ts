/**
 * The shape of one endpoint (our `urls.py` entry). Each file in `api/` exports an array of these;
 * `api/registry.ts` routes requests to them, decodes parameters with `api/params.ts`, authenticates,
 * and turns the outcome into the Zulip JSON envelope (zproject/urls.py).
 */
import type { ZulipError } from '../errors.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { User } from '../domain/realm-state.js';
import type { ParamSpecs, DecodedParams, Dialect } from './params.js';

/** HTTP methods parley routes. HEAD is answered by the GET handler; OPTIONS by the registry. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Who may call the endpoint:
 * - `user`: HTTP Basic `email:api_key` required (401 UNAUTHORIZED otherwise);
 * - `none`: no authentication; an Authorization header is ignored, even a bad one
 *   (python-zulip-api sends one to `GET /server_settings`).
 */
export type AuthMode = 'user' | 'none';

/** What a handler receives. `P` is the decoded parameter object. */
export interface RequestContext<P> {
  /** Decoded parameters: keys as declared in `params`, values typed by their spec. */
  readonly params: P;
  /** Integer path segments, e.g. `{ message_id: 12 }` for `/messages/{message_id}`. */
  readonly path: Readonly<Record<string, number>>;
  /**
   * String path segments, URL-decoded, from `{name:string}` placeholders (e.g. `/users/{email:string}`).
   * A route with an integer placeholder at the same position wins over a string one.
   */
  readonly stringPath: Readonly<Record<string, string>>;
  /** Realm chosen by the Host header; null only for `auth: 'none'` when no realm matches. */
  readonly realm: RealmHandle | null;
  /** The authenticated user (always set for `auth: 'user'`). */
  readonly user: User | null;
  /** Zulip's client name: the `client` parameter, else the User-Agent product token, else "Unspecified". */
  readonly clientName: string;
  /** The request's Host header (lower-cased), for building absolute URLs. */
  readonly host: string;
  /** Remote address as text, for rate limiting. */
  readonly remoteAddress: string;
  /** Registers a callback for a client that disconnects before the answer (long-polls). */
  readonly onAbort: (callback: () => void) => void;
}

/** A success body (merged into `{"result":"success","msg":""}`) or an error to send. */
export type EndpointOutcome = Record<string, unknown> | ZulipError;

/** One route. `path` is relative to `/api/v1`, with integer placeholders in braces. */
export interface Endpoint<S extends ParamSpecs = ParamSpecs> {
  readonly method: Method;
  readonly path: string;
  readonly auth: AuthMode;
  /**
   * Which of Zulip's two JSON-parameter error dialects this endpoint speaks (Zulip's
   * zerver/lib/typed_endpoint.py `typed_endpoint`).
   */
  readonly dialect?: Dialect;
  readonly params: S;
  handler(ctx: RequestContext<DecodedParams<S>>): EndpointOutcome | Promise<EndpointOutcome>;
}

/** Identity helper that gives `handler` its parameter types from `params`. */
export function defineEndpoint<S extends ParamSpecs>(endpoint: Endpoint<S>): Endpoint<S> {
  return endpoint;
}
