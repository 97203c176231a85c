/**
 * The clean-close mark (`parley-clean-close.json`): what the filesystem said about `data.mdb`
 * (inode, size, mtime, ctime in ns) right after the server closed LMDB cleanly. At the next start,
 * a file that still matches it is the very file LMDB itself wrote and flushed, untouched since, so
 * the full B-tree page walk (lmdb-page-walk.ts, ~0.15 s per 100 MB) is skipped and only the cheap
 * checks run (meta pages and file size, lmdb-file-check.ts). Anything else (a crash, a copy or
 * restore, any write to the file) leaves no matching mark and the walk runs as before;
 * `parley verify` always walks. The mark is removed when the store is opened for writing, so it
 * never outlives the close it describes.
 */
import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LMDB_DATA_FILE } from './lmdb-file-check.js';

/** File name of the mark in the data directory. */
export const CLEAN_CLOSE_FILE = 'parley-clean-close.json';

interface CleanCloseMark {
  v: 1;
  storeId: string;
  ino: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
}

function describeDataFile(dataDir: string, storeId: string): CleanCloseMark {
  const st = statSync(join(dataDir, LMDB_DATA_FILE), { bigint: true });
  return { v: 1, storeId, ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs) };
}

/**
 * Records `data.mdb` as it is now; call right after LMDB closed cleanly (every write flushed).
 * Best effort: a mark that cannot be written only means a full walk at the next start.
 */
export function writeCleanCloseMark(dataDir: string, storeId: string): void {
  try {
    writeFileSync(join(dataDir, CLEAN_CLOSE_FILE), JSON.stringify(describeDataFile(dataDir, storeId)));
  } catch {
    // no mark: the next start walks every page
  }
}

/**
 * Whether `data.mdb` is exactly as the last clean close of store `storeId` left it. Removes the
 * mark (the store is about to be written) unless `keep` (read-only opens).
 */
export function takeCleanCloseMark(dataDir: string, storeId: string | undefined, keep = false): boolean {
  const path = join(dataDir, CLEAN_CLOSE_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  if (!keep) {
    try {
      unlinkSync(path);
    } catch {
      return false; // cannot remove it: do not trust it either
    }
  }
  if (storeId === undefined) return false;
  try {
    const mark = JSON.parse(text) as Partial<CleanCloseMark>;
    const now = describeDataFile(dataDir, storeId);
    return (
      mark.v === 1 &&
      mark.storeId === now.storeId &&
      mark.ino === now.ino &&
      mark.size === now.size &&
      mark.mtimeNs === now.mtimeNs &&
      mark.ctimeNs === now.ctimeNs
    );
  } catch {
    return false;
  }
}
