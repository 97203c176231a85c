/**
 * A growable numeric column stored as fixed-size typed-array chunks (src/README.md: persistence): millions of
 * message attributes cost a few typed arrays instead of millions of heap objects, and snapshots
 * write only the chunks changed since the last snapshot (src/README.md, persistence).
 *
 * Indexes are dense from 0. Reads past `length` return 0. Every write marks its chunk dirty;
 * the snapshot store calls `takeDirtyChunks()` and persists those chunks only.
 *
 * A snapshot copies its chunks after the fact, in slices (snapshot-store.ts): it `pin`s them,
 * and a write to a pinned chunk first saves the chunk's content as of the pin (copy-on-write),
 * so the snapshot still reads the state it captured while the realm goes on changing.
 */

/** Element types a column can hold. */
export type ColumnKind = 'int32' | 'uint32' | 'uint16' | 'uint8' | 'float64';

type Chunk = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

/** Bytes per element of each column kind. */
export const BYTES_PER_ELEMENT: Readonly<Record<ColumnKind, number>> = { int32: 4, uint32: 4, uint16: 2, uint8: 1, float64: 8 };

/** Default chunk size exponent: 2^14 = 16 Ki elements (64 KiB for 32-bit columns). */
export const DEFAULT_CHUNK_BITS = 14;

function allocate(kind: ColumnKind, n: number): Chunk {
  switch (kind) {
    case 'int32':
      return new Int32Array(n);
    case 'uint32':
      return new Uint32Array(n);
    case 'uint16':
      return new Uint16Array(n);
    case 'uint8':
      return new Uint8Array(n);
    case 'float64':
      return new Float64Array(n);
  }
}

export class Column {
  private chunks: Chunk[] = [];
  private dirty = new Set<number>();
  /** The chunk last added to `dirty`: appends hit the same chunk, so most writes skip the Set. */
  private lastDirty = -1;
  /** Chunks pinned by a snapshot in progress → their content at pin time (undefined: not written since). */
  private pinned: Map<number, Chunk | undefined> | null = null;
  /** Number of elements (highest written index + 1). */
  length = 0;

  /** Elements per chunk (2^chunkBits). */
  readonly chunkSize: number;
  /** Bytes per chunk. */
  readonly chunkBytes: number;
  private readonly mask: number;

  /**
   * @param kind element type
   * @param chunkBits log2 of the chunk size: large (14) for realm-wide columns, small (8–10) for
   *   the many per-user columns so that an almost empty list costs little memory.
   */
  constructor(
    readonly kind: ColumnKind,
    readonly chunkBits: number = DEFAULT_CHUNK_BITS,
  ) {
    this.chunkSize = 1 << chunkBits;
    this.chunkBytes = this.chunkSize * BYTES_PER_ELEMENT[kind];
    this.mask = this.chunkSize - 1;
  }

  /** Value at `index`, or 0 when never written. */
  get(index: number): number {
    const chunk = this.chunks[index >>> this.chunkBits];
    return chunk === undefined ? 0 : chunk[index & this.mask]!;
  }

  /** Writes `value` at `index`, growing the column as needed. */
  set(index: number, value: number): void {
    const c = index >>> this.chunkBits;
    while (this.chunks.length <= c) this.chunks.push(allocate(this.kind, this.chunkSize));
    if (this.pinned !== null) this.saveBeforeWrite(c);
    this.chunks[c]![index & this.mask] = value;
    if (c !== this.lastDirty) this.markWritten(c);
    if (index >= this.length) this.length = index + 1;
  }

  private markWritten(c: number): void {
    this.dirty.add(c);
    this.lastDirty = c;
  }

  /**
   * Copies elements `[start, end)` to `target…` like `TypedArray#copyWithin` (overlap-safe), a
   * chunk run at a time instead of element by element; the destination must lie within
   * `length` (write its last index first to grow). Marks the written chunks dirty.
   */
  copyWithin(target: number, start: number, end: number): void {
    const count = end - start;
    if (count <= 0 || target === start) return;
    const size = this.chunkSize;
    const bits = this.chunkBits;
    const mask = this.mask;
    if (target < start) {
      for (let done = 0; done < count; ) {
        const s = start + done;
        const d = target + done;
        const n = Math.min(count - done, size - (s & mask), size - (d & mask));
        this.copyRun(s >>> bits, s & mask, d >>> bits, d & mask, n);
        done += n;
      }
    } else {
      // Backwards, so a run never overwrites source elements not yet copied.
      for (let left = count; left > 0; ) {
        const sEnd = start + left; // exclusive
        const dEnd = target + left;
        const n = Math.min(left, ((sEnd - 1) & mask) + 1, ((dEnd - 1) & mask) + 1);
        const s = sEnd - n;
        const d = dEnd - n;
        this.copyRun(s >>> bits, s & mask, d >>> bits, d & mask, n);
        left -= n;
      }
    }
  }

