/**
 * `GET /static/generated/emoji/emoji_api.json`: the server emoji data that `/register`'s
 * `server_emoji_data_url` names (https://zulip.com/api/register-queue; Zulip serves the file
 * statically, so no authentication and no JSON envelope). Built once from `emoji_names.json`
 * (`domain/emoji.ts serverEmojiData`), gzip-compressed once for clients that accept it, with an
 * ETag (a matching `If-None-Match` gets 304) and a day of caching (the URL has no content hash).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { serverEmojiData } from '../domain/emoji.js';
import type { RawAnswer, RawRoute } from './raw-route.js';
import type { ApiRequest } from './registry.js';

/** The path `server_emoji_data_url` points at (under the realm's URL). */
export const SERVER_EMOJI_DATA_PATH = '/static/generated/emoji/emoji_api.json';

/** One day, seconds: long enough to spare the network, short enough to pick up an upgrade. */
const MAX_AGE_SECONDS = 86400;

interface Encoded {
  raw: Uint8Array;
  gzip: Uint8Array;
  etag: string;
}

let encoded: Encoded | undefined;

function encode(): Encoded {
  if (encoded !== undefined) return encoded;
  const raw = Buffer.from(JSON.stringify(serverEmojiData()));
  encoded = { raw, gzip: gzipSync(raw, { level: 9 }), etag: `"${createHash('sha256').update(raw).digest('hex').slice(0, 32)}"` };
  return encoded;
}

/** Whether the `Accept-Encoding` header admits gzip (q=0 refuses it). */
function acceptsGzip(header: string | undefined): boolean {
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (name?.trim().toLowerCase() !== 'gzip') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** The raw route serving the emoji data file. */
export function serverEmojiDataRoute(): RawRoute {
  return {
    name: SERVER_EMOJI_DATA_PATH,
    matches: (path) => path === SERVER_EMOJI_DATA_PATH,
    async handle(req: ApiRequest): Promise<RawAnswer> {
      const data = encode();
      const common = { ETag: data.etag, 'Cache-Control': `public, max-age=${MAX_AGE_SECONDS}`, Vary: 'Accept-Encoding' };
      if (req.headers['if-none-match'] === data.etag) return { status: 304, headers: common, body: new Uint8Array(0) };
      const gzip = acceptsGzip(req.headers['accept-encoding']);
      return {
        status: 200,
        headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', ...common, ...(gzip && { 'Content-Encoding': 'gzip' }) },
        body: gzip ? data.gzip : data.raw,
      };
    },
  };
}
