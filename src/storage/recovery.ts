/**
 * Realm recovery (src/README.md: persistence): latest snapshot (or the empty state) + replay of
 * every log record
 * after it, through the same `evolve` that folded them the first time. Either the whole realm
 * loads or a clear error is thrown; never a silently half-loaded realm.
 */
import type { Column } from '../domain/column.js';
import type { AppendLog } from './append-log.js';
import { StorageCorruptionError } from './codec.js';
import type { SnapshotStore } from './snapshot-store.js';

/** How a realm's state is built; `S` is the realm state type (e.g. domain's `RealmState`). */
export interface RealmFold<S> {
  /** A brand-new realm's state (no snapshot). */
  empty(): S;
  /** The state a snapshot describes (`core` and `columns` as `SnapshotStore.readSnapshot` returns them). */
  fromSnapshot(core: object, columns: Record<string, Column>): S;
  /** Folds one record into `state` in place (the only mutator, see src/README.md). */
  evolve(state: S, record: object): void;
  /**
   * Optional: the state's snapshot columns by name (as passed to `writeSnapshot`). When given,
   * recovery tells the snapshot store that they equal the snapshot just read, so the next snapshot
   * is incremental even if `fromSnapshot` copied the columns into new objects.
   */
  columnsOf?(state: S): Record<string, Column>;
}

/** A recovered realm. */
export interface Recovered<S> {
  state: S;
  /** Last seq folded into `state` (0 for a realm without records). Equals the log's `lastSeq`. */
  seq: number;
  /** Number of log records replayed on top of the snapshot. */
  replayed: number;
}

/**
 * Rebuilding state from intact data failed: `fromSnapshot` or `evolve` threw. The message names
 * the realm and the seq/record type; `cause` is the original error.
 */
export class RecoveryError extends Error {
  constructor(
    readonly realmId: number,
    readonly seq: number | undefined,
    message: string,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'RecoveryError';
  }
}

/**
 * Loads `realmId`: `snapshots.readSnapshot` (or `fold.empty()`), then every log record after the
 * snapshot's seq, in order. Call it before any append to the realm in this process (or after a
 * failed append, see append-log.ts), never while appends of the realm are pending.
 *
 * Throws `StorageCorruptionError` if the snapshot or a record fails its checks, if the first
 * record after the snapshot is not `snapshot.seq + 1` or any later seq is missing, if the records
 * after the snapshot were trimmed, or if the snapshot is ahead of the log. Throws `RecoveryError`
 * if `fold.fromSnapshot` or `fold.evolve` throws.
 */
export function recoverRealm<S>(log: AppendLog, snapshots: SnapshotStore, realmId: number, fold: RealmFold<S>): Recovered<S> {
  const snapshot = snapshots.readSnapshot(realmId);
  const lastSeq = log.lastSeq(realmId);
  let state: S;
  let seq = 0;
  if (snapshot === null) {
    state = fold.empty();
  } else {
    seq = snapshot.seq;
    if (seq > lastSeq) {
      throw new StorageCorruptionError(
        'missing',
        `the snapshot is at seq ${seq} but the log ends at seq ${lastSeq}: log records were lost`,
        { realmId },
      );
    }
    try {
      state = fold.fromSnapshot(snapshot.core, snapshot.columns);
    } catch (error) {
      throw new RecoveryError(
        realmId,
        seq,
        `realm ${realmId}: cannot rebuild the state from the snapshot at seq ${seq}: ${(error as Error)?.message ?? error}`,
        { cause: error },
      );
    }
    if (fold.columnsOf !== undefined) snapshots.adoptColumns(realmId, fold.columnsOf(state));
  }
  let replayed = 0;
  for (const entry of log.readFrom(realmId, seq)) {
    try {
      fold.evolve(state, entry.record);
    } catch (error) {
      const type = (entry.record as { type?: unknown }).type;
      throw new RecoveryError(
        realmId,
        entry.seq,
        `realm ${realmId}: replaying log record seq ${entry.seq} (type ${String(type)}) failed: ${(error as Error)?.message ?? error}`,
        { cause: error },
      );
    }
    seq = entry.seq;
    replayed++;
  }
  if (seq !== lastSeq) {
    throw new StorageCorruptionError('missing', `replay ended at seq ${seq} but the log's last seq is ${lastSeq}`, { realmId });
  }
  return { state, seq, replayed };
}
