/**
 * Incremental realm snapshots (src/README.md: persistence). A snapshot is the realm state at log seq
 * `seq`: a msgpack-able `core` (everything but the big numeric columns) plus named `Column`s.
 * Only what changed since the previous snapshot is written again — dirty column chunks, the
 * metadata of columns whose length changed, the column name list if the set of names changed —
 * so a realm with a million messages costs the event loop a few chunk copies per snapshot, not a
 * rewrite of the realm. Incrementality is tracked per Column *object*: a column object this store
 * did not write, restore or `adoptColumns` is written in full, which is always correct.
 *
 * Layout in the `snapshot` table (binary values; byte formats in codec.ts):
 *
 * | key                               | value                                                   |
 * |-----------------------------------|---------------------------------------------------------|
 * | `[realmId, 'header']`             | codec blob `{format, seq, coreCrc, namesCrc, littleEndian}` |
 * | `[realmId, 'core']`               | codec blob of `core`                                    |
 * | `[realmId, 'names']`              | codec blob `{names: string[]}` (the snapshot's columns) |
 * | `[realmId, 'colmeta', name]`      | column metadata `{kind, chunkBits, length, chunks}`     |
 * | `[realmId, 'col', name, chunkNo]` | `[version][crc][raw typed-array bytes, 2^chunkBits elements]` |
 *
 * Everything of one snapshot is put in ONE synchronous run, i.e. one LMDB transaction (header
 * last): a reader sees the previous snapshot or the new one, never a mix. The header's `coreCrc`
 * and `namesCrc` tie core and names to it. Chunk bytes are stored raw in the platform's byte
 * order, recorded in the header. Reading and verifying a stored snapshot is snapshot-read.ts.
 */
import { Column } from '../domain/column.js';
import type { AppendLog } from './append-log.js';
import {
  CHUNK_HEADER_BYTES,
  COLUMN_META_BYTES,
  decodeRecord,
  encodeColumnMeta,
  encodeRecord,
  sealChunk,
} from './codec.js';
import type { KeyPart, Store } from './lmdb.js';
import { LITTLE_ENDIAN, readStoredSnapshot, SNAPSHOT_FORMAT, storedCrc, type Header, type Snapshot } from './snapshot-read.js';

export { SNAPSHOT_FORMAT, type Snapshot };

const MAX_KEY = Number.MAX_SAFE_INTEGER;
/** Longest synchronous stretch of checksum work before yielding to the event loop, in ms. */
const SLICE_MS = 2;

/** What one `writeSnapshot` wrote (for tests, logs and metrics). */
export interface SnapshotWriteStats {
  seq: number;
  /** Column chunks put (dirty, newly allocated, or all chunks of a column object not seen before). */
  chunksWritten: number;
  /** Column metadata entries put (columns that are new or whose length changed). */
  columnMetasWritten: number;
  /** Columns present in the previous snapshot but not in this one (deleted). */
  columnsRemoved: number;
  /** Bytes put (chunks, metadata, names, core, header). */
  bytesWritten: number;
  /** Duration of the synchronous part of the call (taking and pinning dirty chunks, encoding `core`), in ms. */
  syncMs: number;
}

/** What is on disk for one column: the object persisted (or restored) and its shape then. */
interface PersistedColumn {
  column: Column;
  chunks: number;
  length: number;
}

interface PersistedRealm {
  names: string[];
  columns: Map<string, PersistedColumn>;
}

interface PlannedColumn {
  name: string;
  column: Column;
  taken: number[];
  chunkNos: number[];
  /** Remove stored chunks numbered >= this (a replaced column may have had more). */
  pruneFrom: number | undefined;
  metaChanged: boolean;
  chunks: number;
  length: number;
}

/** One snapshot's worth of blobs, ready to put. */
interface Prepared {
  seq: number;
  planned: PlannedColumn[];
  /** Bytes of all chunk blobs to write (headers included). */
  chunkBytes: number;
  metas: Array<[key: KeyPart[], blob: Uint8Array]>;
  names: Uint8Array | undefined;
  removedNames: string[];
  core: Uint8Array;
  header: Uint8Array;
}

