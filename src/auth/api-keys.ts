/**
 * API keys (https://zulip.com/api/http-headers): 32 characters of [A-Za-z0-9], compared in constant time.
 */
import { randomBytes } from 'node:crypto';

/** Shape of a well-formed key. */
export const API_KEY_PATTERN = /^[A-Za-z0-9]{32}$/;

/** A random string of `length` characters from [A-Za-z0-9] (Zulip: URL-safe base64 minus `-`/`_`). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) out += randomBytes(length + 16).toString('base64url').replace(/[-_]/g, '');
  return out.slice(0, length);
}

/**
 * Constant-time string equality (lengths are not secret): every UTF-16 code unit is compared,
 * whatever differs first. Allocation-free (it runs on every API request's authentication).
 */
export function keysEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
