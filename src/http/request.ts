/**
 * Turning a uWS request into an `ApiRequest` (Zulip's request parsing in zerver/lib/request.py;
 * clients send forms, see https://zulip.com/api/http-headers):
 *
 * 1. `copyRequestHead` copies everything from uWS's stack-allocated `HttpRequest` synchronously,
 *    inside the route handler (after it returns, the HttpRequest is gone);
 * 2. `readBody` collects the body through `res.onData`, copying every chunk (uWS reuses and
 *    neuters the ArrayBuffer), with a byte limit: over it → 413 and reading stops;
 * 3. `parseForm` parses `application/x-www-form-urlencoded` and `multipart/form-data` (busboy;
 *    fields only, file parts drained and dropped). Any other content type: body ignored.
 *
 * The caller (`server.ts`) must have registered `res.onAborted` before step 2 and routes the abort
 * into `ResponseState.onAbort`, so that a pending `readBody` rejects with `RequestAborted`.
 */
import busboy from 'busboy';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { Errors, type ZulipError } from '../errors.js';
import type { ApiRequest, RequestTrace } from '../api/registry.js';
import { clientIp, requestScheme, TrustedProxies } from './client-ip.js';
import { parseFormUrlencoded } from './form-urlencoded.js';
import { peerAddressText } from './peer-address.js';

/** Default body limit: 5 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Lifecycle of one uWS response, shared by reading and writing. */
export interface ResponseState {
  /** The client went away (uWS `onAborted`): never touch `res` again. */
  aborted: boolean;
  /** A response was written (`res` is finished). */
  done: boolean;
  /** Called once from `onAborted`; `readBody` uses it to stop waiting. */
  onAbort: (() => void) | null;
}

/** Rejection value of `readBody` when the client aborted mid-body. Not an error to report. */
export class RequestAborted extends Error {
  constructor() {
    super('request aborted by the client');
    this.name = 'RequestAborted';
  }
}

/** What `copyRequestHead` copies out of uWS. */
export interface RequestHead {
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** URL path, duplicate slashes collapsed (`//api/v1/x` → `/api/v1/x`), not percent-decoded. */
  readonly path: string;
  /** Raw query string without `?` ('' when none). */
  readonly rawQuery: string;
  /** Header names lower-case; repeated headers joined with ", ". */
  readonly headers: Record<string, string>;
  /**
   * The client's IP as text (client-ip.ts `clientIp`): the TCP peer, or from `X-Forwarded-For`
   * when the peer is a trusted proxy. What rate limits and logs use.
   */
  readonly remoteAddress: string;
  /** The TCP peer's IP as text (the proxy's, behind one). */
  readonly peerAddress: string;
  /** `https` when a trusted proxy's `X-Forwarded-Proto` says so, else `http`. */
  readonly scheme: 'http' | 'https';
}

/** Trusts nobody: forwarded headers are ignored (the default of `copyRequestHead`). */
const NO_PROXIES = TrustedProxies.parse('');

/** uWS's lower-case method names → the upper-case constants, so a request does not make a new string. */
const UPPER_METHODS: ReadonlyMap<string, string> = new Map(
  ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map((m) => [m, m.toUpperCase()]),
);

/** `method.toUpperCase()`, without allocating for the usual methods. */
function upperCaseMethod(method: string): string {
  return UPPER_METHODS.get(method) ?? method.toUpperCase();
}

const NO_HEADERS: Record<string, string> = {};
/** The headers `req.forEach` is filling in (synchronous): one shared callback, no closure per request. */
let collecting = NO_HEADERS;

/** `req.forEach`'s callback: repeated headers are joined with ", ". */
function collectHeader(key: string, value: string): void {
  const prev = collecting[key];
  collecting[key] = prev === undefined ? value : `${prev}, ${value}`;
}

/**
 * Copies method, path, query string, headers and peer address out of a uWS request, and resolves
 * the client's IP and scheme through `trusted` proxies (see client-ip.ts). Must be called
 * synchronously inside the uWS route handler, before any await.
 */
