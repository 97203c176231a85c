/**
 * `GET /external_content/{hmac}/{hex url}`: the image proxy Zulip runs as camo (go-camo behind
 * nginx; URLs built by zerver/lib/camo.py `get_camo_url`, here `markdown/plugins/inline-previews.ts`
 * `camoUrl`), so clients never contact third-party hosts and stored messages never embed them.
 *
 * Safety:
 * - only URLs the server signed are fetched: the HMAC-SHA1 of the URL under the server's camo key
 *   must match (compared in constant time), else 403;
 * - http(s) only, and every address connected to (the first and each redirect hop, checked in
 *   the socket's DNS lookup, so DNS rebinding cannot slip in) must be public: loopback, private,
 *   link-local, CGNAT, multicast and reserved ranges are refused (`allowLoopback` is a test hook);
 * - at most 3 redirects, `timeoutMs` for the whole fetch, `maxBytes` per response (checked on
 *   Content-Length and while streaming), only `image/*` and `video/*` answers are passed on,
 *   SVG never (it can run script), always with `nosniff` and a restrictive CSP.
 * A refused or failed fetch is a JSON 404 (Zulip's camo answers 404 too), never a 500.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpGet, type IncomingMessage } from 'node:http';
import { request as httpsGet } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Errors, ZulipError } from '../errors.js';
import { errorResponse, type ApiRequest, type ApiResponse } from '../api/registry.js';
import type { RawAnswer, RawRoute } from '../api/raw-route.js';

const PREFIX = '/external_content/';

/** Options of the proxy. */
export interface ExternalContentOptions {
  /** The camo key (HMAC key) the server signs URLs with. */
  key: string;
  /** Largest response body passed on, bytes (default 10 MiB). */
  maxBytes?: number;
  /** Whole-fetch time limit, milliseconds (default 10 s). */
  timeoutMs?: number;
  /** Test hook: allow 127.0.0.0/8 and ::1 targets (never in production). */
  allowLoopback?: boolean;
}

/** Non-public IPv4/IPv6 ranges (RFC 6890 special-purpose registries). */
function blockedRanges(allowLoopback: boolean): BlockList {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
    ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ];
  if (!allowLoopback) v4.push(['127.0.0.0', 8]);
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  const v6: Array<[string, number]> = [['::', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32], ['100::', 64]];
  if (!allowLoopback) v6.push(['::1', 128]);
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

/** Whether `address` (an IP literal) may be fetched from. IPv4-mapped IPv6 is judged as IPv4. */
export function isPublicAddress(address: string, allowLoopback = false): boolean {
  const blocked = allowLoopback ? BLOCKED_TEST : BLOCKED;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address;
  const family = isIP(ip);
  if (family === 0) return false;
  return !blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
const BLOCKED = blockedRanges(false);
const BLOCKED_TEST = blockedRanges(true);

/** The URL a valid `{hmac}/{hex}` pair signs, or null (bad digest, bad hex, not http(s)). */
export function verifiedUrl(digestHex: string, urlHex: string, key: string): string | null {
  if (!/^[0-9a-f]{40}$/.test(digestHex) || !/^(?:[0-9a-f]{2})+$/.test(urlHex)) return null;
  const bytes = Buffer.from(urlHex, 'hex');
  const expected = createHmac('sha1', key).update(bytes).digest();
  if (!timingSafeEqual(expected, Buffer.from(digestHex, 'hex'))) return null;
  const url = bytes.toString('utf8');
  return /^https?:\/\//i.test(url) ? url : null;
}

class Refused extends Error {}

/** A DNS lookup that refuses non-public addresses (runs for every connection, redirects included). */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const bad = addresses.find((a) => !isPublicAddress(a.address, allowLoopback));
      if (bad !== undefined || addresses.length === 0) return callback(new Refused(`refused address for ${hostname}`), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** One GET with the guard; resolves with the response (body unread). */
function get(url: URL, allowLoopback: boolean, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsGet : httpGet;
    // An IP literal host skips the DNS lookup: check it here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0 && !isPublicAddress(literal, allowLoopback)) return reject(new Refused('refused address'));
    const lookup = allowLoopback ? GUARDED_TEST : GUARDED;
    const req = send(url, { method: 'GET', lookup, signal, headers: { 'User-Agent': 'parley-camo', Accept: 'image/*, video/*' } }, resolve);
    req.on('error', reject);
    req.end();
  });
}
const GUARDED = guardedLookup(false);
const GUARDED_TEST = guardedLookup(true);

/**
 * The DNS lookup that refuses non-public addresses (loopback too unless `allowLoopback`), for
 * other outgoing requests that must follow the same rule (http/webhook-client.ts). Its refusal
 * is an error whose message starts with "refused address".
 */
export function publicOnlyLookup(allowLoopback: boolean): LookupFunction {
  return allowLoopback ? GUARDED_TEST : GUARDED;
}

/** Reads at most `maxBytes` of a body, or rejects. */
async function readBounded(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      res.destroy();
      throw new Refused('too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Fetches a signed URL within the limits (see the module header). */
export async function fetchExternal(url: string, options: ExternalContentOptions): Promise<{ contentType: string; body: Buffer }> {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  let target = new URL(url);
  for (let hop = 0; hop <= 3; hop++) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Refused('scheme');
    const res = await get(target, options.allowLoopback === true, signal);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location !== undefined) {
      res.resume();
      target = new URL(res.headers.location, target);
      continue;
    }
    if (status !== 200) {
      res.resume();
      throw new Refused(`status ${status}`);
    }
    const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!/^(image|video)\/[a-z0-9.+-]+$/.test(contentType) || contentType === 'image/svg+xml') {
      res.resume();
      throw new Refused(`content type ${contentType}`);
    }
    const declared = Number(res.headers['content-length'] ?? '0');
    if (declared > maxBytes) {
      res.destroy();
      throw new Refused('too large');
    }
    return { contentType, body: await readBounded(res, maxBytes) };
  }
  throw new Refused('too many redirects');
}

/** The `/external_content/` route. */
export function externalContentRoute(options: ExternalContentOptions): RawRoute {
  return {
    name: '/external_content/{digest}/{url}',
    matches: (path) => path.startsWith(PREFIX),
    async handle(req: ApiRequest): Promise<RawAnswer | ApiResponse> {
      const [digest = '', hex = '', ...rest] = req.path.slice(PREFIX.length).split('/');
      const url = rest.length === 0 ? verifiedUrl(digest, hex, options.key) : null;
      if (url === null) return errorResponse(new ZulipError('BAD_REQUEST', 'Invalid signature', 403));
      try {
        const { contentType, body } = await fetchExternal(url, options);
        return {
          status: 200,
          headers: {
            'Content-Type': contentType,
            'Cache-Control': 'public, max-age=86400',
            'X-Content-Type-Options': 'nosniff',
            'Content-Security-Policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
          },
          body,
        };
      } catch {
        return errorResponse(Errors.notFound());
      }
    },
  };
}
