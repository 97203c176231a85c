/**
 * Writing an `ApiResponse` to uWS (https://zulip.com/api/rest-error-handling): one corked write of status
 * line, headers and body; `Content-Type: application/json`, body = compact JSON + "\n", Zulip's
 * never-cache `Cache-Control`. Nothing is written once the client has aborted.
 */
import type { HttpResponse } from 'uWebSockets.js';
import { Errors } from '../errors.js';
import type { ApiResponse } from '../api/registry.js';
import { encodeBody, ScratchBuffer } from '../api/raw-json.js';
import type { ResponseState } from './request.js';
import { log } from '../log.js';

/** Zulip's never-cache header value (Django `add_never_cache_headers`, shortened). */
export const NEVER_CACHE = 'no-store, no-cache, must-revalidate, max-age=0';

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  206: 'Partial Content',
  302: 'Found',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  416: 'Range Not Satisfiable',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const statusLines = new Map<number, string>();

/**
 * Where response bodies built from raw JSON are assembled (api/raw-json.ts). Reusing it is safe
 * because a body is handed to uWS right after it is built, in the same synchronous call, and uWS
 * copies whatever it cannot send at once into the socket's own buffer before `end` returns
 * (test/http/response-scratch.test.ts holds it to that).
 */
const bodyScratch = new ScratchBuffer(1024 * 1024);

/** `"200 OK"` etc., cached per status. */
export function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${REASONS[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}

/**
 * Writes `response` to `res` inside `res.cork`, unless the request was aborted or already
 * answered; returns whether it wrote. `head: true` (a HEAD request) sends the headers and the
 * Content-Length the body would have, without the body. `closeConnection` closes the socket after
 * a response that has a body (used after an unread oversized body and while shutting down); it is
 * ignored for bodiless responses (204, HEAD).
 */
export function writeResponse(
  res: HttpResponse,
  state: ResponseState,
  response: ApiResponse,
  head = false,
  closeConnection = false,
): boolean {
  if (state.aborted || state.done) return false;
  state.done = true;
  let status = response.status;
  let text: string | Buffer | null = null;
  let headers = response.headers;
  if (response.body !== null) {
    try {
      text = encodeBody(response.body, bodyScratch);
    } catch (error) {
      // An unserializable body (cycle, BigInt) is logged and becomes a 500.
      log.error({ err: error }, 'response body is not serializable');
      const internal = Errors.internal();
      status = internal.status;
      text = JSON.stringify(internal.toBody()) + '\n';
      headers = undefined;
    }
  }
  // `cork` runs its callback at once: the write's parts go through one shared slot and callback
  // instead of a closure per response (issue 17).
  corked.res = res;
  corked.status = status;
  corked.text = text;
  corked.headers = headers;
  corked.head = head;
  corked.closeConnection = closeConnection;
  try {
    res.cork(writeCorked);
  } finally {
    corked.res = null;
    corked.text = null;
    corked.headers = undefined;
  }
  return true;
}

/** The response `writeResponse` is writing (see there). */
const corked: {
  res: HttpResponse | null;
  status: number;
  text: string | Buffer | null;
  headers: Readonly<Record<string, string>> | undefined;
  head: boolean;
  closeConnection: boolean;
} = { res: null, status: 0, text: null, headers: undefined, head: false, closeConnection: false };

/** `writeResponse`'s corked write: status line, headers, body. */
function writeCorked(): void {
  const { res, status, text, headers, head, closeConnection } = corked;
  res!.writeStatus(statusLine(status));
  if (text !== null) res!.writeHeader('Content-Type', 'application/json');
  res!.writeHeader('Cache-Control', NEVER_CACHE);
  if (headers !== undefined) for (const name in headers) res!.writeHeader(name, headers[name]!);
  // endWithoutBody() must get no arguments: uWS reads an `undefined` length as 2^63 and then
  // sends that as Content-Length. So bodiless responses never request a close.
  if (text === null) {
    res!.endWithoutBody();
  } else if (head) {
    res!.writeHeader('Content-Length', String(Buffer.byteLength(text)));
    res!.endWithoutBody();
  } else {
    res!.end(text, closeConnection);
  }
}