export function copyRequestHead(res: HttpResponse, req: HttpRequest, trusted: TrustedProxies = NO_PROXIES): RequestHead {
  const headers: Record<string, string> = {};
  collecting = headers;
  req.forEach(collectHeader);
  collecting = NO_HEADERS;
  let path = req.getUrl();
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  const peer = peerAddressText(res);
  // Built with the peer as `remoteAddress`, which is what client-ip.ts reads (a `ForwardedRequest`);
  // then the scheme and the client's address replace it: no separate object for the peer.
  const head: { -readonly [K in keyof RequestHead]: RequestHead[K] } = {
    method: upperCaseMethod(req.getMethod()),
    path,
    rawQuery: req.getQuery() ?? '',
    headers,
    remoteAddress: peer,
    peerAddress: peer,
    scheme: 'http',
  };
  head.scheme = requestScheme(head, trusted);
  head.remoteAddress = clientIp(head, trusted);
  return head;
}

/**
 * Parses a query string (or urlencoded body) into name/value pairs, in order. `+` is a space;
 * the pairs of `URLSearchParams` (form-urlencoded.ts).
 */
export function parseQuery(raw: string): [string, string][] {
  return parseFormUrlencoded(raw);
}

const EMPTY = Buffer.alloc(0);

/** Where a `BodyCollector` delivers its outcome (exactly one call). */
export interface BodyTarget {
  /** The whole body, a copy (uWS's chunks are neutered after their callback). */
  bodyRead(body: Buffer): void;
  /** `RequestAborted` (the client went away) or `Errors.payloadTooLarge` (413). */
  bodyFailed(error: RequestAborted | ZulipError): void;
}

/**
 * Collects one request body through `res.onData`, up to `maxBytes` bytes, and reports to its
 * `target` once: the body, or 413 as soon as the declared `Content-Length` or the bytes received
 * exceed the limit (later chunks are dropped, never buffered), or `RequestAborted` when `abort` is
 * called (the owner's `onAborted`). A class rather than closures: a send's body costs this object
 * and the one `onData` callback uWS needs.
 */
export class BodyCollector {
  /** The first chunk; most bodies are one chunk. */
  private first: Buffer | null = null;
  /** Later chunks, when there are some. */
  private more: Buffer[] | null = null;
  private total = 0;
  private settled = false;

  constructor(
    private readonly target: BodyTarget,
    private readonly maxBytes: number,
  ) {}

  /** Starts reading; may report at once (413 by the declared `contentLength`). */
  start(res: HttpResponse, contentLength: string | undefined): void {
    if (contentLength !== undefined && Number(contentLength) > this.maxBytes) return this.fail(Errors.payloadTooLarge(this.maxBytes));
    // uWS calls the handler without a receiver: one closure per body is unavoidable.
    res.onData((chunk, isLast) => this.chunk(chunk, isLast));
  }

  /** The client went away: reports `RequestAborted` unless the body was already reported. */
  abort(): void {
    this.fail(new RequestAborted());
  }

  private chunk(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.settled) return;
    this.total += chunk.byteLength;
    if (this.total > this.maxBytes) return this.fail(Errors.payloadTooLarge(this.maxBytes));
    if (chunk.byteLength > 0) {
      const copy = Buffer.from(new Uint8Array(chunk));
      if (this.first === null) this.first = copy;
      else (this.more ??= []).push(copy);
    }
    if (!isLast) return;
    this.settled = true;
    const first = this.first;
    const body = first === null ? EMPTY : this.more === null ? first : Buffer.concat([first, ...this.more], this.total);
    this.first = null;
    this.more = null;
    this.target.bodyRead(body);
  }

  private fail(error: RequestAborted | ZulipError): void {
    if (this.settled) return;
    this.settled = true;
    this.first = null;
    this.more = null;
    this.target.bodyFailed(error);
  }
}

/**
 * Reads the request body, up to `maxBytes` bytes (a `BodyCollector` behind a promise).
 *
 * Resolves with the whole body (a copy). Rejects with `Errors.payloadTooLarge(maxBytes)` (413)
 * as soon as the declared `Content-Length` or the bytes received exceed the limit (later chunks
 * are dropped, never buffered), or with `RequestAborted` when the client goes away.
 * `state.onAbort` is taken over until the promise settles.
 */
export function readBody(
  res: HttpResponse,
  state: ResponseState,
  contentLength: string | undefined,
  maxBytes: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (state.aborted) return reject(new RequestAborted());
    const collector = new BodyCollector({ bodyRead: resolve, bodyFailed: reject }, maxBytes);
    state.onAbort = () => collector.abort();
    collector.start(res, contentLength);
  });
}

