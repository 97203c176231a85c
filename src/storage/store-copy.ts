/**
 * A consistent copy of a live LMDB store (issue 13 §3), for `parley backup`.
 *
 * LMDB allows any number of reader processes beside the one writer, so the copy opens the data
 * directory's environment **read-only** in a separate process while the server keeps writing.
 * `mdb_env_copy2` (lmdb-js `backup`) copies the database as of one read transaction: it contains
 * every transaction committed before the copy began — hence every message the server acknowledged
 * before then, since parley acknowledges only committed and flushed writes (lmdb.ts) — and nothing
 * half-written. Writes committed meanwhile are simply not in the copy.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { open } from 'lmdb';

/** The LMDB data file name inside a data directory (and inside a backup). */
export const LMDB_DATA_FILE = 'data.mdb';
/** LMDB's reader-table file: per-machine state, never copied. */
export const LMDB_LOCK_FILE = 'lock.mdb';

/** `dataDir` holds no parley store (no LMDB environment, or not one written by parley). */
export class NoStoreError extends Error {
  constructor(readonly dataDir: string) {
    super(`the data directory ${dataDir} holds no parley store (no ${LMDB_DATA_FILE} with parley's tables)`);
    this.name = 'NoStoreError';
  }
}

/**
 * Copies the store of `dataDir` to `<outDir>/data.mdb` (`outDir` must exist and hold no
 * data.mdb). Safe while a server writes the store. `onProgress(copiedBytes, totalBytes)` is called
 * about every `intervalMs` (100 ms) while copying, and once at the end. Resolves with the size in
 * bytes of the copy. Throws `NoStoreError` when `dataDir` holds no parley store.
 */
export async function copyStore(
  dataDir: string,
  outDir: string,
  onProgress?: (copied: number, total: number) => void,
  intervalMs = 100,
): Promise<number> {
  const dir = resolvePath(dataDir);
  if (!existsSync(join(dir, LMDB_DATA_FILE))) throw new NoStoreError(dir);
  const root = open({ path: dir, noSubdir: false, maxDbs: 8, readOnly: true });
  try {
    try {
      root.openDB('meta', { encoding: 'msgpack' });
    } catch {
      throw new NoStoreError(dir);
    }
    const stats = root.getStats() as { pageSize: number; lastPageNumber: number };
    // mdb_env_copy writes pages 0..lastPageNumber of the snapshot it reads.
    const total = (stats.lastPageNumber + 1) * stats.pageSize;
    const target = join(resolvePath(outDir), LMDB_DATA_FILE);
    const sizeNow = () => {
      try {
        return statSync(target).size;
      } catch {
        return 0;
      }
    };
    const timer = onProgress === undefined ? undefined : setInterval(() => onProgress(Math.min(sizeNow(), total), total), intervalMs);
    try {
      await root.backup(resolvePath(outDir), false);
    } finally {
      clearInterval(timer);
    }
    const size = sizeNow();
    onProgress?.(size, Math.max(size, total));
    return size;
  } finally {
    await root.close();
  }
}
