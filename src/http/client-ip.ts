/**
 * The client's IP address as text, for per-IP rate limits and logs: the one place that decides
 * it. Today the TCP peer's address (what uWS reports, e.g. `127.0.0.1` or a full IPv6 form);
 * forwarded headers (`X-Forwarded-For`) are to be trusted only from configured proxies.
 */
import type { HttpResponse } from 'uWebSockets.js';

const textDecoder = new TextDecoder();

/**
 * The client IP of the request being handled on `res`. Must be called synchronously in the uWS
 * handler. `headers` (lower-case names) are the request's, for proxy-aware versions.
 */
export function clientIp(res: HttpResponse, _headers: Readonly<Record<string, string>>): string {
  return textDecoder.decode(res.getRemoteAddressAsText());
}
