/**
 * Routes answered with bytes rather than Zulip's JSON envelope, outside `/api/v1` (Zulip serves
 * these through nginx and Django views that return files or redirects): avatars and custom emoji
 * under `/user_avatars/`, the `/thumbnail` redirect, the `/external_content/` image proxy and the
 * emoji data file `/static/generated/emoji/emoji_api.json` (tried before the built app's files).
 * `http/server.ts` tries them, in order, for GET and HEAD requests before the API prefix check.
 */
import type { ApiRequest, ApiResponse } from './registry.js';

/** A byte answer: status, headers (Content-Type included) and the body. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** A route answered with bytes (or, for errors, a JSON `ApiResponse`). */
export interface RawRoute {
  /** Route template for logs and metrics, e.g. `/user_avatars/{path}`. */
  readonly name: string;
  matches(path: string): boolean;
  handle(req: ApiRequest): Promise<RawAnswer | ApiResponse>;
}

/** True for a byte answer (a JSON `ApiResponse` has an object or null body). */
export function isRawAnswer(answer: RawAnswer | ApiResponse): answer is RawAnswer {
  return answer.body instanceof Uint8Array;
}
