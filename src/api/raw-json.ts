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
 * One output buffer reused from response to response, so that a message list (20–30 KB of cached
 * message JSON) is not a fresh allocation each time: those were ~5 % of a list's CPU in page
 * faults, malloc and the GC they trigger (bench/PROFILE.md §11). A body larger than `maxBytes`
 * gets its own allocation.
 */
export class ScratchBuffer {
  private buffer: Buffer;

  /** `maxBytes`: the largest body written into the scratch; `initialBytes`: its first size. */
  constructor(
    private readonly maxBytes: number,
    initialBytes = 64 * 1024,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(Math.min(initialBytes, maxBytes));
  }

  /**
   * `bytes` bytes of uninitialized memory: a view of the scratch (grown up to `maxBytes`) that the
   * next `take` overwrites; a new Buffer above `maxBytes`; a slice of Node's shared pool below
   * half its size (`Buffer.allocUnsafe`'s own fast path, 4 KiB: a single message), which measured
   * cheaper than a view of the scratch.
   */
  take(bytes: number): Buffer {
    if (bytes < Buffer.poolSize >>> 1) return Buffer.allocUnsafe(bytes);
    if (bytes > this.maxBytes) return Buffer.allocUnsafeSlow(bytes);
    if (bytes > this.buffer.length) this.buffer = Buffer.allocUnsafeSlow(Math.min(this.maxBytes, Math.max(bytes, this.buffer.length * 2)));
    return this.buffer.subarray(0, bytes);
  }
}

/**
 * A response body as sent: `JSON.stringify(body)` followed by a newline, except that top-level
 * `RawJson` values are written as their bytes (only the top level is looked at: that is where
 * endpoints put them). A string when there is no `RawJson`, else a Buffer (UTF-8) — taken from
 * `scratch` when given, i.e. valid only until that scratch's next use. Throws what
 * `JSON.stringify` throws (a cycle, a BigInt).
 */
export function encodeBody(body: object, scratch?: ScratchBuffer): string | Buffer {
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
  return concatUtf8(chunks, scratch);
}

/**
 * The chunks as one Buffer (strings encoded as UTF-8): sized first, then written into a single
 * allocation (or `scratch`, see `encodeBody`), with no intermediate Buffer per string chunk.
 */
export function concatUtf8(chunks: readonly JsonChunk[], scratch?: ScratchBuffer): Buffer {
  let total = 0;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    total += typeof c === 'string' ? Buffer.byteLength(c) : c.length;
  }
  const out = scratch === undefined ? Buffer.allocUnsafe(total) : scratch.take(total);
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
