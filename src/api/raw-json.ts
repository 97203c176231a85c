/**
 * Already-serialized JSON inside a response body: an endpoint that has a value as JSON (cached
 * message objects, events/wire/message-json.ts) puts it in its outcome as `new RawJson(chunks)`,
 * and `encodeBody` copies the bytes in instead of serializing the value again. Chunks are UTF-8
 * bytes (or short strings, encoded once here): encoding a large JavaScript string to UTF-8 costs
 * more than building it (~1 µs per KB), so cached text is kept as bytes.
 */

/** One chunk of raw JSON: UTF-8 bytes, or a string to encode as UTF-8. */
export type JsonChunk = string | Uint8Array;

/** JSON to splice into a response body as is; its chunks, concatenated, must be one JSON value. */
export class RawJson {
  constructor(readonly chunks: readonly JsonChunk[]) {}
}

/**
 * A response body as sent: `JSON.stringify(body)` followed by a newline, except that top-level
 * `RawJson` values are written as their bytes (only the top level is looked at: that is where
 * endpoints put them). A string when there is no `RawJson`, else a Buffer (UTF-8). Throws what
 * `JSON.stringify` throws (a cycle, a BigInt).
 */
export function encodeBody(body: object): string | Buffer {
  let raw = false;
  for (const key in body) {
    if ((body as Record<string, unknown>)[key] instanceof RawJson) {
      raw = true;
      break;
    }
  }
  if (!raw) return JSON.stringify(body) + '\n';
  const chunks: JsonChunk[] = [];
  let separator = '{';
  for (const key in body) {
    const value = (body as Record<string, unknown>)[key];
    if (value instanceof RawJson) {
      chunks.push(`${separator}${JSON.stringify(key)}:`, ...value.chunks);
    } else {
      const json = JSON.stringify(value);
      if (json === undefined) continue; // JSON.stringify leaves out undefined and functions
      chunks.push(`${separator}${JSON.stringify(key)}:${json}`);
    }
    separator = ',';
  }
  chunks.push('}\n');
  return concatUtf8(chunks);
}

/**
 * The chunks as one Buffer (strings encoded as UTF-8): sized first, then written into a single
 * allocation, with no intermediate Buffer per string chunk.
 */
export function concatUtf8(chunks: readonly JsonChunk[]): Buffer {
  let total = 0;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    total += typeof c === 'string' ? Buffer.byteLength(c) : c.length;
  }
  const out = Buffer.allocUnsafe(total);
  let offset = 0;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    if (typeof c === 'string') offset += out.write(c, offset, 'utf8');
    else {
      out.set(c, offset);
      offset += c.length;
    }
  }
  return out;
}
