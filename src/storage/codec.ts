/**
 * Byte formats of everything parley persists (src/README.md: persistence). Log records, message bodies and
 * snapshot cores/headers are self-checking msgpack blobs; snapshot column chunks and column
 * metadata have fixed binary layouts (end of this file).
 *
 * ```
 * offset 0  1 byte   codec version (CODEC_VERSION)
 * offset 1  4 bytes  CRC-32 (IEEE, big-endian) of the payload bytes
 * offset 5  …        payload: standard MessagePack (no msgpackr records/structures extensions,
 *                    so an old blob decodes without any shared state)
 * ```
 *
 * A blob that is too short, has an unknown version byte, fails its CRC or whose payload does not
 * decode to a plain object raises `StorageCorruptionError`; the server must refuse to start on it
 * rather than load partial data (src/README.md, persistence).
 */
import CRC32 from 'crc-32';
import { Packr } from 'msgpackr';
import * as zlib from 'node:zlib';
import type { ColumnKind } from '../domain/column.js';

/** Version byte written in front of every blob. Bump when the blob layout changes. */
export const CODEC_VERSION = 1;

/** Bytes before the payload: version (1) + CRC-32 (4). */
export const CODEC_HEADER_BYTES = 5;

/** Which integrity check failed. */
export type CorruptionCheck =
  | 'truncated'
  | 'version'
  | 'crc'
  | 'decode'
  | 'shape'
  | 'gap'
  | 'missing'
  | 'mismatch';

/** Where a corrupt blob was found; every field is optional and only used for the message. */
export interface CorruptionContext {
  /** Realm whose data is corrupt. */
  realmId?: number;
  /** Log sequence number of the corrupt record. */
  seq?: number;
  /** Human description of the blob, e.g. "log record", "body of message 12", "snapshot core". */
  what?: string;
}

/**
 * Persisted data failed an integrity check (checksum, version, contiguity, shape). The message
 * names the realm, the seq and the check, e.g.
 * `storage corruption in realm 3, log record seq 17: CRC mismatch (stored 0x1234abcd, computed …)`.
 * Never caught to continue: the realm (and the server) must not start with partial data.
 */
export class StorageCorruptionError extends Error {
  readonly realmId: number | undefined;
  readonly seq: number | undefined;
  readonly check: CorruptionCheck;

  constructor(check: CorruptionCheck, detail: string, context: CorruptionContext = {}) {
    super(`storage corruption${describe(context)}: ${detail}`);
    this.name = 'StorageCorruptionError';
    this.check = check;
    this.realmId = context.realmId;
    this.seq = context.seq;
  }
}

function describe(context: CorruptionContext): string {
  const parts: string[] = [];
  if (context.realmId !== undefined) parts.push(`realm ${context.realmId}`);
  const what = context.what ?? (context.seq !== undefined ? 'log record' : undefined);
  if (what !== undefined || context.seq !== undefined) {
    parts.push([what, context.seq !== undefined ? `seq ${context.seq}` : undefined].filter(Boolean).join(' '));
  }
  return parts.length === 0 ? '' : ` in ${parts.join(', ')}`;
}

// Standard MessagePack only: `useRecords: false` keeps msgpackr's record extension (which needs
// shared structure definitions to decode) out of persisted bytes.
const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * CRC-32 (IEEE 802.3, the zlib/PNG polynomial) of `bytes` as an unsigned 32-bit integer.
 * `seed` continues a previous CRC (e.g. `crc32(b, crc32(a))` is the CRC of `a` followed by `b`).
 */
export function crc32(bytes: Uint8Array, seed?: number): number {
  if (bytes.length >= NATIVE_CRC_MIN_BYTES && nativeCrc32 !== undefined) return nativeCrc32(bytes, seed ?? 0);
  return CRC32.buf(bytes, seed === undefined ? undefined : seed | 0) >>> 0;
}

/**
 * zlib's CRC-32 (same polynomial; Node ≥ 20.15), undefined on older Node. It is ~3× faster than
 * the JavaScript table loop from ~2 KB up (snapshot chunks at restart) but slower below a few
 * hundred bytes (a log record), where the native call costs more than the loop.
 */
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
const NATIVE_CRC_MIN_BYTES = 512;

/**
 * Encodes a JSON-like object (a record, a body, a snapshot core) as a fresh
 * `[version][crc32][msgpack]` byte array whose bytes nothing else writes. Small results are
 * slices of Node's shared Buffer pool (`Buffer.allocUnsafe`; every byte is written here): a new
 * ArrayBuffer per record cost more than packing it on the send path.
 * Throws a plain `TypeError` if `record` is not a non-null object (a programming error).
 */
export function encodeRecord(record: object): Uint8Array {
  if (record === null || typeof record !== 'object') {
    throw new TypeError(`encodeRecord expects an object, got ${record === null ? 'null' : typeof record}`);
  }
  const payload = packr.pack(record);
  const out = Buffer.allocUnsafe(CODEC_HEADER_BYTES + payload.length);
  out[0] = CODEC_VERSION;
  out.writeUInt32BE(crc32(payload), 1);
  payload.copy(out, CODEC_HEADER_BYTES);
  return out;
}

