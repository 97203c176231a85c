/**
 * One process at a time owns a data directory (src/README.md: persistence): the append log keeps each realm's
 * last seq in memory, so a second writer (an offline `create-realm` while the server runs) would
 * corrupt the log. The lock is a file `<dataDir>/parley.lock` holding the owner's pid.
 *
 * A lock whose pid is no longer alive (the server was `kill -9`ed) is stale and taken over. Known
 * limit: two processes taking over the same stale lock at the same instant can both succeed
 * (unlink + exclusive create is not one atomic step); starting two servers at once on a directory
 * left by a crash is not a supported operation.
 */
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';

/** Name of the lock file inside the data directory. */
export const LOCK_FILE_NAME = 'parley.lock';

/** The data directory is locked by another live process. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the data directory ${dataDir} is in use by a running parley server (pid ${pid})`);
    this.name = 'DataDirLockedError';
  }
}

/** A held data-directory lock. */
export interface DataDirLock {
  /** Absolute path of the lock file. */
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

/** Data directories locked by this process (a second acquire in-process fails too). */
const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Takes the lock of `dataDir` (created if missing) for this process.
 * Throws `DataDirLockedError` — message `the data directory <dir> is in use by a running parley
 * server (pid N)` — if a live process (or this one, through an earlier acquire) holds it; takes
 * over a stale lock left by a dead process. Other I/O errors are thrown as is. The caller releases
 * the lock on shutdown; a crashed process leaves a stale lock that the next acquire takes over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const dir = resolvePath(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE_NAME);
  if (heldHere.has(dir)) throw new DataDirLockedError(dir, process.pid);
  // The lock file appears atomically with its content: written to a temporary name, then
  // hard-linked to `parley.lock` (link fails with EEXIST if the lock exists).
  const temp = `${path}.${process.pid}.tmp`;
  let acquired = false;
  for (let attempt = 0; attempt < 5 && !acquired; attempt++) {
    writeFileSync(temp, `${process.pid}\n`, { mode: 0o644 });
    try {
      linkSync(temp, path);
      acquired = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = readPid(path);
      // Our own pid in a lock we don't hold: left by a previous process that had our pid (e.g.
      // pid 1 in a restarted container), so it is stale like any dead pid.
      if (pid !== undefined && pid !== process.pid && isAlive(pid)) throw new DataDirLockedError(dir, pid);
      // Stale (dead pid) or unreadable: take it over.
      try {
        unlinkSync(path);
      } catch (unlinkError) {
        if ((unlinkError as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkError;
      }
    } finally {
      unlinkSync(temp);
    }
  }
  if (!acquired) throw new Error(`could not acquire the lock of the data directory ${dir}: it keeps changing hands`);
  heldHere.add(dir);
  let released = false;
  return {
    path,
    release(): void {
      if (released) return;
      released = true;
      heldHere.delete(dir);
      if (readPid(path) !== process.pid) return; // taken over meanwhile: not ours to remove
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
  };
}
