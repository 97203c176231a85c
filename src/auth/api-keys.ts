/**
 * API keys (https://zulip.com/api/http-headers): 32 characters of [A-Za-z0-9], compared in constant time.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Shape of a well-formed key. */
export const API_KEY_PATTERN = /^[A-Za-z0-9]{32}$/;

/** A random string of `length` characters from [A-Za-z0-9] (Zulip: URL-safe base64 minus `-`/`_`). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) out += randomBytes(length + 16).toString('base64url').replace(/[-_]/g, '');
  return out.slice(0, length);
}

/** Constant-time string equality (lengths are not secret). */
export function keysEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