/**
 * Standard MessagePack of `value` (any msgpack-able value), in a fresh array the caller may keep:
 * a part for `encodeRecordFromPacked`.
 */
export function packValue(value: unknown): Uint8Array {
  return Uint8Array.from(packr.pack(value));
}

/**
 * Encodes an object given as `[key, packValue(value)]` entries into exactly the bytes
 * `encodeRecord` gives for the object with those keys in that order: a MessagePack map spliced
 * from packed values, so that a large value that has not changed is not packed again (snapshot
 * cores, realm/core-encoder.ts). Keys must be distinct.
 */
export function encodeRecordFromPacked(entries: ReadonlyArray<readonly [key: string, packed: Uint8Array]>): Uint8Array {
  const keys = entries.map(([key]) => Uint8Array.from(packr.pack(key)));
  const n = entries.length;
  // map16 even for small maps, as msgpackr writes an object's header: the same bytes as `encodeRecord`.
  const head = n < 0x10000 ? Uint8Array.of(0xde, n >>> 8, n & 0xff) : Uint8Array.of(0xdf, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  let length = head.length;
  for (let i = 0; i < n; i++) length += keys[i]!.length + entries[i]![1].length;
  const out = Buffer.allocUnsafe(CODEC_HEADER_BYTES + length);
  let at = CODEC_HEADER_BYTES;
  out.set(head, at);
  at += head.length;
  for (let i = 0; i < n; i++) {
    out.set(keys[i]!, at);
    at += keys[i]!.length;
    out.set(entries[i]![1], at);
    at += entries[i]![1].length;
  }
  out[0] = CODEC_VERSION;
  out.writeUInt32BE(crc32(out.subarray(CODEC_HEADER_BYTES)), 1);
  return out;
}

/**
 * Decodes bytes written by `encodeRecord`, verifying length, version byte and CRC, and that the
 * payload is an object. `context` only enriches the error message.
 * Throws `StorageCorruptionError` (check `truncated` | `version` | `crc` | `decode` | `shape`).
 */
export function decodeRecord(bytes: Uint8Array, context: CorruptionContext = {}): object {
  if (bytes.length < CODEC_HEADER_BYTES + 1) {
    throw new StorageCorruptionError('truncated', `truncated blob (${bytes.length} bytes)`, context);
  }
  if (bytes[0] !== CODEC_VERSION) {
    throw new StorageCorruptionError(
      'version',
      `unknown codec version ${bytes[0]} (this build reads version ${CODEC_VERSION})`,
      context,
    );
  }
  const stored = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
  const payload = bytes.subarray(CODEC_HEADER_BYTES);
  const computed = crc32(payload);
  if (stored !== computed) {
    throw new StorageCorruptionError(
      'crc',
      `CRC mismatch, data corrupted or truncated (stored 0x${hex(stored)}, computed 0x${hex(computed)})`,
      context,
    );
  }
  let value: unknown;
  try {
    value = packr.unpack(payload);
  } catch (error) {
    throw new StorageCorruptionError('decode', `payload does not decode: ${(error as Error).message}`, context);
  }
  if (value === null || typeof value !== 'object') {
    throw new StorageCorruptionError('shape', `payload is ${value === null ? 'null' : typeof value}, not an object`, context);
  }
  return value;
}

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}

// ---------------------------------------------------------------------------------------------
// Snapshot column blobs (see snapshot-store.ts). Fixed binary layouts, no msgpack: a snapshot may
// hold tens of thousands of them and only the changed ones are encoded.

/** Bytes before a column chunk's raw typed-array bytes: version (1) + CRC-32 (4). */
export const CHUNK_HEADER_BYTES = 5;
const CHUNK_VERSION = 1;

/** Element kinds of a snapshot column, by their stored code (index). */
const KINDS = ['int32', 'uint32', 'uint16', 'uint8', 'float64'] as const satisfies readonly ColumnKind[];


const textEncoder = new TextEncoder();

/** CRC seed binding a blob to its place, so a blob stored under the wrong key fails its check. */
function placeSeed(place: string): number {
  return crc32(textEncoder.encode(place));
}

/** Per realm: column name → CRC-32 of `"<realmId>/<name>/"`. Chunks are sealed and opened by the thousand. */
const chunkPrefixCrcs = new Map<number, Map<string, number>>();
/** Names kept per realm before its cache starts over (two columns per user). */
const MAX_CACHED_PREFIXES = 200_000;

/**
 * `placeSeed("<realmId>/<name>/<chunkNo>")` without encoding and checksumming the whole place per
 * chunk: the prefix's CRC is cached per column, and the CRC continues over the chunk number's
 * decimal digits (ASCII, so `bstr` reads them as the bytes UTF-8 would give).
 */
