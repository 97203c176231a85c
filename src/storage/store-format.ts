/**
 * The storage format of a data directory and its upgrades: a store records its format
 * version; opening a store written by an older parley upgrades it, a newer one is refused.
 *
 * The format is stamped in LMDB's `meta` table under `'format'` as `{version}`.
 * - Format 1 (parley before store identities): log, bodies, snapshot and meta tables; no identity.
 * - Format 2: adds the store identity (meta `'identity'` = `{storeId, createdAt}`, mirrored in the
 *   identity file, store-identity.ts). Upgrading 1 → 2 gives the store an identity; nothing else
 *   changes, so record, body and snapshot blobs of format 1 load unchanged (their own codec
 *   version bytes cover their layouts, codec.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'lmdb';
import { StorageCorruptionError } from './codec.js';
import { DataDirError } from './data-dir-error.js';
import { identityPath, type IdentityFile, type StoreIdentity } from './store-identity.js';
import { LMDB_DATA_FILE } from './lmdb-file-check.js';
import { join } from 'node:path';

/** Storage format this build writes. Bump when a key layout or blob format changes. */
export const STORAGE_FORMAT_VERSION = 2;

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

interface Listable {
  getKeys(options?: { limit?: number }): Iterable<unknown>;
}

function isEmpty(table: Listable): boolean {
  for (const _ of table.getKeys({ limit: 1 })) return false;
  return true;
}

/** What `stampFormat` found and did. */
export interface FormatOutcome {
  identity: StoreIdentity;
  /** 'created' (a new store), 'upgraded' (from `from`), or 'current'. */
  action: 'created' | 'upgraded' | 'current';
  from?: number;
}

/**
 * Checks (and stamps or upgrades) the storage format of the just-opened environment in `dataDir`.
 * `identityFile` is the identity file's content, if the directory has one.
 *
 * - No stamp and no data: a new store unless the identity file says a store was here (then
 *   `DataDirError`: data.mdb was replaced by an empty one); stamps format and a new identity.
 * - Format 1: upgraded in place to the current format (gains an identity).
 * - Current format: its identity must be the identity file's (else `DataDirError`: data.mdb of
 *   another store).
 * Throws `StorageVersionError` for a newer format, `StorageCorruptionError` for data without a
 * stamp or a malformed stamp. Writes synchronously (one LMDB transaction).
 */
export function stampFormat(
  dataDir: string,
  meta: Database<unknown, string>,
  tables: readonly Listable[],
  identityFile: IdentityFile | undefined,
  readOnly = false,
): FormatOutcome {
  const dataFile = join(dataDir, LMDB_DATA_FILE);
  const stamp = meta.get('format') as { version?: unknown } | undefined;
  if (stamp === undefined) {
    const hasData = tables.some((t) => !isEmpty(t)) || !isEmpty(meta);
    if (hasData) throw new StorageCorruptionError('missing', `the data directory ${dataDir} holds data but no storage format version`);
    if (identityFile !== undefined || readOnly) {
      if (identityFile === undefined) throw new DataDirError(dataDir, dataFile, `${dataFile} holds no parley store`);
      throw new DataDirError(
        dataDir,
        dataFile,
        `${dataFile} holds no parley store, but ${identityPath(dataDir)} says this directory holds store ${identityFile.storeId} ` +
          `(created ${identityFile.createdAt}): data.mdb was replaced or reset`,
      );
    }
    const identity: StoreIdentity = { storeId: randomUUID(), createdAt: new Date().toISOString() };
    meta.transactionSync(() => {
      meta.putSync('identity', identity);
      meta.putSync('format', { version: STORAGE_FORMAT_VERSION });
    });
    return { identity, action: 'created' };
  }
  const version = stamp.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new StorageCorruptionError('shape', `the data directory ${dataDir} has a malformed storage format stamp`);
  }
  if (version > STORAGE_FORMAT_VERSION) throw new StorageVersionError(dataDir, version);
  if (version === 1 && readOnly) {
    return { identity: identityFile ?? { storeId: '(format 1: none yet)', createdAt: '' }, action: 'current' };
  }
  if (version === 1) {
    // Format 1 → 2: the store gets its identity (the identity file, if any, cannot be older).
    const identity: StoreIdentity = identityFile ?? { storeId: randomUUID(), createdAt: new Date().toISOString() };
    meta.transactionSync(() => {
      meta.putSync('identity', { storeId: identity.storeId, createdAt: identity.createdAt });
      meta.putSync('format', { version: STORAGE_FORMAT_VERSION });
    });
    return { identity: { storeId: identity.storeId, createdAt: identity.createdAt }, action: 'upgraded', from: 1 };
  }
  const stored = meta.get('identity') as Partial<StoreIdentity> | undefined;
  if (typeof stored?.storeId !== 'string' || typeof stored.createdAt !== 'string') {
    throw new StorageCorruptionError('shape', `the data directory ${dataDir} has no (or a malformed) store identity`);
  }
  if (identityFile !== undefined && identityFile.storeId !== stored.storeId) {
    throw new DataDirError(
      dataDir,
      dataFile,
      `${dataFile} belongs to store ${stored.storeId} (created ${stored.createdAt}), but ${identityPath(dataDir)} says this ` +
        `directory holds store ${identityFile.storeId} (created ${identityFile.createdAt}): data.mdb was replaced`,
    );
  }
  return { identity: { storeId: stored.storeId, createdAt: stored.createdAt }, action: 'current' };
}

/** The identity file content for `identity` at the current format. */
export function currentIdentityFile(identity: StoreIdentity): IdentityFile {
  return { ...identity, format: STORAGE_FORMAT_VERSION };
}
