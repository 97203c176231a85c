/**
 * The store identity file `<dataDir>/parley-store.json`: written when a store is
 * created (or upgraded from format 1, which had none), it says that the directory holds a parley
 * store, which one, and since when:
 *
 * ```json
 * {"store_id": "5f0c8a2e-…", "format": 2, "created_at": "2026-11-25T13:00:00.000Z"}
 * ```
 *
 * The same id is stamped inside LMDB (meta key `'identity'`). With the file present, a missing or
 * empty `data.mdb`, or a `data.mdb` of another store, is refused at start instead of silently
 * becoming a new, empty store. It is a plain file beside `data.mdb` so that backups copy it.
 */
import { join } from 'node:path';
import { DataDirError } from './data-dir-error.js';
import { readFileIfExists, writeFileDurablySync } from './durable-file.js';

/** Name of the identity file inside the data directory. */
export const IDENTITY_FILE_NAME = 'parley-store.json';

/** Who a store is. */
export interface StoreIdentity {
  /** Random UUID given at creation. */
  storeId: string;
  /** When the store was created, ISO 8601 (UTC). */
  createdAt: string;
}

/** The identity file's content. */
export interface IdentityFile extends StoreIdentity {
  /** Storage format of the store when the file was last written. */
  format: number;
}

/** Path of the identity file of `dataDir`. */
export function identityPath(dataDir: string): string {
  return join(dataDir, IDENTITY_FILE_NAME);
}

/**
 * Reads `dataDir`'s identity file; undefined if there is none. Throws `DataDirError` if it is
 * empty or malformed (a damaged identity file is not the same as a new directory).
 */
export function readIdentityFile(dataDir: string): IdentityFile | undefined {
  const path = identityPath(dataDir);
  const text = readFileIfExists(path);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const v = value as { store_id?: unknown; format?: unknown; created_at?: unknown } | undefined;
  if (typeof v?.store_id !== 'string' || v.store_id === '' || typeof v.created_at !== 'string' || !Number.isSafeInteger(v.format)) {
    throw new DataDirError(dataDir, path, `${path} is ${text.trim() === '' ? 'empty' : 'malformed'}`);
  }
  return { storeId: v.store_id, createdAt: v.created_at, format: v.format as number };
}

/** Writes `dataDir`'s identity file atomically and durably (throws the filesystem's error). */
export function writeIdentityFile(dataDir: string, identity: IdentityFile): void {
  const json = { store_id: identity.storeId, format: identity.format, created_at: identity.createdAt };
  writeFileDurablySync(identityPath(dataDir), JSON.stringify(json) + '\n');
}