function chunkSeed(realmId: number, name: string, chunkNo: number): number {
  let names = chunkPrefixCrcs.get(realmId);
  if (names === undefined) chunkPrefixCrcs.set(realmId, (names = new Map()));
  let prefix = names.get(name);
  if (prefix === undefined) {
    if (names.size >= MAX_CACHED_PREFIXES) names.clear();
    prefix = placeSeed(`${realmId}/${name}/`);
    names.set(name, prefix);
  }
  return CRC32.bstr(String(chunkNo), prefix | 0) >>> 0;
}

/**
 * Fills in the header of a chunk blob `[version u8][crc u32 BE][raw bytes]` whose raw bytes are
 * already in place. The CRC covers `"<realmId>/<name>/<chunkNo>"` followed by the raw bytes.
 */
export function sealChunk(blob: Uint8Array, realmId: number, name: string, chunkNo: number): void {
  blob[0] = CHUNK_VERSION;
  const crc = crc32(blob.subarray(CHUNK_HEADER_BYTES), chunkSeed(realmId, name, chunkNo));
  blob[1] = crc >>> 24;
  blob[2] = (crc >>> 16) & 0xff;
  blob[3] = (crc >>> 8) & 0xff;
  blob[4] = crc & 0xff;
}

/**
 * Verifies a chunk blob written by `sealChunk` for this place and returns a view of its raw bytes.
 * Throws `StorageCorruptionError` (`truncated` | `version` | `crc`).
 */
export function openChunk(
  bytes: Uint8Array,
  realmId: number,
  name: string,
  chunkNo: number,
  payloadBytes: number,
  context: CorruptionContext,
): Uint8Array {
  if (bytes.length !== CHUNK_HEADER_BYTES + payloadBytes) {
    throw new StorageCorruptionError('truncated', `chunk has ${bytes.length} bytes, expected ${CHUNK_HEADER_BYTES + payloadBytes}`, context);
  }
  if (bytes[0] !== CHUNK_VERSION) throw new StorageCorruptionError('version', `unknown chunk version ${bytes[0]}`, context);
  const payload = bytes.subarray(CHUNK_HEADER_BYTES);
  const stored = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
  if (stored !== crc32(payload, chunkSeed(realmId, name, chunkNo))) {
    throw new StorageCorruptionError('crc', 'chunk CRC mismatch', context);
  }
  return payload;
}

/** Shape of a stored column: element kind, log2 chunk size, element count, chunk count. */
export interface ColumnShape {
  kind: ColumnKind;
  chunkBits: number;
  length: number;
  chunks: number;
}

/**
 * Size of a column metadata blob: `[version u8][crc u32][kind u8][chunkBits u8][length f64]
 * [chunks u32]`, big-endian; the CRC covers `"<realmId>/<name>"` and bytes 5…18.
 */
export const COLUMN_META_BYTES = 19;
const COLUMN_META_VERSION = 1;

/** Writes `shape` as a column metadata blob into `target` (exactly `COLUMN_META_BYTES` long). */
export function encodeColumnMeta(target: Uint8Array, realmId: number, name: string, shape: ColumnShape): void {
  const view = new DataView(target.buffer, target.byteOffset, COLUMN_META_BYTES);
  target[0] = COLUMN_META_VERSION;
  target[5] = KINDS.indexOf(shape.kind);
  target[6] = shape.chunkBits;
  view.setFloat64(7, shape.length);
  view.setUint32(15, shape.chunks);
  view.setUint32(1, crc32(target.subarray(5, COLUMN_META_BYTES), placeSeed(`${realmId}/${name}`)));
}

/**
 * Verifies and decodes a column metadata blob for this place. Throws `StorageCorruptionError`
 * (`truncated` | `version` | `crc` | `shape`) — `shape` if the chunk count does not match the length.
 */
export function decodeColumnMeta(bytes: Uint8Array, realmId: number, name: string, context: CorruptionContext): ColumnShape {
  if (bytes.length !== COLUMN_META_BYTES) {
    throw new StorageCorruptionError('truncated', `column metadata has ${bytes.length} bytes, expected ${COLUMN_META_BYTES}`, context);
  }
  if (bytes[0] !== COLUMN_META_VERSION) throw new StorageCorruptionError('version', `unknown column metadata version ${bytes[0]}`, context);
  const view = new DataView(bytes.buffer, bytes.byteOffset, COLUMN_META_BYTES);
  if (view.getUint32(1) !== crc32(bytes.subarray(5, COLUMN_META_BYTES), placeSeed(`${realmId}/${name}`))) {
    throw new StorageCorruptionError('crc', 'CRC mismatch', context);
  }
  const kind = KINDS[bytes[5]!];
  const chunkBits = bytes[6]!;
  const length = view.getFloat64(7);
  const chunks = view.getUint32(15);
  if (kind === undefined || chunkBits > 24 || !Number.isSafeInteger(length) || length < 0 || chunks !== Math.ceil(length / 2 ** chunkBits)) {
    throw new StorageCorruptionError('shape', 'malformed column metadata', context);
  }
  return { kind, chunkBits, length, chunks };
}
