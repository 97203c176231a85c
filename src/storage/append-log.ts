/**
 * The durable append log of every realm (src/README.md: request path, persistence): records keyed
 * `[realmId, seq]`,
 * message bodies written in the same LMDB transaction as the records that create them, the realm
 * registry, and log trimming once a snapshot covers a prefix.
 *
 * Group commit (commit-pipeline.ts): appends are encoded and get their seqs synchronously, then
 * queue for the next batch; a batch is one LMDB transaction (one commit, one fsync), and up to two
 * batches are handed to LMDB at once, the later one's writes conditional on the earlier one's, so
 * the log never gets a gap.
 *
 * Durability: an append's promise resolves only once its transaction is committed and flushed
 * (see lmdb.ts). If the transaction fails, every append of that batch rejects, appends already
 * queued behind it for the same realms reject too (their seqs followed the failed ones), and those
 * realms' `lastSeq` is re-read from disk. The caller's in-memory state then contains records that
 * are not in the log: the realm must be reloaded with `recoverRealm` before accepting more commands.
 */
import { decodeRecord, encodeRecord, StorageCorruptionError } from './codec.js';
import { checkDurableMark, DurableMark } from './durable-mark.js';
import { CommitPipeline, type PendingAppend } from './commit-pipeline.js';
import type { Store } from './lmdb.js';
import { MAX_KEY, readBody, readRealmRegistry, type RealmMeta } from './log-reads.js';

export type { RealmMeta } from './log-reads.js';

/** A record read back from the log. */
export interface LogEntry {
  seq: number;
  record: object;
}

interface Unsettled {
  lastSeq: number;
  done: Promise<number>;
}

/** Log entries removed per event-loop turn by `trimThrough`. */
const TRIM_SLICE = 2000;

function checkId(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  }
}

/** The append log over one `Store`. Create one per store; it is the only writer of `log` and `bodies`. */
export class AppendLog {
  /** Last seq assigned per realm (includes queued, not yet durable appends). */
  private readonly seqs = new Map<number, number>();
  /** `trimThrough` markers per realm (cache of meta `['trimmed', id]`). */
  private readonly trimmed = new Map<number, number>();
  /** Appends not yet durable, per realm, in seq order (for `whenDurable`). */
  private readonly unsettled = new Map<number, Unsettled[]>();
  private readonly pipeline: CommitPipeline;
  private closed = false;
  private mark: DurableMark | undefined;

  constructor(private readonly store: Store) {
    this.pipeline = new CommitPipeline(store, {
      resetLastSeq: (realmId, seq) => {
        if (seq === undefined) this.seqs.delete(realmId);
        else this.seqs.set(realmId, seq);
      },
      noteDurable: (realmId, lastSeq) => this.mark?.note(realmId, lastSeq),
    });
    store.onClose(() => this.drain());
  }

  /**
   * Refuses a store that is behind its durable high-water mark (durable-mark.ts: throws
   * `DataDirError`) and from now on keeps the mark file up to date as appends become durable.
   * Call once right after opening the store, before any append.
   */
  trackDurableMark(): void {
    const { dataDir, identity } = this.store;
    checkDurableMark(dataDir, identity.storeId, (realmId) => this.lastSeq(realmId));
    const initial = new Map(this.listRealms().map(({ id }) => [id, this.lastSeq(id)] as const));
    this.mark = new DurableMark(dataDir, identity.storeId, initial);
  }

  /** Number of write batches (LMDB transactions) issued so far; for tests and metrics. */
  get batchCount(): number {
    return this.pipeline.batchCount;
  }

  /**
   * Highest seq assigned in `realmId`'s log, 0 if the realm has none. Read from disk once (the
   * last key, or the trim marker if the log was trimmed empty), then tracked in memory; includes
   * appends that are queued but not yet durable.
   */
  lastSeq(realmId: number): number {
    let seq = this.seqs.get(realmId);
    if (seq === undefined) {
      seq = this.trimmedThrough(realmId);
      for (const key of this.store.log.getKeys({
        start: [realmId, MAX_KEY],
        end: [realmId, 0],
        reverse: true,
        limit: 1,
      })) {
        seq = Math.max(seq, key[1]);
      }
      this.seqs.set(realmId, seq);
    }
    return seq;
  }

