/**
 * Reads of the append log's side tables that need no log state (see `append-log.ts`): a message
 * body by `[realmId, messageId]` (synchronous, memory-mapped) and the realm registry.
 */
import { decodeRecord, StorageCorruptionError } from './codec.js';
import type { Store } from './lmdb.js';

/** One realm registry entry (meta table, key `['realm', id]`). */
export interface RealmMeta {
  /** '' for the root realm. */
  subdomain: string;
}

/** The highest key component: the open end of a key range. */
export const MAX_KEY = Number.MAX_SAFE_INTEGER;

/**
 * The stored body of `messageId` in `realmId`, or undefined. Throws `StorageCorruptionError` if the
 * body blob fails its checks.
 */
export function readBody(store: Store, realmId: number, messageId: number): object | undefined {
  // getBinaryFast: lmdb's reused read buffer (no copy), valid until the next read; its `length`
  // is the value's size (the backing buffer may be longer). Decoded at once into fresh strings.
  const bytes = store.bodies.getBinaryFast([realmId, messageId]);
  if (bytes === undefined) return undefined;
  return decodeRecord(bytes.subarray(0, bytes.length), { realmId, what: `body of message ${messageId}` });
}

/** Every registered realm, by id. Throws `StorageCorruptionError` on a malformed entry. */
export function readRealmRegistry(store: Store): Array<{ id: number; subdomain: string }> {
  const out: Array<{ id: number; subdomain: string }> = [];
  for (const { key, value } of store.meta.getRange({ start: ['realm', 0], end: ['realm', MAX_KEY] })) {
    const id = (key as unknown[])[1];
    const subdomain = (value as Partial<RealmMeta> | null)?.subdomain;
    if (typeof id !== 'number' || typeof subdomain !== 'string') {
      throw new StorageCorruptionError('shape', `malformed realm registry entry ${JSON.stringify(key)}`);
    }
    out.push({ id, subdomain });
  }
  return out;
}
