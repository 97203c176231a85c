/**
 * The one LMDB environment of a parley data directory (src/README.md: persistence). Only `storage/` imports
 * lmdb; the rest of the server talks to `AppendLog`, `SnapshotStore` and `recoverRealm`.
 *
 * Sub-databases (all keys use lmdb's ordered-binary key encoding, so arrays sort element-wise):
 *
 * | name       | key                                   | value                                         |
 * |------------|---------------------------------------|-----------------------------------------------|
 * | `log`      | `[realmId, seq]`                      | codec blob of one record (binary)             |
 * | `bodies`   | `[realmId, messageId]`                | codec blob of one message body (binary)       |
 * | `snapshot` | `[realmId, 'header' \| 'core' \| …]`  | see snapshot-store.ts (binary)                |
 * | `meta`     | `'format'`, `['realm', id]`, `['trimmed', id]` | msgpack objects / numbers            |
 *
 * Durability (src/README.md, persistence: "committed and flushed"). On Linux lmdb-js runs with
 * `overlappingSync`: a write
 * promise resolves when its transaction is *committed* (visible to readers), and the fsync of that
 * transaction may still be in progress; `db.flushed` resolves when the last commit is on disk.
 * For parley "durable" means **flushed**: `Store.durable()` waits for both the commit promises
 * (which reject if the transaction failed) and the flush promise captured when the writes were
 * queued. We keep `overlappingSync` on (explicitly) because it lets transaction k+1 commit while
 * transaction k is being fsynced, so group commit is not serialized behind the disk. After a
 * `kill -9` lmdb-js reopens at the last committed transaction (the OS still has those pages);
 * after an OS crash it reopens at the last flushed one — which still contains every write we
 * acknowledged, because we acknowledge only flushed writes.
 *
 * Files of the data directory besides LMDB's `data.mdb` / `lock.mdb` (plain files, so backups
 * copy them): `parley-store.json` (store identity, store-identity.ts), `parley-durable.json`
 * (durable high-water mark, durable-mark.ts), `parley.lock` (data-dir-lock.ts).
 *
 * Group commit: lmdb-js puts every asynchronous write issued in one event-loop turn into a single
 * transaction (`eventTurnBatching`, default on); `AppendLog` additionally issues each group of
 * appends in one synchronous run, so a group is one commit and one fsync, never one per request.
 */
import { mkdirSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { takeCleanCloseMark, writeCleanCloseMark } from './clean-close.js';
import { DataDirError } from './data-dir-error.js';
import { DiskFullError, DiskSpace, isDiskFull } from './disk-space.js';
import { inspectLmdbFile } from './lmdb-file-check.js';
import { walkLmdbPages } from './lmdb-page-walk.js';
import { readIdentityFile, writeIdentityFile, identityPath, type StoreIdentity } from './store-identity.js';
import { currentIdentityFile, stampFormat, STORAGE_FORMAT_VERSION, StorageVersionError } from './store-format.js';

export { STORAGE_FORMAT_VERSION, StorageVersionError };

/** Key of the log and bodies tables: `[realmId, seq]` / `[realmId, messageId]`. */
export type RealmKey = [realmId: number, n: number];

/** An element of an ordered-binary key (what the snapshot and meta tables use). */
export type KeyPart = string | number;

/** Options for `openStore`. All optional; the defaults are the production settings. */
export interface StoreOptions {
  /** Initial LMDB map size in bytes (lmdb-js grows it automatically either way). */
  mapSize?: number;
  /** Free bytes to keep on the data disk (disk-space.ts; default 8 MiB). */
  minFreeBytes?: number;
  /**
   * Open without writing anything (`parley verify`): no format stamp or upgrade, no identity
   * file; a directory without a store throws `DataDirError`. Safe beside a running server.
   */
  readOnly?: boolean;
}

/**
 * An open LMDB environment. The table handles are storage-internal: code outside `storage/` must
 * go through `AppendLog` / `SnapshotStore`.
 */
export interface Store {
  /** Absolute path of the data directory (the LMDB environment lives directly in it). */
  readonly dataDir: string;
  /** The store's identity (store-identity.ts). */
  readonly identity: StoreIdentity;
  /** Free-space checks of the data disk: every writer asks before writing (disk-space.ts). */
  readonly space: DiskSpace;
  /** The environment's root database (holds no data of ours; use the named tables). */
  readonly root: RootDatabase;
  /** Append log: `[realmId, seq]` → codec blob. */
  readonly log: Database<Uint8Array, RealmKey>;
  /** Message bodies: `[realmId, messageId]` → codec blob. */
  readonly bodies: Database<Uint8Array, RealmKey>;
  /** Snapshot parts: `[realmId, …]` → binary (codec blobs and raw column chunks). */
  readonly snapshot: Database<Uint8Array, KeyPart[]>;
  /** Realm registry, format version, trim markers (msgpack values). */
  readonly meta: Database<unknown, KeyPart | KeyPart[]>;
  /**
   * How `data.mdb`'s B-trees were checked at open: every page walked, or skipped because the file
   * is exactly as the last clean close left it (clean-close.ts).
   */
  readonly pageCheck: 'walked' | 'clean close';
  /** Number of asynchronous LMDB transactions committed since open (for tests and metrics). */
  readonly commitCount: number;
  /**
   * Resolves once the writes whose promises are `commits` are committed *and flushed*; rejects if
   * their transaction failed. Must be called synchronously right after queuing those writes (it
   * captures lmdb-js's flush promise for the current batch).
   */
  durable(commits: readonly Promise<unknown>[]): Promise<void>;
  /** Registers work to finish before the environment closes (e.g. `AppendLog` draining its queue). */
  onClose(hook: () => Promise<void>): void;
  /** Runs the close hooks, waits until every queued write is flushed, closes the environment. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens (creating if needed) the LMDB environment in `dataDir` (created recursively), after
 * checking what the directory holds:
 * - `data.mdb` is inspected before LMDB maps it (lmdb-file-check.ts, lmdb-page-walk.ts): a
 *   truncated file, damaged meta pages or B-tree pages throw `DataDirError` instead of
 *   SIGBUS/abort inside LMDB;
 * - with an identity file (store-identity.ts), a missing, empty or foreign `data.mdb` throws
 *   `DataDirError`; only a directory without one gets a new store;
 * - the storage format is checked, stamped or upgraded (store-format.ts): `StorageVersionError`
 *   for a newer format, `StorageCorruptionError` for data without a format stamp.
 * lmdb's own errors are thrown if the environment cannot be opened (permissions…).
 * Call `acquireDataDirLock(dataDir)` first: one process at a time writes a data directory.
 */
export function openStore(dataDir: string, opts: StoreOptions = {}): Store {
  const dir = resolvePath(dataDir);
  mkdirSync(dir, { recursive: true });
  const identityFile = readIdentityFile(dir);
  const file = inspectLmdbFile(dir);
  if (opts.readOnly && file.kind !== 'sound') {
    throw new DataDirError(dir, resolvePath(dir, 'data.mdb'), `${resolvePath(dir, 'data.mdb')} is ${file.kind === 'empty' ? 'empty' : 'missing'}: no store to read`);
  }
  // Every reachable B-tree page, so that LMDB never meets a zeroed one (lmdb-page-walk.ts), unless
  // the file is untouched since our own clean close (clean-close.ts); `parley verify` always walks.
  const cleanClose = takeCleanCloseMark(dir, identityFile?.storeId, opts.readOnly ?? false) && !opts.readOnly;
  if (file.kind === 'sound' && !cleanClose) walkLmdbPages(dir, file.info);
  const pageCheck = cleanClose ? 'clean close' : 'walked';
  if (identityFile !== undefined && file.kind !== 'sound') {
    const path = file.kind === 'empty' ? file.path : resolvePath(dir, 'data.mdb');
    throw new DataDirError(
      dir,
      path,
      `${path} is ${file.kind === 'empty' ? 'empty' : 'missing'}, but ${identityPath(dir)} says this directory holds ` +
        `store ${identityFile.storeId} (created ${identityFile.createdAt})`,
    );
  }
  const root = open({
    path: dir,
    noSubdir: false, // dataDir may contain a dot ("./snapshots"); it is always a directory
    maxDbs: 8,
    overlappingSync: true, // see the module comment: we wait for `flushed`, not for commit
    eventTurnBatching: true,
    cache: false,
    ...(opts.readOnly ? { readOnly: true } : {}),
    ...(opts.mapSize !== undefined ? { mapSize: opts.mapSize } : {}),
  });
  try {
    const log = root.openDB<Uint8Array, RealmKey>('log', { encoding: 'binary' });
    const bodies = root.openDB<Uint8Array, RealmKey>('bodies', { encoding: 'binary' });
    const snapshot = root.openDB<Uint8Array, KeyPart[]>('snapshot', { encoding: 'binary' });
    const meta = root.openDB<unknown, KeyPart | KeyPart[]>('meta', { encoding: 'msgpack' });
    const outcome = stampFormat(dir, meta as unknown as Database<unknown, string>, [log, bodies, snapshot], identityFile, opts.readOnly ?? false);
    if (opts.readOnly) return new LmdbStore(dir, outcome.identity, new DiskSpace(dir, opts.minFreeBytes), pageCheck, true, root, log, bodies, snapshot, meta);
    if (identityFile === undefined || outcome.action === 'upgraded' || identityFile.format !== STORAGE_FORMAT_VERSION) {
      // Written after LMDB holds the identity: a crash in between leaves a store without the
      // file, which the next start treats like this one (adopts the stamped identity).
      writeIdentityFile(dir, currentIdentityFile(outcome.identity));
    }
    return new LmdbStore(dir, outcome.identity, new DiskSpace(dir, opts.minFreeBytes), pageCheck, false, root, log, bodies, snapshot, meta);
  } catch (error) {
    void root.close();
    throw error;
  }
}

/** Longest wait for lmdb-js's `commitError` detail of a failed commit, in ms. */
const COMMIT_DETAIL_WAIT_MS = 1000;

/**
 * lmdb-js rejects a failed commit with "Commit failed (see commitError for details)" and puts the
 * OS error in a separate `commitError` promise — an unhandled rejection (which stops Node) unless
 * someone awaits it. It is awaited here (bounded: lmdb-js may not settle it on every error path):
 * a full disk (ENOSPC/EDQUOT) becomes `DiskFullError`, anything else keeps the OS error as `cause`.
 */
export function explainCommitFailure(dataDir: string, error: unknown): Promise<unknown> {
  const detail = (error as { commitError?: Promise<unknown> } | null)?.commitError;
  if (detail === undefined || typeof detail?.then !== 'function') {
    return Promise.resolve(isDiskFull(error) ? new DiskFullError(dataDir, undefined, { cause: error }) : error);
  }
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), COMMIT_DETAIL_WAIT_MS).unref());
  return Promise.race([detail.then(() => undefined, (cause: unknown) => cause), timeout]).then((cause) => {
    if (isDiskFull(cause)) return new DiskFullError(dataDir, undefined, { cause });
    return cause === undefined ? error : new Error(`LMDB commit failed: ${(cause as Error)?.message ?? cause}`, { cause });
  });
}