  /**
   * Appends `records` to `realmId`'s log with seqs `lastSeq+1 … lastSeq+records.length`, and in
   * the same LMDB transaction writes `bodies` (`[messageId, body]`; a `null` body deletes it) and,
   * if given, the realm's registry entry `extraRealmMeta`.
   *
   * Resolves with the last seq of this append (the current `lastSeq` if `records` is empty) once
   * everything is durable (committed and flushed). Rejects — without having changed `lastSeq` —
   * if an argument is invalid or a record can't be encoded, and rejects if the transaction fails
   * (see the module comment for what the caller must do then). Rejects after `close`.
   */
  append(
    realmId: number,
    records: readonly object[],
    bodies: ReadonlyArray<readonly [messageId: number, body: object | null]> = [],
    extraRealmMeta?: RealmMeta,
  ): Promise<number> {
    let entry: PendingAppend;
    let done: Promise<number>;
    try {
      if (this.closed) throw new Error('the append log is closed');
      checkId('realmId', realmId, 1);
      // Loops rather than `map` with arrows: no closure per append on the send path.
      const encoded: Uint8Array[] = [];
      for (const record of records) encoded.push(encodeRecord(record));
      const encodedBodies: [number, Uint8Array | null][] = [];
      for (const [messageId, body] of bodies) {
        checkId('messageId', messageId, 0);
        encodedBodies.push([messageId, body === null ? null : encodeRecord(body)]);
      }
      if (extraRealmMeta !== undefined && typeof extraRealmMeta.subdomain !== 'string') {
        throw new TypeError('extraRealmMeta.subdomain must be a string');
      }
      const firstSeq = this.lastSeq(realmId) + 1;
      const lastSeq = firstSeq + encoded.length - 1;
      let resolve!: (seq: number) => void;
      let reject!: (error: unknown) => void;
      done = new Promise<number>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      entry = {
        realmId,
        firstSeq,
        lastSeq,
        records: encoded,
        bodies: encodedBodies,
        meta: extraRealmMeta === undefined ? undefined : { subdomain: extraRealmMeta.subdomain },
        resolve,
        reject,
      };
      this.seqs.set(realmId, lastSeq);
    } catch (error) {
      return Promise.reject(error);
    }
    this.track(realmId, entry.lastSeq, done);
    this.pipeline.enqueue(entry);
    return done;
  }

  /**
   * Resolves once every record of `realmId` up to `seq` is durable; rejects if the append that
   * holds `seq` failed, or if `seq` was never assigned. Used by snapshots so that a snapshot never
   * claims records that are not in the log.
   */
  whenDurable(realmId: number, seq: number): Promise<void> {
    if (seq > this.lastSeq(realmId)) {
      return Promise.reject(new RangeError(`realm ${realmId}: seq ${seq} is beyond the log's last seq ${this.lastSeq(realmId)}`));
    }
    const list = this.unsettled.get(realmId);
    const holder = list?.find((u) => u.lastSeq >= seq);
    return holder === undefined ? Promise.resolve() : holder.done.then(() => undefined);
  }

  /**
   * Yields `realmId`'s records with seq > `afterSeq`, in seq order, decoding and CRC-checking
   * each. Throws `StorageCorruptionError` (naming realm and seq) on a bad record, on a gap in the
   * seqs, or if records after `afterSeq` were already trimmed. Reads committed data only.
   */
  *readFrom(realmId: number, afterSeq: number): Iterable<LogEntry> {
    const trimmed = this.trimmedThrough(realmId);
    if (afterSeq < trimmed) {
      throw new StorageCorruptionError(
        'missing',
        `log records ${afterSeq + 1}..${trimmed} were trimmed (a snapshot at seq >= ${trimmed} should cover them), ` +
          `cannot replay from seq ${afterSeq + 1}`,
        { realmId },
      );
    }
    let expected = afterSeq + 1;
    for (const { key, value } of this.store.log.getRange({ start: [realmId, expected], end: [realmId, MAX_KEY] })) {
      const seq = key[1];
      if (seq !== expected) {
        throw new StorageCorruptionError('gap', `log gap: expected seq ${expected}, found seq ${seq}`, { realmId, seq: expected });
      }
      yield { seq, record: decodeRecord(value, { realmId, seq }) };
      expected++;
    }
  }

