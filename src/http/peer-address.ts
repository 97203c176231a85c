/**
 * The TCP peer's address as text, exactly as uWS's `getRemoteAddressAsText()` writes it: IPv4
 * dotted (`127.0.0.1`); IPv6 as eight groups of four lower-case hex digits, IPv4-mapped ones too
 * (`0000:0000:0000:0000:0000:ffff:7f00:0001` on a `::` listener, `…:0000:0001` for `::1`).
 *
 * Per request that text cost uWS a formatted copy and us a TextDecoder call and a new string
 * (issue 17). The binary address (`getRemoteAddress()`, 4 or 16 bytes) is cheaper to get, and a
 * server sees few peers: IPv4 peers and the IPv6 forms that carry 32 bits (IPv4-mapped
 * `::ffff:a.b.c.d`, and `::a.b.c.d`, which includes `::1`) are looked up by those 32 bits in a
 * bounded table filled from uWS's own text, so the answer is uWS's text by construction. Other IPv6
 * peers take uWS's text every time.
 */
import type { HttpResponse } from 'uWebSockets.js';

/** Peers remembered per table; past that the oldest is dropped (a table never grows further). */
export const MAX_REMEMBERED_PEERS = 4096;

const textDecoder = new TextDecoder();

/** uWS's text by the address's last 32 bits (as a signed int32: a small integer key). */
const ipv4Texts = new Map<number, string>();
const mappedTexts = new Map<number, string>();
const zeroPrefixTexts = new Map<number, string>();

/** uWS's text of the peer of `res` (see the module header). Call only before `res` ends or aborts. */
export function peerAddressText(res: HttpResponse): string {
  const bytes = new Uint8Array(res.getRemoteAddress());
  let table: Map<number, string> | null = null;
  let offset = 0;
  if (bytes.length === 4) table = ipv4Texts;
  else if (bytes.length === 16 && zeroUpTo(bytes, 10)) {
    offset = 12;
    if (bytes[10] === 0xff && bytes[11] === 0xff) table = mappedTexts;
    else if (bytes[10] === 0 && bytes[11] === 0) table = zeroPrefixTexts;
  }
  if (table === null) return uwsText(res);
  const key = (bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!;
  let text = table.get(key);
  if (text === undefined) {
    text = uwsText(res);
    if (table.size >= MAX_REMEMBERED_PEERS) table.delete(table.keys().next().value!);
    table.set(key, text);
  }
  return text;
}

/** Whether `bytes[0..end)` are all zero. */
function zeroUpTo(bytes: Uint8Array, end: number): boolean {
  for (let i = 0; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}

function uwsText(res: HttpResponse): string {
  return textDecoder.decode(res.getRemoteAddressAsText());
}
