/**
 * The group-commit pipeline under `AppendLog` (src/README.md: persistence; bench/PROFILE.md for
 * the measurements behind it).
 *
 * Appends queued while the pipeline is full accumulate into the next batch; a batch is written in
 * one synchronous run on a `setImmediate`, i.e. one LMDB transaction (one commit, one fsync). Up to
 * `MAX_IN_FLIGHT` (2) batches are handed to LMDB's write thread at once: while batch k commits and
 * is fsynced, batch k+1 is already queued behind it, so the write thread goes from one commit to
 * the next without waiting for the main thread to notice the first one (that round trip, not the
 * disk, was most of a commit's latency under load). A third batch forms in memory meanwhile.
 * (If the write thread has not started batch k's transaction yet when k+1 arrives, lmdb-js puts
 * both in one transaction: still atomic, still in order, one fsync fewer.)
 *
 * No gap after a failure. LMDB's write thread commits the queued transactions in order; if batch
 * k fails, batch k+1 must not write the seqs that follow k's in the same realm. So a realm's writes
 * in a batch issued while an earlier batch holding that realm is uncommitted are conditional on the
 * earlier batch's last key existing (lmdb-js `ifVersion(key, IF_EXISTS, …)`, checked atomically
 * inside the later transaction): they land only if the earlier batch did.
 *
 * Order and durability: a batch's appends resolve only once its transaction is committed *and
 * flushed* (`Store.durable`), and never before the appends of earlier batches have settled, so
 * callers see durability in seq order.
 */
import { IF_EXISTS } from 'lmdb';
import { commitBatchAppends, commitDurableSeconds } from '../metrics.js';
import type { Store } from './lmdb.js';
import type { RealmMeta } from './log-reads.js';

/** Batches handed to LMDB and not yet committed, at most. */
export const MAX_IN_FLIGHT = 2;

/** One `AppendLog.append` call, encoded, with its seqs assigned. */
export interface PendingAppend {
  realmId: number;
  firstSeq: number;
  lastSeq: number;
  records: Uint8Array[];
  bodies: Array<[messageId: number, body: Uint8Array | null]>;
  meta: RealmMeta | undefined;
  resolve(seq: number): void;
  reject(error: unknown): void;
}

/** What the pipeline needs from its `AppendLog`. */
export interface PipelineOwner {
  /** An append of these realms failed: forget their in-memory last seq (`undefined`: re-read from disk) or set it. */
  resetLastSeq(realmId: number, seq: number | undefined): void;
  /** An append became durable (updates the durable high-water mark). */
  noteDurable(realmId: number, lastSeq: number): void;
}

/** Last seq of a realm written by a batch that is not yet known committed. */
interface IssuedTail {
  seq: number;
  batch: number;
}

/** Bytes a batch puts (values plus a generous allowance for keys and LMDB node headers). */
function batchBytes(batch: readonly PendingAppend[]): number {
  let bytes = 0;
  for (const a of batch) {
    for (const r of a.records) bytes += r.length + 64;
    for (const [, body] of a.bodies) bytes += (body?.length ?? 0) + 64;
  }
  return bytes;
}

function byRealm(batch: readonly PendingAppend[]): Map<number, PendingAppend[]> {
  const groups = new Map<number, PendingAppend[]>();
  for (const a of batch) {
    const group = groups.get(a.realmId);
    if (group === undefined) groups.set(a.realmId, [a]);
    else group.push(a);
  }
  return groups;
}

