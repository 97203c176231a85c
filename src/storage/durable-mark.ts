/**
 * The durable high-water mark `<dataDir>/parley-durable.json`: the last durable log
 * seq of every realm, kept outside LMDB, so that a store that comes back older than what the
 * server acknowledged (a flipped bit in LMDB's older meta page makes LMDB open the previous
 * transaction; a stale copy of `data.mdb` put back) is refused at start instead of silently
 * losing acknowledged writes.
 *
 * ```json
 * {"store_id": "5f0c8a2e-…", "realms": {"1": 1234, "2": 56}}
 * ```
 *
 * Written only after LMDB reports the seqs flushed, so it never claims more than the disk holds;
 * batched (at most one write per `delayMs`, default 50 ms, plus one at close), each write atomic
 * and fsynced (durable-file.ts). After a `kill -9` it may lag the store by the last batch, which
 * is harmless (the check only refuses a store *behind* it). A backup must copy this file no later
 * than `data.mdb` (a mark copied after the data could be ahead of it and the restore refused).
 */
import { join } from 'node:path';
import { DataDirError } from './data-dir-error.js';
import { readFileIfExists, writeFileDurably, writeFileDurablySync } from './durable-file.js';

/** Name of the high-water-mark file inside the data directory. */
export const DURABLE_MARK_FILE_NAME = 'parley-durable.json';

/** The mark's content. */
export interface DurableMarkContent {
  storeId: string;
  /** Last durable log seq per realm id. */
  realms: Map<number, number>;
}

/**
 * Reads `dataDir`'s mark; undefined if there is none. Throws `DataDirError` if it is malformed.
 */
export function readDurableMark(dataDir: string): DurableMarkContent | undefined {
  const path = join(dataDir, DURABLE_MARK_FILE_NAME);
  const text = readFileIfExists(path);
  if (text === undefined) return undefined;
  const malformed = () => new DataDirError(dataDir, path, `${path} is ${text.trim() === '' ? 'empty' : 'malformed'}`);
  let value: { store_id?: unknown; realms?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    throw malformed();
  }
  if (typeof value?.store_id !== 'string' || typeof value.realms !== 'object' || value.realms === null) throw malformed();
  const realms = new Map<number, number>();
  for (const [id, seq] of Object.entries(value.realms as Record<string, unknown>)) {
    const realmId = Number(id);
    if (!Number.isSafeInteger(realmId) || realmId < 1 || !Number.isSafeInteger(seq) || (seq as number) < 0) throw malformed();
    realms.set(realmId, seq as number);
  }
  return { storeId: value.store_id, realms };
}

/**
 * Refuses a store that is behind `dataDir`'s mark: throws `DataDirError` naming `data.mdb` if
 * the mark belongs to another store or any realm's `lastSeq` is below its mark. No mark: no check.
 */
export function checkDurableMark(dataDir: string, storeId: string, lastSeq: (realmId: number) => number): void {
  const mark = readDurableMark(dataDir);
  if (mark === undefined) return;
  const data = join(dataDir, 'data.mdb');
  const markPath = join(dataDir, DURABLE_MARK_FILE_NAME);
  if (mark.storeId !== storeId) {
    throw new DataDirError(dataDir, data, `${markPath} belongs to store ${mark.storeId}, but ${data} is store ${storeId}`);
  }
  for (const [realmId, seq] of mark.realms) {
    const have = lastSeq(realmId);
    if (have < seq) {
      throw new DataDirError(
        dataDir,
        data,
        `${data} is older than what the server acknowledged: realm ${realmId}'s log ends at seq ${have}, but seq ${seq} ` +
          `was durable (${markPath})`,
      );
    }
  }
}

/** Keeps the mark file up to date as appends become durable. */
export class DurableMark {
  private readonly realms = new Map<number, number>();
  private readonly path: string;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private warned = false;

  /**
   * `initial` seeds the per-realm seqs (the store's current `lastSeq`s, so realms not written in
   * this process keep their mark). Nothing is written until `note`.
   */
  constructor(
    dataDir: string,
    private readonly storeId: string,
    initial: ReadonlyMap<number, number> = new Map(),
    private readonly delayMs = 50,
  ) {
    this.path = join(dataDir, DURABLE_MARK_FILE_NAME);
    for (const [id, seq] of initial) this.realms.set(id, seq);
  }

  /** Records that `realmId`'s log is durable through `seq`; the file follows within `delayMs`. */
  note(realmId: number, seq: number): void {
    if ((this.realms.get(realmId) ?? 0) >= seq) return;
    this.realms.set(realmId, seq);
    this.dirty = true;
    if (this.timer === undefined && this.writing === undefined) this.timer = setTimeout(() => this.write(), this.delayMs);
  }

  private content(): string {
    return JSON.stringify({ store_id: this.storeId, realms: Object.fromEntries(this.realms) }) + '\n';
  }

  private write(): void {
    this.timer = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = writeFileDurably(this.path, this.content()).then(
      () => {
        this.writing = undefined;
        if (this.dirty) this.timer = setTimeout(() => this.write(), this.delayMs);
      },
      (error: unknown) => {
        // A full disk: the mark lags (harmless, see the module comment); retried on the next note.
        this.writing = undefined;
        this.dirty = true;
        if (!this.warned) console.error(`parley: cannot update ${this.path}: ${(error as Error).message}`);
        this.warned = true;
      },
    );
  }

  /** Writes any pending update now (at close). Never throws: a failure only leaves the mark behind. */
  async flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    if (!this.dirty) return;
    try {
      writeFileDurablySync(this.path, this.content());
      this.dirty = false;
    } catch (error) {
      console.error(`parley: cannot update ${this.path}: ${(error as Error).message}`);
    }
  }
}
