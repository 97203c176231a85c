/**
 * HTTP Basic `Authorization` header parsing for `/api/v1` (https://zulip.com/api/http-headers, Zulip's
 * `get_basic_credentials`). Pure: no realm or user lookup happens here.
 */
import { Errors, ZulipError } from '../errors.js';

/** Credentials from a well-formed Basic header, whitespace-stripped. Neither part is validated. */
export interface BasicCredentials {
  readonly email: string;
  readonly apiKey: string;
}

const WHITESPACE = /\s+/;
const NOT_BASE64 = /[^A-Za-z0-9+/=]/g;
const CANONICAL_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes base64 the way Python's non-strict `base64.b64decode` does: characters outside the
 * alphabet are discarded, then the data must be correctly padded. Returns null when Python would
 * raise.
 */
function decodeBase64(token: string): Uint8Array | null {
  if (CANONICAL_BASE64.test(token)) return token.length % 4 === 0 ? Buffer.from(token, 'base64') : null;
  const s = token.replace(NOT_BASE64, '');
  const eq = s.indexOf('=');
  const data = eq < 0 ? s : s.slice(0, eq);
  const rem = data.length % 4;
  if (rem === 1) return null;
  if (rem !== 0 && s.length - data.length < 4 - rem) return null;
  return Buffer.from(data, 'base64');
}

/**
 * Parses an `Authorization` header value (https://zulip.com/api/http-headers; Zulip's
 * zerver/decorator.py `get_basic_credentials`):
 * - `undefined` (no header) → `null`;
 * - not exactly two whitespace-separated tokens, undecodable base64 or UTF-8, or not exactly one
 *   `:` in the credentials → `Errors.invalidBasicAuthHeader()` (401 UNAUTHORIZED,
 *   `WWW-Authenticate: Basic realm="zulip"`);
 * - scheme other than `basic` (case-insensitive) → `Errors.notBasicAuth()` (400 BAD_REQUEST);
 * - else `{email, apiKey}`, each with surrounding whitespace stripped.
 * Errors are returned, never thrown.
 */
export function parseBasicAuth(header: string | undefined): BasicCredentials | ZulipError | null {
  if (header === undefined) return null;
  const cached = parsedHeaders.get(header);
  if (cached !== undefined) return cached;
  const parsed = parseUncached(header);
  if (!(parsed instanceof ZulipError)) {
    // Clients repeat the same header on every request; the parse is pure, so remember it.
    if (parsedHeaders.size >= MAX_CACHED_HEADERS) parsedHeaders.clear();
    parsedHeaders.set(header, parsed);
  }
  return parsed;
}

const MAX_CACHED_HEADERS = 10_000;
const parsedHeaders = new Map<string, BasicCredentials>();

function parseUncached(header: string): BasicCredentials | ZulipError {
  const tokens = header.trim().split(WHITESPACE);
  if (tokens.length !== 2) return Errors.invalidBasicAuthHeader();
  const [scheme, token] = tokens as [string, string];
  if (scheme.toLowerCase() !== 'basic') return Errors.notBasicAuth();
  const bytes = decodeBase64(token);
  if (bytes === null) return Errors.invalidBasicAuthHeader();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return Errors.invalidBasicAuthHeader();
  }
  const parts = text.split(':');
  if (parts.length !== 2) return Errors.invalidBasicAuthHeader();
  return Object.freeze({ email: parts[0]!.trim(), apiKey: parts[1]!.trim() });
}