/** The write side of one `AppendLog`: batching, issuing, settling (see the module comment). */
export class CommitPipeline {
  private pending: PendingAppend[] = [];
  private inFlight = 0;
  private scheduled = false;
  private batches = 0;
  private readonly issuedTails = new Map<number, IssuedTail>();
  /** Settles after the last issued batch has been settled (its appends resolved or rejected). */
  private lastSettled: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly owner: PipelineOwner,
  ) {}

  /** Number of write batches issued so far (or refused before LMDB saw them). */
  get batchCount(): number {
    return this.batches;
  }

  /** True while appends are queued or a batch is uncommitted. */
  get busy(): boolean {
    return this.pending.length > 0 || this.inFlight > 0;
  }

  /** Settles once every batch issued so far has settled. */
  get settled(): Promise<void> {
    return this.lastSettled;
  }

  /** Queues an append for the next batch. */
  enqueue(append: PendingAppend): void {
    this.pending.push(append);
    this.schedule();
  }

  /** Issues the next batch now if the pipeline has room (used by `AppendLog.drain`). */
  flushNow(): void {
    this.flush();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes every pending append in one synchronous run, i.e. one LMDB transaction. */
  private flush(): void {
    if (this.inFlight >= MAX_IN_FLIGHT || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const batchNo = ++this.batches;
    try {
      // Refused before LMDB sees it (see disk-space.ts for why LMDB must never hit ENOSPC).
      this.store.space.check(batchBytes(batch));
    } catch (error) {
      this.fail(batch, error, batchNo, false);
      this.schedule();
      return;
    }
    const commits: Promise<unknown>[] = [];
    /** Realms whose writes are conditional, with the promise telling whether they were written. */
    const guarded = new Map<number, Promise<boolean>>();
    const guardIndex = new Map<number, number>();
    try {
      for (const [realmId, appends] of byRealm(batch)) {
        const earlier = this.issuedTails.get(realmId);
        if (earlier === undefined) {
          this.write(appends, commits);
        } else {
          const written = this.store.log.ifVersion([realmId, earlier.seq], IF_EXISTS, () => this.write(appends, undefined));
          guarded.set(realmId, written);
          guardIndex.set(realmId, commits.push(written) - 1);
        }
        // Only a batch that writes records has a tail to be conditional on (an empty append's
        // "last seq" may be 0 or trimmed, a key that never exists).
        if (appends.some((a) => a.records.length > 0)) {
          this.issuedTails.set(realmId, { seq: appends[appends.length - 1]!.lastSeq, batch: batchNo });
        }
      }
    } catch (error) {
      // Only possible if the environment is closed underneath us; writes already queued may
      // still commit, which `fail` accounts for by re-reading lastSeq from disk.
      commits.push(Promise.reject(error));
    }
    this.inFlight++;
    commitBatchAppends.observe(batch.length);
    const issuedAt = performance.now();
    const durable = this.store.durable(commits); // synchronously after the writes (captures the flush)
    let committed = false;
    void Promise.all(commits).then(
      (results) => {
        committed = true;
        // Committed: later batches of these realms need no condition, and the slot is free. A
        // realm whose condition failed keeps its (never written) tail, so that its next batch
        // stays conditional too until `fail` of the earlier batch has reset the realm.
        const skipped = new Set<number>();
        for (const [realmId, index] of guardIndex) if (results[index] === false) skipped.add(realmId);
        this.forgetTails(batch, batchNo, skipped);
        this.inFlight--;
        this.schedule();
      },
      () => undefined, // freed below, once the failure is handled (seqs reset first)
    );
    const previous = this.lastSettled;
    this.lastSettled = durable
      .then(
        () =>
          previous.then(() => {
            commitDurableSeconds.observe((performance.now() - issuedAt) / 1000);
            return this.resolve(batch, guarded);
          }),
        (error: unknown) =>
          previous.then(() => {
            this.fail(batch, error, batchNo, true);
            if (!committed) {
              this.inFlight--;
              this.schedule();
            }
          }),
      )
      .catch(() => undefined);
  }

  /** Queues the puts of `appends` (inside the current synchronous run). */
  private write(appends: readonly PendingAppend[], commits: Promise<unknown>[] | undefined): void {
    const { log, bodies, meta } = this.store;
    for (const a of appends) {
      for (let i = 0; i < a.records.length; i++) {
        const put = log.put([a.realmId, a.firstSeq + i], a.records[i]!);
        commits?.push(put);
      }
      for (const [messageId, body] of a.bodies) {
        const op = body === null ? bodies.remove([a.realmId, messageId]) : bodies.put([a.realmId, messageId], body);
        commits?.push(op);
      }
      if (a.meta !== undefined) commits?.push(meta.put(['realm', a.realmId], a.meta));
    }
  }

  private async resolve(batch: readonly PendingAppend[], guarded: ReadonlyMap<number, Promise<boolean>>): Promise<void> {
    const skipped = new Set<number>();
    for (const [realmId, written] of guarded) if (!(await written)) skipped.add(realmId);
    for (const a of batch) {
      if (skipped.has(a.realmId)) {
        // The earlier batch of this realm failed (and was handled by `fail`): nothing was written.
        a.reject(new Error(`append to realm ${a.realmId}'s log cancelled: an earlier append of the realm failed`));
        continue;
      }
      this.owner.noteDurable(a.realmId, a.lastSeq);
      a.resolve(a.lastSeq);
    }
  }

  /** Forgets the tails a committed batch set (later batches no longer need to be conditional). */
  private forgetTails(batch: readonly PendingAppend[], batchNo: number, skipped: ReadonlySet<number>): void {
    for (const a of batch) {
      if (skipped.has(a.realmId)) continue;
      if (this.issuedTails.get(a.realmId)?.batch === batchNo) this.issuedTails.delete(a.realmId);
    }
  }

  /**
   * Rejects `batch`, cancels the queued appends of its realms (their seqs followed the failed
   * ones) and resets those realms' last seq. `issued`: whether LMDB saw the batch (a refused one
   * leaves the earlier in-flight batch's tail in place).
   */
  private fail(batch: readonly PendingAppend[], error: unknown, batchNo: number, issued: boolean): void {
    const realms = new Set(batch.map((a) => a.realmId));
    for (const a of batch) a.reject(error);
    const keep: PendingAppend[] = [];
    for (const p of this.pending) {
      if (!realms.has(p.realmId)) {
        keep.push(p);
        continue;
      }
      p.reject(new Error(`append to realm ${p.realmId}'s log cancelled: an earlier append of the realm failed`, { cause: error }));
    }
    this.pending = keep;
    this.store.root.resetReadTxn();
    for (const realmId of realms) {
      const tail = this.issuedTails.get(realmId);
      if (!issued && tail !== undefined && tail.batch !== batchNo) {
        // An earlier batch of the realm is still in flight: the seqs continue after it.
        this.owner.resetLastSeq(realmId, tail.seq);
        continue;
      }
      // This batch failed; a later one already issued for the realm is conditional on it and
      // writes nothing for the realm, so the disk holds the realm's true last seq.
      this.issuedTails.delete(realmId);
      this.owner.resetLastSeq(realmId, undefined);
    }
  }
}