  /**
   * The stored body of `messageId` in `realmId`, or undefined. Synchronous memory-mapped read
   * (src/README.md: persistence); sees every append that has resolved. Throws `StorageCorruptionError` if the
   * body blob fails its checks.
   */
  getBody(realmId: number, messageId: number): object | undefined {
    return readBody(this.store, realmId, messageId);
  }

  /**
   * Deletes `realmId`'s log entries with seq <= `seq` (call it only once a durable snapshot covers
   * them) and records the trim marker, so that `lastSeq` survives a fully trimmed log and
   * `readFrom` refuses to replay from before the marker. Removes at most a few thousand entries
   * per event-loop turn. Resolves when durable. Throws `RangeError` if `seq` > `lastSeq`.
   */
  async trimThrough(realmId: number, seq: number): Promise<void> {
    checkId('realmId', realmId, 1);
    if (seq > this.lastSeq(realmId)) {
      throw new RangeError(`realm ${realmId}: cannot trim through seq ${seq}, the log ends at ${this.lastSeq(realmId)}`);
    }
    if (seq <= this.trimmedThrough(realmId)) return;
    this.store.space.check(0); // deleting still writes pages (copy-on-write)
    this.trimmed.set(realmId, seq);
    let commits: Promise<unknown>[] = [this.store.meta.put(['trimmed', realmId], seq)];
    for (;;) {
      let n = 0;
      for (const key of this.store.log.getKeys({ start: [realmId, 0], end: [realmId, seq + 1], limit: TRIM_SLICE })) {
        commits.push(this.store.log.remove(key));
        n++;
      }
      if (n < TRIM_SLICE) break;
      await Promise.all(commits); // committed: the next getKeys no longer sees these keys
      commits = [];
    }
    await this.store.durable(commits);
  }

  /** Highest seq removed by `trimThrough` for `realmId` (0 if never trimmed). */
  trimmedThrough(realmId: number): number {
    let seq = this.trimmed.get(realmId);
    if (seq === undefined) {
      const stored = this.store.meta.get(['trimmed', realmId]);
      if (stored !== undefined && (typeof stored !== 'number' || !Number.isSafeInteger(stored) || stored < 0)) {
        throw new StorageCorruptionError('shape', 'malformed log trim marker', { realmId });
      }
      seq = stored ?? 0;
      this.trimmed.set(realmId, seq);
    }
    return seq;
  }

  /** Every registered realm, by id. Throws `StorageCorruptionError` on a malformed entry. */
  listRealms(): Array<{ id: number; subdomain: string }> {
    return readRealmRegistry(this.store);
  }

  /**
   * Issues the queued appends as one LMDB transaction now instead of on the pipeline's next
   * `setImmediate` (no-op while the pipeline is full: it issues again when a commit lands).
   */
  issueNow(): void {
    this.pipeline.flushNow();
  }

  /** Rejects new appends and resolves once every queued append is durable (or failed). */
  async drain(): Promise<void> {
    this.closed = true;
    while (this.pipeline.busy) {
      this.pipeline.flushNow();
      await this.pipeline.settled;
      if (this.pipeline.busy) await new Promise((resolve) => setImmediate(resolve));
    }
    await this.pipeline.settled;
    await this.mark?.flush();
  }

  private track(realmId: number, lastSeq: number, done: Promise<number>): void {
    let list = this.unsettled.get(realmId);
    if (list === undefined) this.unsettled.set(realmId, (list = []));
    const item = { lastSeq, done };
    list.push(item);
    // Appends settle in issue order, so the item is nearly always first: `shift` allocates
    // nothing where `splice` returned an array. The realm's (empty) list is kept for the next append.
    const untrack = (): void => {
      const l = this.unsettled.get(realmId);
      if (l === undefined) return;
      if (l[0] === item) l.shift();
      else {
        const i = l.indexOf(item);
        if (i >= 0) l.splice(i, 1);
      }
    };
    done.then(untrack, untrack);
  }

  /**
   * True while the data disk is below its free-space reserve (disk-space.ts): the realm actor
   * refuses commands that would write before deciding them, so memory never runs ahead of a log
   * that cannot grow. Cheap (a `statfs` at most every 100 ms).
   */
  diskFull(): boolean {
    return this.store.space.isFull();
  }
}
