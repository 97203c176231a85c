/**
 * `parley backup` and `parley restore` (issue 13 §3).
 *
 * A backup is a directory that is itself a valid data directory plus a manifest:
 *
 * - `data.mdb`: a consistent copy of the LMDB store taken by a read-only reader (`store-copy.ts`),
 *   so the server keeps running and accepting writes; it holds every message acknowledged before
 *   the backup began;
 * - every other file or directory kept beside the store (uploads, identity and format files,
 *   `demo-password.txt`…), copied **after** the store (except the durable high-water mark
 *   `parley-durable.json`, copied **before** it, so it never names more than the copy holds): a file is written before the record that
 *   refers to it (DESIGN.md §8), so every file the copied store refers to is present. Not copied:
 *   LMDB's `lock.mdb` (per-machine reader table), the server's `parley.lock` and the health probe;
 * - `parley-backup.json`: the manifest (format, time, and every file's size and SHA-256), which
 *   `restore` verifies before writing anything.
 *
 * `restore --from PATH --data-dir D` refuses a non-empty `D`, verifies the manifest, copies the
 * files (fsynced) and leaves `D` ready for `parley serve --data-dir D`.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  createReadStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve as resolvePath, sep } from 'node:path';
import { copyStore, LMDB_DATA_FILE, LMDB_LOCK_FILE } from '../storage/store-copy.js';
import { LOCK_FILE_NAME } from '../storage/data-dir-lock.js';
import { DURABLE_MARK_FILE_NAME } from '../storage/durable-mark.js';
import { HEALTH_PROBE_FILE } from './health.js';
import { FILE_STORE_DIR, FILE_STORE_TEMP_DIR } from '../storage/file-store.js';

/** Name of the manifest inside a backup directory. */
export const MANIFEST_FILE = 'parley-backup.json';
/** Version of the backup layout this build writes and reads. */
export const BACKUP_FORMAT = 1;

/** One file of a backup, by path relative to the backup directory (`/`-separated). */
export interface ManifestEntry {
  path: string;
  bytes: number;
  sha256: string;
}

/** The manifest `parley-backup.json`. */
export interface BackupManifest {
  format: number;
  /** ISO 8601 time the store copy began. */
  started_at: string;
  /** Absolute data directory that was copied. */
  source: string;
  files: ManifestEntry[];
}

/** A refused or failed backup/restore; the CLI prints the message and exits 1. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** Reports progress; `startPhase` begins a named phase of `total` units. */
export interface Progress {
  startPhase(name: string, total: number): void;
  update(done: number, total?: number): void;
  stop(): void;
}

/** No progress output. */
export const NO_PROGRESS: Progress = { startPhase() {}, update() {}, stop() {} };

/** Files of the data directory that are per-process or per-machine state, never backed up. */
function isExcluded(name: string): boolean {
  return (
    name === LMDB_DATA_FILE ||
    name === LMDB_LOCK_FILE ||
    name === LOCK_FILE_NAME ||
    (name.startsWith(`${LOCK_FILE_NAME}.`) && name.endsWith('.tmp')) ||
    name === HEALTH_PROBE_FILE ||
    name === MANIFEST_FILE
  );
}

function isEmptyOrMissing(dir: string): boolean {
  if (!existsSync(dir)) return true;
  if (!statSync(dir).isDirectory()) throw new BackupError(`${dir} exists and is not a directory`);
  return readdirSync(dir).length === 0;
}