  private copyRun(sc: number, so: number, dc: number, doff: number, n: number): void {
    if (this.pinned !== null) this.saveBeforeWrite(dc);
    const src = this.chunks[sc]!;
    const dst = this.chunks[dc]!;
    if (sc === dc) src.copyWithin(doff, so, so + n);
    else (dst as Int32Array).set((src as Int32Array).subarray(so, so + n), doff);
    if (dc !== this.lastDirty) this.markWritten(dc);
  }

  /** Appends `value`; returns its index. */
  push(value: number): number {
    const index = this.length;
    this.set(index, value);
    return index;
  }

  /** Number of chunks allocated. */
  get chunkCount(): number {
    return this.chunks.length;
  }

  /** The raw chunk `i` as it is now. */
  chunk(i: number): Chunk {
    return this.chunks[i]!;
  }

  /**
   * Pins chunks `chunkNos` (each < `chunkCount`) for a snapshot: until `unpin`, `pinnedChunk(i)`
   * returns chunk `i` as it is now, however the column is written meanwhile. Costs nothing up
   * front; the first later write to a pinned chunk copies it (one chunk, ≤ 64 KiB). Throws
   * `Error` if chunks are already pinned (one snapshot of a column at a time).
   */
  pin(chunkNos: Iterable<number>): void {
    if (this.pinned !== null) throw new Error('column chunks are already pinned by another snapshot');
    const pinned = new Map<number, Chunk | undefined>();
    for (const c of chunkNos) pinned.set(c, undefined);
    this.pinned = pinned;
  }

  /** Chunk `i` as it was when pinned (or as it is now if it is not pinned). Do not modify it. */
  pinnedChunk(i: number): Chunk {
    return this.pinned?.get(i) ?? this.chunks[i]!;
  }

  /** Releases the pin (the snapshot has copied what it needed, or gave up). Idempotent. */
  unpin(): void {
    this.pinned = null;
  }

  private saveBeforeWrite(c: number): void {
    const pinned = this.pinned!;
    if (pinned.has(c) && pinned.get(c) === undefined) pinned.set(c, this.chunks[c]!.slice());
  }

  /** Bytes of the chunks written since the last `takeDirtyChunks` (whole chunks: what a snapshot writes). */
  get dirtyBytes(): number {
    return this.dirty.size * this.chunkBytes;
  }

  /** Returns and clears the set of chunk numbers written since the last call, ascending. */
  takeDirtyChunks(): number[] {
    const out = [...this.dirty].sort((a, b) => a - b);
    this.dirty.clear();
    this.lastDirty = -1;
    return out;
  }

  /** Marks chunks dirty again (used when a snapshot write failed). */
  markDirty(chunks: readonly number[]): void {
    for (const c of chunks) this.dirty.add(c);
  }

  /**
   * Restores chunk `i` from snapshot bytes (a copy is taken; the chunk is not marked dirty).
   * `length` must be restored separately with `restoreLength`.
   */
  restoreChunk(i: number, bytes: Uint8Array): void {
    const chunk = allocate(this.kind, this.chunkSize);
    new Uint8Array(chunk.buffer).set(bytes.subarray(0, chunk.byteLength));
    // Chunks before `i` that the snapshot lacks read as zeros; chunk `i` itself is not allocated
    // twice (restoring chunks in order used to allocate and zero-fill each one a second time).
    while (this.chunks.length < i) this.chunks.push(allocate(this.kind, this.chunkSize));
    if (this.pinned !== null) this.saveBeforeWrite(i);
    this.chunks[i] = chunk;
  }

  /** Sets `length` after restoring chunks. */
  restoreLength(length: number): void {
    this.length = length;
  }
}