/** A sealed chunk blob and its key. */
type ChunkBlob = [key: KeyPart[], blob: Uint8Array];

/** After a failed or abandoned write: the taken chunks are dirty again, and nothing stays pinned. */
function releaseColumns(planned: readonly PlannedColumn[]): void {
  for (const p of planned) {
    p.column.unpin();
    p.column.markDirty(p.taken);
  }
}

function checkColumnName(name: string): void {
  if (name.length === 0 || name.includes('\u0000')) {
    throw new RangeError(`invalid snapshot column name ${JSON.stringify(name)}`);
  }
}


function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Reads and writes realm snapshots in a `Store`; trims the log behind each written snapshot. */
export class SnapshotStore {
  /** Per realm: the column objects and shapes last persisted by (or restored from) this process. */
  private readonly persisted = new Map<number, PersistedRealm>();
  private readonly writing = new Set<number>();

  constructor(
    private readonly store: Store,
    private readonly log: AppendLog,
  ) {}

  /**
   * Persists `realmId`'s state at log seq `seq` in one LMDB transaction, then trims the log
   * through `seq`. Synchronously (before the first await) it takes each column's dirty chunks
   * (`takeDirtyChunks`), pins them (`Column.pin`: copy-on-write) and encodes `core`, so the
   * caller may keep mutating the state right after the call; the chunks are then copied and
   * checksummed in ≤2 ms slices, and unpinned. Columns absent from `columns` but present in the
   * previous snapshot are deleted. `core` may be given already encoded (`encodeRecord`'s bytes, e.g.
   * from realm/core-encoder.ts).
   *
   * Waits for the log to be durable through `seq` before writing (a snapshot never claims records
   * the log could still lose). Resolves once the snapshot is durable and the log trimmed. On
   * failure the taken chunks are marked dirty again and the promise rejects. Rejects with
   * `RangeError` if `seq` is beyond the log or a column name is invalid, and with `Error` if a
   * snapshot of this realm is already being written.
   */
  writeSnapshot(realmId: number, seq: number, core: object | Uint8Array, columns: Readonly<Record<string, Column>>): Promise<SnapshotWriteStats> {
    if (this.writing.has(realmId)) {
      return Promise.reject(new Error(`a snapshot of realm ${realmId} is already being written`));
    }
    const started = performance.now();
    let prepared: Prepared;
    try {
      prepared = this.prepare(realmId, seq, core, columns);
    } catch (error) {
      return Promise.reject(error);
    }
    const syncMs = performance.now() - started;
    this.writing.add(realmId);
    return this.finishWrite(realmId, prepared, syncMs).finally(() => {
      this.writing.delete(realmId);
    });
  }

  /**
   * Declares that `columns` hold exactly what the latest snapshot of `realmId` holds under the same
   * names — e.g. a realm state built by copying the columns `readSnapshot` returned — so the next
   * `writeSnapshot` with these objects writes only their dirty chunks instead of all of them.
   * Call it right after building the state, before changing it. A column whose kind, chunk size
   * or length differs from the snapshot's is not adopted (it will be written in full).
   * Returns the number of columns adopted.
   */
  adoptColumns(realmId: number, columns: Readonly<Record<string, Column>>): number {
    const known = this.persisted.get(realmId);
    if (known === undefined) return 0;
    let adopted = 0;
    for (const [name, column] of Object.entries(columns)) {
      const p = known.columns.get(name);
      if (p === undefined) continue;
      const same =
        p.column === column ||
        (column instanceof Column &&
          column.kind === p.column.kind &&
          column.chunkBits === p.column.chunkBits &&
          column.length === p.length &&
          column.chunkCount >= p.chunks);
      if (!same) continue;
      known.columns.set(name, { column, chunks: p.chunks, length: p.length });
      adopted++;
    }
    return adopted;
  }

  /**
   * The latest snapshot of `realmId`, or null if it has none, fully verified (snapshot-read.ts;
   * throws `StorageCorruptionError`). Remembers the restored columns so the next `writeSnapshot`
   * with them is incremental.
   */
  readSnapshot(realmId: number): Snapshot | null {
    const read = readStoredSnapshot(this.store.snapshot, realmId);
    if (read === null) return null;
    const tracked = new Map<string, PersistedColumn>();
    for (const [name, column] of Object.entries(read.columns)) tracked.set(name, { column, chunks: column.chunkCount, length: column.length });
    this.persisted.set(realmId, { names: Object.keys(read.columns), columns: tracked });
    return read;
  }