class LmdbStore implements Store {
  private commits = 0;
  private readonly closeHooks: Array<() => Promise<void>> = [];
  private closing: Promise<void> | undefined;

  constructor(
    readonly dataDir: string,
    readonly identity: StoreIdentity,
    readonly space: DiskSpace,
    readonly pageCheck: 'walked' | 'clean close',
    private readonly readOnly: boolean,
    readonly root: RootDatabase,
    readonly log: Database<Uint8Array, RealmKey>,
    readonly bodies: Database<Uint8Array, RealmKey>,
    readonly snapshot: Database<Uint8Array, KeyPart[]>,
    readonly meta: Database<unknown, KeyPart | KeyPart[]>,
  ) {
    // lmdb-js calls 'aftercommit' once per committed asynchronous transaction.
    root.on('aftercommit', () => {
      this.commits++;
    });
  }

  get commitCount(): number {
    return this.commits;
  }

  durable(commits: readonly Promise<unknown>[]): Promise<void> {
    // `root.flushed` is a thenable bound to the batch being filled right now: capture it now.
    const flushed = new Promise<void>((resolve, reject) => {
      this.root.flushed.then(() => resolve(), reject);
    });
    // If a commit fails, lmdb-js never resolves the flush promise; nobody awaits it then.
    flushed.catch(() => undefined);
    return Promise.all(commits).then(
      () => flushed,
      (error: unknown) => explainCommitFailure(this.dataDir, error).then((explained) => Promise.reject(explained)),
    );
  }

  onClose(hook: () => Promise<void>): void {
    this.closeHooks.push(hook);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled(this.closeHooks.map((hook) => hook()));
      // A read-only environment has no `flushed` thenable.
      const flushed = this.root.flushed as PromiseLike<unknown> | undefined;
      if (flushed !== undefined) {
        await new Promise<void>((resolve) => {
          flushed.then(
            () => resolve(),
            () => resolve(),
          );
        });
      }
      await this.root.close();
      if (!this.readOnly) writeCleanCloseMark(this.dataDir, this.identity.storeId);
    })();
    return this.closing;
  }
}
