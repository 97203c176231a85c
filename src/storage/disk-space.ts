/**
 * Free space on the data disk. LMDB must never meet a full disk: lmdb-js's
 * write-error path (mdb.c `mdb_page_flush`: `last_error = malloc(100); sprintf(last_error,
 * "Attempting to write page at position …")`) can overflow that buffer and corrupt the heap, and
 * a failed commit leaves the realm's memory ahead of its log. So every write batch first asks the
 * file system (`statfs`) whether there is room for it plus a reserve, and is refused with
 * `DiskFullError` — before LMDB sees it — when there is not. Writes resume by themselves as soon
 * as space is back (each check is a fresh `statfs`).
 */
import { statfsSync } from 'node:fs';

/** Default reserve kept free on the data disk, in bytes (8 MiB). */
export const DEFAULT_MIN_FREE_BYTES = 8 * 1024 * 1024;
/** How long an `isFull` verdict is reused before asking the file system again, in ms. */
const FULL_RECHECK_MS = 100;

/**
 * The data disk has no room for a write. `code` is `ENOSPC` like the file system's own error;
 * the message names the directory and the free bytes.
 */
export class DiskFullError extends Error {
  readonly code = 'ENOSPC';
  constructor(
    readonly dataDir: string,
    /** Bytes free when the write was refused (undefined when LMDB itself reported ENOSPC). */
    readonly freeBytes: number | undefined,
    options?: { cause: unknown },
  ) {
    super(
      freeBytes === undefined
        ? `the disk holding ${dataDir} is full (no space left on device)`
        : `the disk holding ${dataDir} is full: ${freeBytes} bytes free, parley keeps a reserve and refuses writes until space is freed`,
      options,
    );
    this.name = 'DiskFullError';
  }
}

/**
 * Whether `error`, or an error in its `cause` chain (e.g. an append cancelled behind a failed
 * one), is a full disk: `DiskFullError`, or an OS error ENOSPC/EDQUOT (lmdb-js reports the
 * numeric errno, 28/122 on Linux).
 */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e !== null && e !== undefined && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (e instanceof DiskFullError || code === 'ENOSPC' || code === 'EDQUOT' || code === 28 || code === 122) return true;
  }
  return false;
}

/**
 * Free-space checks for one data directory, two levels: commands are refused (`isFull`) while
 * the disk is below `minFreeBytes`, before they change any state; a write batch is refused
 * (`check`) only below half of it, i.e. when space vanished within the last check interval.
 */
export class DiskSpace {
  private checkedAt = -Infinity;
  private full = false;

  /** `minFreeBytes`: reserve that writes may not eat into (bytes). */
  constructor(
    readonly dataDir: string,
    readonly minFreeBytes: number = DEFAULT_MIN_FREE_BYTES,
  ) {}

  /** Bytes available to this (unprivileged-equivalent) process on the data disk, right now. */
  freeBytes(): number {
    const s = statfsSync(this.dataDir);
    return s.bavail * s.bsize;
  }

  /**
   * Throws `DiskFullError` unless `bytes` (the write about to happen; LMDB's copy-on-write may
   * need about twice that) fit with half of `minFreeBytes` to spare. One `statfs` call.
   */
  check(bytes: number): void {
    const free = this.freeBytes();
    if (free - 2 * bytes < this.minFreeBytes / 2) {
      this.full = true;
      this.checkedAt = Date.now();
      throw new DiskFullError(this.dataDir, free);
    }
  }

  /**
   * Whether the disk is below `minFreeBytes`: commands that write are refused then. Asks the
   * file system at most every 100 ms.
   */
  isFull(): boolean {
    const now = Date.now();
    if (now - this.checkedAt >= FULL_RECHECK_MS) {
      this.checkedAt = now;
      try {
        this.full = this.freeBytes() < this.minFreeBytes;
      } catch {
        this.full = false; // statfs itself failing is not a full disk; the write will tell
      }
    }
    return this.full;
  }
}
