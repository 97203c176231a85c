/**
 * Start-up steps that must never strand the operator (issue 13 §4): a data directory that cannot
 * be written is named in the error, a port that cannot be bound is named with its cause, and a
 * generated demo password survives in a 0600 file even if the terminal output is lost.
 */
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve as resolvePath } from 'node:path';
import { acquireDataDirLock, type DataDirLock } from '../storage/data-dir-lock.js';

/** File (in the data directory) holding a generated demo password, mode 0600. */
export const DEMO_PASSWORD_FILE = 'demo-password.txt';

/** The data directory cannot be created or written. Message names the directory and the cause. */
export class DataDirNotWritableError extends Error {
  constructor(
    readonly dataDir: string,
    readonly causeCode: string,
  ) {
    super(`the data directory ${dataDir} is not writable (${causeCode}): check that it exists, its owner and permissions, and that its file system is not read-only`);
    this.name = 'DataDirNotWritableError';
  }
}

const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC', 'EDQUOT', 'EEXIST']);

/**
 * Creates `dataDir` if needed and takes its lock (`acquireDataDirLock`). Throws
 * `DataDirNotWritableError` when the directory cannot be created or written (permissions,
 * read-only file system, a file in the way, disk full); `DataDirLockedError` when a live server
 * holds it; other errors as is.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolvePath(dataDir);
  try {
    mkdirSync(dir, { recursive: true });
    return acquireDataDirLock(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && NOT_WRITABLE.has(code)) throw new DataDirNotWritableError(dir, code);
    throw error;
  }
}

/**
 * Why `host:port` cannot be bound, found by trying it with Node's own socket layer (uWS only says
 * "no"): e.g. `EADDRINUSE (address already in use)`, `EACCES (permission denied: ports below 1024
 * need privileges)`, `EADDRNOTAVAIL (no such local address)`. Resolves to a generic text when the
 * retry succeeds (the port was freed meanwhile).
 */
export function bindFailureCause(host: string, port: number): Promise<string> {
  const hints: Record<string, string> = {
    EADDRINUSE: 'address already in use: another process listens on that port',
    EACCES: 'permission denied: ports below 1024 need privileges',
    EADDRNOTAVAIL: 'address not available: no local interface has that address',
    ENOTFOUND: 'unknown host name',
    EAI_AGAIN: 'host name lookup failed',
  };
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'error';
      done(`${code} (${hints[code] ?? error.message})`);
    });
    probe.listen({ host, port, exclusive: true }, () => {
      probe.close(() => done('the port was busy and is free now; try again'));
    });
  });
}

/**
 * Writes a generated demo password to `<dataDir>/demo-password.txt` with mode 0600 (owner only),
 * fsynced; returns the file's absolute path. Overwrites a file left by an earlier store.
 */
export function writeDemoPasswordFile(dataDir: string, password: string): string {
  const path = join(resolvePath(dataDir), DEMO_PASSWORD_FILE);
  const fd = openSync(path, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600); // the mode of openSync applies only to a new file
    writeSync(fd, `${password}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return path;
}
