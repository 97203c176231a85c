/**
 * The app's one way to the server: `/json/<path>`, the same endpoints as `/api/v1/<path>` with the
 * session cookie (sent by the browser) and Zulip's CSRF protection: the `csrftoken` cookie's
 * value echoed in the `X-CSRFToken` header on every request (Zulip's web app does the same in
 * `web/src/channel.ts`). The API key never reaches the browser.
 *
 * Parameters are form-encoded as Zulip expects; arrays and objects are JSON-encoded values.
 */

/** A Zulip error answer (`{"result":"error","msg","code"}`) or a transport failure (`code` NETWORK). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A parameter value: strings and numbers as they are, anything else JSON-encoded. */
export type ParamValue = string | number | boolean | readonly unknown[] | Record<string, unknown>;

function encode(params: Record<string, ParamValue | undefined>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    body.set(key, typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value));
  }
  return body;
}

/** The `csrftoken` cookie ('' when absent: the server then refuses writes). */
export function csrfToken(): string {
  const match = /(?:^|;\s*)csrftoken=([^;]*)/.exec(document.cookie);
  return match === null ? '' : decodeURIComponent(match[1]!);
}

/** The server says the session is gone (401: logged out elsewhere, password changed): log in again. */
function onUnauthorized(): void {
  location.assign('/login/');
}

/**
 * Calls `METHOD /json/<path>` and resolves with the success body; rejects with `ApiError`.
 * GET and DELETE carry parameters in the query string, others in a form body.
 */
export async function api<T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  params: Record<string, ParamValue | undefined> = {},
  init: { signal?: AbortSignal } = {},
): Promise<T> {
  const query = encode(params);
  const inUrl = method === 'GET' || method === 'DELETE';
  const url = `/json/${path}${inUrl && [...query.keys()].length > 0 ? `?${query}` : ''}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { 'X-CSRFToken': csrfToken(), ...(inUrl ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) },
      body: inUrl ? null : query,
      signal: init.signal ?? null,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError('Unable to reach the server', 'NETWORK', 0);
  }
  let body: Record<string, unknown>;
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    throw new ApiError(`Unexpected answer (HTTP ${response.status})`, 'BAD_RESPONSE', response.status);
  }
  if (response.status === 401) onUnauthorized();
  if (!response.ok || body['result'] !== 'success') {
    throw new ApiError(String(body['msg'] ?? `HTTP ${response.status}`), String(body['code'] ?? 'BAD_REQUEST'), response.status, body);
  }
  return body as T;
}

/**
 * Uploads one file (https://zulip.com/api/upload-file, `POST /json/user_uploads`, multipart with
 * the file as its one part) and resolves with its URL (`url`, or the older `uri`).
 */
export async function uploadFile(file: File): Promise<{ url: string; filename: string }> {
  const body = new FormData();
  body.append('file', file, file.name);
  let response: Response;
  try {
    response = await fetch('/json/user_uploads', { method: 'POST', credentials: 'same-origin', headers: { 'X-CSRFToken': csrfToken() }, body });
  } catch {
    throw new ApiError('Unable to reach the server', 'NETWORK', 0);
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status === 404 && answer['result'] !== 'error') throw new ApiError('Uploads are not available on this server', 'NOT_FOUND', 404);
  if (!response.ok || answer['result'] !== 'success') {
    throw new ApiError(String(answer['msg'] ?? `Upload failed (HTTP ${response.status})`), String(answer['code'] ?? 'BAD_REQUEST'), response.status, answer);
  }
  return { url: String(answer['url'] ?? answer['uri']), filename: String(answer['filename'] ?? file.name) };
}
