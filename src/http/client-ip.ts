/**
 * Who is really on the other end of a request behind a reverse proxy (forwarded headers are
 * trusted only from configured proxies).
 *
 * `--trusted-proxies` lists the CIDRs of the proxies in front of parley (default loopback:
 * `127.0.0.0/8,::1`). Only when the TCP peer is one of them are `X-Forwarded-For` and
 * `X-Forwarded-Proto` believed; from anyone else they are ignored, so a client cannot choose the
 * address its rate limits and log lines are filed under. This is nginx's
 * `set_real_ip_from` + `real_ip_recursive on` and Zulip's `LOADBALANCER_IPS`
 * (zerver/middleware.py `DetectProxyMisconfiguration`, `ProxyMiddleware`).
 */
import { BlockList, isIP } from 'node:net';

/** A malformed `--trusted-proxies` entry; the CLI reports it as a usage error (exit 2). */
export class TrustedProxiesError extends Error {}

/** What the functions below read from a request (uWS `RequestHead` and `ApiRequest` both fit). */
export interface ForwardedRequest {
  /** The TCP peer's address as text. */
  readonly remoteAddress: string;
  /** Header names lower-case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/** An IPv4 address written as IPv4-mapped IPv6 (`::ffff:10.0.0.1`) → plain IPv4; brackets and zone dropped. */
export function normalizeIp(address: string): string {
  let ip = address.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const zone = ip.indexOf('%');
  if (zone >= 0) ip = ip.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? mapped[1]! : ip.toLowerCase();
}

/** How many peers' `TrustedProxies.has` answers are kept. */
const MAX_CACHED_ANSWERS = 4096;

/** The CIDR set of `--trusted-proxies`. */
export class TrustedProxies {
  private constructor(
    private readonly list: BlockList,
    /** The entries as given, normalized (`10.0.0.0/8`, `::1/128`), for messages and print-config. */
    readonly entries: readonly string[],
  ) {}

  /**
   * Parses a comma- or space-separated list of addresses and CIDRs (`127.0.0.0/8,::1,10.1.2.3`).
   * An empty string trusts nobody. Throws TrustedProxiesError naming the bad entry.
   */
  static parse(spec: string): TrustedProxies {
    const list = new BlockList();
    const entries: string[] = [];
    for (const raw of spec.split(/[\s,]+/)) {
      if (raw === '') continue;
      const [addressPart, prefixPart, extra] = raw.split('/');
      const address = normalizeIp(addressPart!);
      const family = isIP(address);
      const max = family === 4 ? 32 : 128;
      const prefix = prefixPart === undefined ? max : /^\d{1,3}$/.test(prefixPart) ? Number(prefixPart) : NaN;
      if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
        throw new TrustedProxiesError(`--trusted-proxies: '${raw}' is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1)`);
      }
      list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
      entries.push(`${address}/${prefix}`);
    }
    return new TrustedProxies(list, entries);
  }

  /**
   * Answers of `has` by raw address: `BlockList.check` builds a `SocketAddress` per call, ~3% of a
   * send's CPU (bench/PROFILE.md), and a server sees few distinct peers. The list never changes.
   * A plain Map, oldest entry dropped beyond 4,096: lru-cache's `get` allocated an options object
   * per call, twice per request, and recency buys nothing for a handful of peers.
   */
  private readonly answers = new Map<string, boolean>();

  /** Whether `address` (IPv4, IPv6 or IPv4-mapped IPv6) is a trusted proxy. False for non-addresses. */
  has(address: string): boolean {
    let answer = this.answers.get(address);
    if (answer === undefined) {
      const ip = normalizeIp(address);
      const family = isIP(ip);
      answer = family !== 0 && this.list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
      if (this.answers.size >= MAX_CACHED_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
      this.answers.set(address, answer);
    }
    return answer;
  }
}

/** The comma-separated values of a header, trimmed, empty ones dropped. */
function headerList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * The client's IP address: the TCP peer, unless the peer is a trusted proxy, then the
 * `X-Forwarded-For` chain is walked from the right (the hop nearest parley) past every trusted
 * proxy; the first untrusted address is the client. When every hop is trusted the leftmost one
 * is. A malformed entry stops the walk at the hop that reported it (never believed as a client
 * address). Returned normalized (`normalizeIp`).
 */
export function clientIp(request: ForwardedRequest, trusted: TrustedProxies): string {
  let client = normalizeIp(request.remoteAddress);
  if (!trusted.has(client)) return client;
  const forwardedFor = request.headers['x-forwarded-for'];
  if (forwardedFor === undefined) return client;
  const hops = headerList(forwardedFor);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]!);
    if (isIP(hop) === 0) break;
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}

/**
 * The scheme the client used: `https` when the TCP peer is a trusted proxy whose
 * `X-Forwarded-Proto` says so (its last value, set by the proxy nearest parley), else `http`
 * (parley itself speaks plain HTTP).
 */
export function requestScheme(request: ForwardedRequest, trusted: TrustedProxies): 'http' | 'https' {
  if (!trusted.has(request.remoteAddress)) return 'http';
  const forwardedProto = request.headers['x-forwarded-proto'];
  if (forwardedProto === undefined) return 'http';
  const protos = headerList(forwardedProto);
  return protos.at(-1)?.toLowerCase() === 'https' ? 'https' : 'http';
}
