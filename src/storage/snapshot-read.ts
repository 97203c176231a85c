/**
 * Reading a stored realm snapshot back (layout in snapshot-store.ts), verifying everything on the
 * way: the header's checksum and shape, that core and names belong to that header (their CRCs are
 * in it), every column's metadata and every chunk's checksum bound to its key.
 */
import { BYTES_PER_ELEMENT, Column } from '../domain/column.js';
import { decodeColumnMeta, decodeRecord, openChunk, StorageCorruptionError } from './codec.js';
import type { Store } from './lmdb.js';

/** Snapshot layout version (header `format`). */
export const SNAPSHOT_FORMAT = 1;

/** Whether this machine stores typed arrays little-endian (recorded in every snapshot header). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The CRC-32 stored in a codec blob's header (bytes 1–4). */
export const storedCrc = (blob: Uint8Array): number => new DataView(blob.buffer, blob.byteOffset, blob.byteLength).getUint32(1);

type SnapshotTable = Store['snapshot'];

/** A realm snapshot as read back: the state at log seq `seq`. */
export interface Snapshot {
  /** Last log seq folded into this state. */
  seq: number;
  /** The realm's state without its columns (whatever object was passed to `writeSnapshot`). */
  core: object;
  /** Restored columns by name (no chunk dirty). */
  columns: Record<string, Column>;
}

/** The snapshot header blob. */
export interface Header {
  format: number;
  seq: number;
  coreCrc: number;
  namesCrc: number;
  littleEndian: boolean;
}

/**
 * The latest snapshot of `realmId` in the `snapshot` table, or null if it has none. Verifies every
 * checksum, the header/core/names pairing, column shapes and chunk sizes; throws
 * `StorageCorruptionError` on any mismatch (check `version` for a snapshot format or byte order
 * this build can't read).
 */
export function readStoredSnapshot(db: SnapshotTable, realmId: number): Snapshot | null {
  const headerBytes = db.getBinary([realmId, 'header']);
  if (headerBytes === undefined) return null;
  const what = 'snapshot header';
  const h = decodeRecord(headerBytes, { realmId, what }) as Partial<Header>;
  if (
    typeof h.format !== 'number' ||
    !Number.isSafeInteger(h.seq) ||
    h.seq! < 0 ||
    typeof h.coreCrc !== 'number' ||
    typeof h.namesCrc !== 'number' ||
    typeof h.littleEndian !== 'boolean'
  ) {
    throw new StorageCorruptionError('shape', 'malformed snapshot header', { realmId, what });
  }
  if (h.format > SNAPSHOT_FORMAT) {
    throw new StorageCorruptionError('version', `snapshot format ${h.format} is newer than this build's ${SNAPSHOT_FORMAT}`, { realmId, what });
  }
  if (h.littleEndian !== LITTLE_ENDIAN) {
    throw new StorageCorruptionError('version', `snapshot was written on a machine of the other byte order`, { realmId, what });
  }
  const core = readTied(db, realmId, 'core', h.coreCrc);
  const names = (readTied(db, realmId, 'names', h.namesCrc) as { names?: unknown }).names;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new StorageCorruptionError('shape', 'malformed column name list', { realmId, what: 'snapshot names' });
  }
  const columns: Record<string, Column> = {};
  for (const name of names as string[]) columns[name] = readColumn(db, realmId, name);
  return { seq: h.seq!, core, columns };
}

/** Reads the codec blob `[realmId, part]` and checks that the header's CRC names it. */
function readTied(db: SnapshotTable, realmId: number, part: 'core' | 'names', crc: number): object {
  const what = `snapshot ${part}`;
  const bytes = db.getBinary([realmId, part]);
  if (bytes === undefined) throw new StorageCorruptionError('missing', `${what} is missing`, { realmId, what });
  const value = decodeRecord(bytes, { realmId, what });
  if (storedCrc(bytes) !== crc) {
    throw new StorageCorruptionError('mismatch', `${what} does not belong to the snapshot header (CRC differs)`, { realmId, what });
  }
  return value;
}

function readColumn(db: SnapshotTable, realmId: number, name: string): Column {
  const what = `snapshot column ${JSON.stringify(name)}`;
  const metaBytes = db.getBinary([realmId, 'colmeta', name]);
  if (metaBytes === undefined) throw new StorageCorruptionError('missing', 'column metadata is missing', { realmId, what });
  const shape = decodeColumnMeta(metaBytes, realmId, name, { realmId, what });
  const column = new Column(shape.kind, shape.chunkBits);
  const payloadBytes = column.chunkSize * BYTES_PER_ELEMENT[shape.kind];
  for (let i = 0; i < shape.chunks; i++) {
    const context = { realmId, what: `${what} chunk ${i}` };
    // getBinaryFast: a reused buffer whose `length` is the value's; restoreChunk copies it.
    const fast = db.getBinaryFast([realmId, 'col', name, i]);
    if (fast === undefined) throw new StorageCorruptionError('missing', 'chunk is missing', context);
    const bytes = new Uint8Array(fast.buffer, fast.byteOffset, fast.length);
    column.restoreChunk(i, openChunk(bytes, realmId, name, i, payloadBytes, context));
  }
  column.restoreLength(shape.length);
  return column;
}