function sha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every regular file under `dir` (recursively), relative paths with `/`. */
function listFiles(dir: string, skipTopLevel: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (current === dir && skipTopLevel(entry.name)) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Backs up the data directory `dataDir` (which a server may be running on) into `out` (created;
 * refused unless missing or empty). Returns the manifest. Throws `BackupError` for a refused
 * target and `NoStoreError` when `dataDir` holds no store.
 */
export async function runBackup(dataDir: string, out: string, progress: Progress = NO_PROGRESS): Promise<BackupManifest> {
  const source = resolvePath(dataDir);
  const target = resolvePath(out);
  if (!existsSync(source)) throw new BackupError(`the data directory ${source} does not exist`);
  if (target === source || target.startsWith(source + sep)) throw new BackupError(`the backup directory ${target} must be outside the data directory ${source}`);
  if (!isEmptyOrMissing(target)) throw new BackupError(`the backup directory ${target} is not empty: choose a new path`);
  mkdirSync(target, { recursive: true });
  const startedAt = new Date().toISOString();
  try {
    // The durable high-water mark is copied BEFORE the store: a mark copied later could name a
    // sequence the copied store does not hold yet, and the restored store would be refused as
    // rolled back (storage/durable-mark.ts). An older mark is always consistent with a newer store.
    const markFirst = existsSync(join(source, DURABLE_MARK_FILE_NAME)) ? [DURABLE_MARK_FILE_NAME] : [];
    for (const path of markFirst) copyFileSync(join(source, path), join(target, path));
    progress.startPhase('store', 1);
    await copyStore(source, target, (copied, total) => progress.update(copied, total));
    // Uploads being written (the file store's temp area) are not part of any record: skipped.
    const listed = listFiles(source, (name) => isExcluded(name) || name === DURABLE_MARK_FILE_NAME).filter(
      (path) => !path.startsWith(`${FILE_STORE_TEMP_DIR}/`),
    );
    progress.startPhase('files', listed.length);
    const others: string[] = [];
    listed.forEach((path, i) => {
      const to = join(target, path);
      mkdirSync(dirname(to), { recursive: true });
      try {
        copyFileSync(join(source, path), to);
        others.push(path);
      } catch (error) {
        // An upload whose last attachment was deleted meanwhile may vanish: nothing needs it.
        if (!(path.startsWith(`${FILE_STORE_DIR}/`) && (error as NodeJS.ErrnoException).code === 'ENOENT')) throw error;
      }
      progress.update(i + 1);
    });
    const files: ManifestEntry[] = [];
    const all = [LMDB_DATA_FILE, ...markFirst, ...others];
    progress.startPhase('checksums', all.length);
    for (const [i, path] of all.entries()) {
      const full = join(target, path);
      fsyncPath(full);
      files.push({ path, bytes: statSync(full).size, sha256: await sha256(full) });
      progress.update(i + 1);
    }
    const manifest: BackupManifest = { format: BACKUP_FORMAT, started_at: startedAt, source, files };
    writeFileSync(join(target, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    fsyncPath(join(target, MANIFEST_FILE));
    fsyncPath(target);
    return manifest;
  } catch (error) {
    rmSync(target, { recursive: true, force: true }); // never leave a half backup that looks whole
    throw error;
  } finally {
    progress.stop();
  }
}

/** Reads and checks a backup's manifest. Throws `BackupError` naming the problem. */
export function readManifest(from: string): BackupManifest {
  const path = join(resolvePath(from), MANIFEST_FILE);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as BackupManifest;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BackupError(code === 'ENOENT' ? `${from} is not a parley backup (no ${MANIFEST_FILE})` : `${path} is not valid: ${(error as Error).message}`);
  }
  if (manifest.format !== BACKUP_FORMAT) {
    throw new BackupError(`${from} is a backup in format ${String(manifest.format)}; this parley reads format ${BACKUP_FORMAT}`);
  }
  if (!Array.isArray(manifest.files) || !manifest.files.some((f) => f.path === LMDB_DATA_FILE)) {
    throw new BackupError(`${path} lists no ${LMDB_DATA_FILE}`);
  }
  for (const f of manifest.files) {
    if (typeof f.path !== 'string' || f.path.startsWith('/') || f.path.split('/').includes('..')) {
      throw new BackupError(`${path} lists an invalid path ${JSON.stringify(f.path)}`);
    }
  }
  return manifest;
}

/**
 * Restores the backup `from` into the data directory `dataDir` (created; refused unless missing
 * or empty). Every file is checked against the manifest (size and SHA-256) before anything is
 * written. Returns the manifest. Throws `BackupError` naming the problem.
 */
export async function runRestore(from: string, dataDir: string, progress: Progress = NO_PROGRESS): Promise<BackupManifest> {
  const source = resolvePath(from);
  const target = resolvePath(dataDir);
  if (!isEmptyOrMissing(target)) throw new BackupError(`the data directory ${target} is not empty: restore only into a new or empty directory`);
  const manifest = readManifest(source);
  try {
    progress.startPhase('verify', manifest.files.length);
    for (const [i, f] of manifest.files.entries()) {
      const full = join(source, f.path);
      if (!existsSync(full)) throw new BackupError(`the backup is incomplete: ${f.path} is missing`);
      if (statSync(full).size !== f.bytes || (await sha256(full)) !== f.sha256) {
        throw new BackupError(`the backup is damaged: ${f.path} does not match its checksum`);
      }
      progress.update(i + 1);
    }
    mkdirSync(target, { recursive: true });
    progress.startPhase('restore', manifest.files.length);
    try {
      for (const [i, f] of manifest.files.entries()) {
        const to = join(target, f.path);
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(join(source, f.path), to);
        fsyncPath(to);
        progress.update(i + 1);
      }
      fsyncPath(target);
    } catch (error) {
      // The target was empty: leave it empty rather than half restored.
      for (const name of readdirSync(target)) rmSync(join(target, name), { recursive: true, force: true });
      throw error;
    }
    return manifest;
  } finally {
    progress.stop();
  }
}
