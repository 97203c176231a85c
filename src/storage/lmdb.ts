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
 * Group commit: lmdb-js puts every asynchronous write issued in one event-loop turn into a single
 * transaction (`eventTurnBatching`, default on); `AppendLog` additionally issues each group of
 * appends in one synchronous run, so a group is one commit and one fsync, never one per request.
 */
import { mkdirSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { StorageCorruptionError } from './codec.js';

/** Storage format of the data directory. Bump when a key layout or blob format changes. */
export const STORAGE_FORMAT_VERSION = 1;

/** Key of the log and bodies tables: `[realmId, seq]` / `[realmId, messageId]`. */
export type RealmKey = [realmId: number, n: number];

/** An element of an ordered-binary key (what the snapshot and meta tables use). */
export type KeyPart = string | number;

/** The data directory was written by a newer parley whose storage format this build can't read. */
export class StorageVersionError extends Error {
  constructor(
    readonly dataDir: string,
    readonly found: number,
  ) {
    super(
      `the data directory ${dataDir} uses storage format version ${found}, but this parley build ` +
        `only reads versions up to ${STORAGE_FORMAT_VERSION}; upgrade parley to open it`,
    );
    this.name = 'StorageVersionError';
  }
}

/** Options for `openStore`. All optional; the defaults are the production settings. */
export interface StoreOptions {
  /** Initial LMDB map size in bytes (lmdb-js grows it automatically either way). */
  mapSize?: number;
}

/**
 * An open LMDB environment. The table handles are storage-internal: code outside `storage/` must
 * go through `AppendLog` / `SnapshotStore`.
 */
export interface Store {
  /** Absolute path of the data directory (the LMDB environment lives directly in it). */
  readonly dataDir: string;
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
 * Opens (creating if needed) the LMDB environment in `dataDir` (created recursively) and checks
 * its storage format version: a new directory is stamped with `STORAGE_FORMAT_VERSION`.
 *
 * Throws `StorageVersionError` if the directory was written by a newer format,
 * `StorageCorruptionError` if it holds data but no (or a malformed) format stamp, and lmdb's own
 * errors if the environment cannot be opened (permissions, not an LMDB directory…).
 * Call `acquireDataDirLock(dataDir)` first: one process at a time writes a data directory.
 */
export function openStore(dataDir: string, opts: StoreOptions = {}): Store {
  const dir = resolvePath(dataDir);
  mkdirSync(dir, { recursive: true });
  const root = open({
    path: dir,
    noSubdir: false, // dataDir may contain a dot ("./snapshots"); it is always a directory
    maxDbs: 8,
    overlappingSync: true, // see the module comment: we wait for `flushed`, not for commit
    eventTurnBatching: true,
    cache: false,
    ...(opts.mapSize !== undefined ? { mapSize: opts.mapSize } : {}),
  });
  try {
    const log = root.openDB<Uint8Array, RealmKey>('log', { encoding: 'binary' });
    const bodies = root.openDB<Uint8Array, RealmKey>('bodies', { encoding: 'binary' });
    const snapshot = root.openDB<Uint8Array, KeyPart[]>('snapshot', { encoding: 'binary' });
    const meta = root.openDB<unknown, KeyPart | KeyPart[]>('meta', { encoding: 'msgpack' });
    checkFormat(dir, meta, [log, bodies, snapshot]);
    return new LmdbStore(dir, root, log, bodies, snapshot, meta);
  } catch (error) {
    void root.close();
    throw error;
  }
}

interface Listable {
  getKeys(options?: { limit?: number }): Iterable<unknown>;
}

function isEmpty(table: Listable): boolean {
  for (const _ of table.getKeys({ limit: 1 })) return false;
  return true;
}

function checkFormat(dir: string, meta: Store['meta'], tables: readonly Listable[]): void {
  const stamp = meta.get('format') as { version?: unknown } | undefined;
  if (stamp === undefined) {
    const hasData = tables.some((t) => !isEmpty(t)) || !isEmpty(meta);
    if (hasData) {
      throw new StorageCorruptionError('missing', `the data directory ${dir} holds data but no storage format version`);
    }
    meta.putSync('format', { version: STORAGE_FORMAT_VERSION });
    return;
  }
  const version = stamp.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new StorageCorruptionError('shape', `the data directory ${dir} has a malformed storage format stamp`);
  }
  if (version > STORAGE_FORMAT_VERSION) throw new StorageVersionError(dir, version);
  // version < STORAGE_FORMAT_VERSION: no older format exists yet; migrations go here.
}

class LmdbStore implements Store {
  private commits = 0;
  private readonly closeHooks: Array<() => Promise<void>> = [];
  private closing: Promise<void> | undefined;

  constructor(
    readonly dataDir: string,
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
    return Promise.all(commits).then(() => flushed);
  }

  onClose(hook: () => Promise<void>): void {
    this.closeHooks.push(hook);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled(this.closeHooks.map((hook) => hook()));
      await new Promise<void>((resolve) => {
        this.root.flushed.then(
          () => resolve(),
          () => resolve(),
        );
      });
      await this.root.close();
    })();
    return this.closing;
  }
}