  /** What is on disk for `realmId` as far as this process knows (read from the stored names if needed). */
  private previousState(realmId: number): PersistedRealm {
    const known = this.persisted.get(realmId);
    if (known !== undefined) return known;
    let names: string[] = [];
    const bytes = this.store.snapshot.getBinary([realmId, 'names']);
    if (bytes !== undefined) {
      const stored = (decodeRecord(bytes, { realmId, what: 'snapshot names' }) as { names?: unknown }).names;
      if (Array.isArray(stored)) names = stored.filter((n): n is string => typeof n === 'string');
    }
    // Names are known but no column object is: the first write of each column is a full one.
    const state: PersistedRealm = { names, columns: new Map() };
    this.persisted.set(realmId, state);
    return state;
  }

  /**
   * The synchronous part of `writeSnapshot`: everything that must reflect the state at `seq`.
   * Column chunks are not copied here: they are pinned (copy-on-write, column.ts) and copied in
   * slices by `finishWrite`, so a snapshot's cost on the realm's thread does not grow with the
   * number of chunks it writes.
   */
  private prepare(realmId: number, seq: number, core: object | Uint8Array, columns: Readonly<Record<string, Column>>): Prepared {
    if (!Number.isSafeInteger(realmId) || realmId < 1) throw new RangeError(`invalid realmId ${realmId}`);
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > this.log.lastSeq(realmId)) {
      throw new RangeError(`realm ${realmId}: snapshot seq ${seq} is outside the log (last seq ${this.log.lastSeq(realmId)})`);
    }
    const names = Object.keys(columns);
    for (const name of names) {
      checkColumnName(name);
      if (!(columns[name] instanceof Column)) throw new TypeError(`snapshot column ${name} is not a Column`);
    }
    const coreBlob = core instanceof Uint8Array ? core : encodeRecord(core);
    const previous = this.previousState(realmId);
    const planned: PlannedColumn[] = [];
    try {
      let chunkBytes = 0;
      const metas: Prepared['metas'] = [];
      for (const name of names) {
        const p = this.planColumn(previous, name, columns[name]!);
        planned.push(p);
        p.column.pin(p.chunkNos);
        chunkBytes += p.chunkNos.length * (CHUNK_HEADER_BYTES + p.column.chunkBytes);
        if (p.metaChanged) {
          const blob = new Uint8Array(COLUMN_META_BYTES);
          const { kind, chunkBits } = p.column;
          encodeColumnMeta(blob, realmId, p.name, { kind, chunkBits, length: p.length, chunks: p.chunks });
          metas.push([[realmId, 'colmeta', p.name], blob]);
        }
      }
      const namesChanged = !sameNames(previous.names, names) || this.store.snapshot.getBinary([realmId, 'names']) === undefined;
      const namesBlob = namesChanged ? encodeRecord({ names }) : undefined;
      const namesCrc = namesBlob !== undefined ? storedCrc(namesBlob) : storedCrc(this.store.snapshot.getBinary([realmId, 'names'])!);
      const current = new Set(names);
      const header: Header = { format: SNAPSHOT_FORMAT, seq, coreCrc: storedCrc(coreBlob), namesCrc, littleEndian: LITTLE_ENDIAN };
      return {
        seq,
        planned,
        chunkBytes,
        metas,
        names: namesBlob,
        removedNames: previous.names.filter((n) => !current.has(n)),
        core: coreBlob,
        header: encodeRecord(header),
      };
    } catch (error) {
      releaseColumns(planned);
      throw error;
    }
  }

  /**
   * Copies the pinned chunks into one buffer and seals them, in ≤ `SLICE_MS` slices; each column
   * is unpinned as soon as its chunks are copied.
   */
  private async copyChunks(realmId: number, w: Prepared): Promise<ChunkBlob[]> {
    const arena = new Uint8Array(w.chunkBytes);
    const blobs: ChunkBlob[] = [];
    let offset = 0;
    let sliceStart = performance.now();
    for (const p of w.planned) {
      for (const i of p.chunkNos) {
        const src = p.column.pinnedChunk(i);
        const blob = arena.subarray(offset, offset + CHUNK_HEADER_BYTES + src.byteLength);
        blob.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), CHUNK_HEADER_BYTES);
        offset += blob.length;
        sealChunk(blob, realmId, p.name, i);
        blobs.push([[realmId, 'col', p.name, i], blob]);
        // The clock every 32 chunks (≤ 2 MiB, well under a slice): reading it per chunk showed up.
        if ((blobs.length & 31) === 0 && performance.now() - sliceStart > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
      p.column.unpin();
    }
    return blobs;
  }

  private planColumn(previous: PersistedRealm, name: string, column: Column): PlannedColumn {
    const chunks = Math.ceil(column.length / column.chunkSize);
    if (column.chunkCount < chunks) {
      throw new RangeError(`snapshot column ${name}: length ${column.length} exceeds its ${column.chunkCount} allocated chunks`);
    }
    const known = previous.columns.get(name);
    const full = known === undefined || known.column !== column;
    const taken = column.takeDirtyChunks();
    let chunkNos: number[];
    if (full) {
      chunkNos = Array.from({ length: chunks }, (_, i) => i);
    } else {
      // Dirty chunks, plus chunks allocated since the last snapshot but never written (zeros).
      chunkNos = taken.filter((c) => c < chunks && c < known.chunks);
      for (let i = known.chunks; i < chunks; i++) chunkNos.push(i);
    }
    return {
      name,
      column,
      taken,
      chunkNos,
      pruneFrom: full ? chunks : undefined,
      metaChanged: full || known.length !== column.length || known.chunks !== chunks,
      chunks,
      length: column.length,
    };
  }

  private async finishWrite(realmId: number, w: Prepared, syncMs: number): Promise<SnapshotWriteStats> {
    const stats: SnapshotWriteStats = {
      seq: w.seq,
      chunksWritten: 0,
      columnMetasWritten: w.metas.length,
      columnsRemoved: w.removedNames.length,
      bytesWritten: 0,
      syncMs,
    };
    try {
      await this.log.whenDurable(realmId, w.seq);
      const chunkBlobs = await this.copyChunks(realmId, w);
      stats.chunksWritten = chunkBlobs.length;
      // Refused before LMDB sees it when the disk is low (disk-space.ts); the log keeps everything.
      this.store.space.check(w.chunkBytes + w.core.length + (w.names?.length ?? 0) + 4096);
      // One synchronous run of puts = one LMDB transaction; header last.
      const db = this.store.snapshot;
      const commits: Promise<unknown>[] = [];
      const put = (key: KeyPart[], value: Uint8Array): void => {
        commits.push(db.put(key, value));
        stats.bytesWritten += value.length;
      };
      const removeRange = (start: KeyPart[], end: KeyPart[]): void => {
        for (const key of db.getKeys({ start, end })) commits.push(db.remove(key));
      };
      for (const [key, blob] of chunkBlobs) put(key, blob);
      for (const [key, blob] of w.metas) put(key, blob);
      for (const p of w.planned) {
        if (p.pruneFrom !== undefined) removeRange([realmId, 'col', p.name, p.pruneFrom], [realmId, 'col', p.name, MAX_KEY]);
      }
      for (const name of w.removedNames) {
        commits.push(db.remove([realmId, 'colmeta', name]));
        removeRange([realmId, 'col', name, 0], [realmId, 'col', name, MAX_KEY]);
      }
      if (w.names !== undefined) put([realmId, 'names'], w.names);
      put([realmId, 'core'], w.core);
      put([realmId, 'header'], w.header);
      await this.store.durable(commits);
    } catch (error) {
      releaseColumns(w.planned);
      throw error;
    }
    const columns = new Map<string, PersistedColumn>();
    for (const p of w.planned) columns.set(p.name, { column: p.column, chunks: p.chunks, length: p.length });
    this.persisted.set(realmId, { names: w.planned.map((p) => p.name), columns });
    await this.log.trimThrough(realmId, w.seq);
    return stats;
  }
}