/** The media type of a Content-Type header, lower-case, without parameters. */
function mediaType(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** Parses a multipart/form-data body into its fields; file parts are drained and dropped. */
function parseMultipart(contentType: string, body: Buffer): Promise<[string, string][]> {
  return new Promise((resolve, reject) => {
    const malformed = (why: string) =>
      Errors.badRequest(`Malformed multipart/form-data request body: ${why}`);
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { fieldSize: body.length + 1, fieldNameSize: body.length + 1 },
      });
    } catch (error) {
      return reject(malformed(error instanceof Error ? error.message : String(error)));
    }
    const fields: [string, string][] = [];
    parser.on('field', (name, value) => fields.push([name, value]));
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('error', (error: unknown) => reject(malformed(error instanceof Error ? error.message : String(error))));
    parser.on('close', () => resolve(fields));
    parser.end(body);
  });
}

/**
 * Parses a request body by its Content-Type (as Django does for Zulip's views):
 * - `application/x-www-form-urlencoded` → URLSearchParams pairs (UTF-8);
 * - `multipart/form-data` (with or without a space before `boundary=`) → its fields; an empty
 *   body is zero fields (zulip-js sends that for parameterless POSTs); a malformed body or a
 *   missing boundary → 400 BAD_REQUEST (rejected ZulipError);
 * - anything else, or no Content-Type → no fields (JSON bodies are not parsed, as in Zulip).
 */
export function parseForm(contentType: string | undefined, body: Buffer): [string, string][] | Promise<[string, string][]> {
  if (contentType === undefined || body.length === 0) return [];
  const type = mediaType(contentType);
  if (type === 'application/x-www-form-urlencoded') return parseQuery(body.toString('utf8'));
  if (type === 'multipart/form-data') return parseMultipart(contentType, body);
  return [];
}

/**
 * Methods whose form body Zulip parses (zerver/lib/request.py: PATCH/PUT/DELETE like POST; never
 * GET).
 */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * Builds the `ApiRequest` from a copied head and the raw body: query pairs always, form fields
 * only for POST/PATCH/PUT/DELETE. Rejects like `parseForm`.
 */
export async function toApiRequest(
  head: RequestHead,
  body: Buffer,
  onAbort?: (callback: () => void) => void,
  trace?: RequestTrace,
): Promise<ApiRequest> {
  return buildApiRequest(head, body, onAbort, trace);
}

/**
 * `toApiRequest` without a promise when none is needed: the `ApiRequest` itself for urlencoded and
 * body-less requests (the send path), a promise only for multipart bodies (busboy is
 * asynchronous), which rejects like `parseForm`.
 */
export function buildApiRequest(
  head: RequestHead,
  body: Buffer,
  onAbort?: (callback: () => void) => void,
  trace?: RequestTrace,
): ApiRequest | Promise<ApiRequest> {
  if (!BODY_METHODS.has(head.method)) return apiRequestFromFields(head, [], onAbort, trace);
  const rawBody = body.length > 0 ? body : undefined;
  const fields = parseForm(head.headers['content-type'], body);
  if (fields instanceof Promise) return fields.then((parsed) => apiRequestFromFields(head, parsed, onAbort, trace, rawBody));
  return apiRequestFromFields(head, fields, onAbort, trace, rawBody);
}

/**
 * The `ApiRequest` of a copied head and already parsed form fields (streamed uploads add `files`);
 * `rawBody`: the body as received, for endpoints that read it (incoming webhooks).
 */
export function apiRequestFromFields(
  head: RequestHead,
  fields: [string, string][],
  onAbort?: (callback: () => void) => void,
  trace?: RequestTrace,
  rawBody?: Buffer,
): ApiRequest {
  // One literal of a fixed shape, absent options undefined (readers test `=== undefined` / `??`):
  // adding them one by one after the literal allocated a property array per request.
  const request: ApiRequest = {
    method: head.method,
    path: head.path,
    query: parseQuery(head.rawQuery),
    body: fields,
    headers: head.headers,
    remoteAddress: head.remoteAddress,
    peerAddress: head.peerAddress,
    scheme: head.scheme,
    onAbort,
    trace,
    rawBody,
  };
  return request;
}
