/**
 * `parley verify`: reads a data directory the way start-up would and checks
 * everything, reporting every problem instead of stopping at the first:
 * the identity file and LMDB's data file (lmdb-file-check.ts), the durable high-water mark, every
 * realm's snapshot (all checksums), every log record (CRC, contiguous seqs) and every message body
 * (CRC). Opens the store read-only, so it may run beside a live server (it then checks the latest
 * committed state).
 */
import { AppendLog } from './append-log.js';
import { decodeRecord, StorageCorruptionError } from './codec.js';
import { DataDirError } from './data-dir-error.js';
import { checkDurableMark } from './durable-mark.js';
import { openStore, type Store } from './lmdb.js';
import { SnapshotStore } from './snapshot-store.js';

/** Progress of a scan: `done` of `total` items (log records + bodies) checked so far. */
export interface VerifyProgress {
  done: number;
  total: number;
}

/** What `verifyDataDir` found. `problems` is empty for a sound store. */
export interface VerifyReport {
  realms: number;
  snapshots: number;
  records: number;
  bodies: number;
  /** One line per problem, naming the file or the realm/seq/message. */
  problems: string[];
}

const MAX_KEY = Number.MAX_SAFE_INTEGER;
/** Items between two progress callbacks. */
const PROGRESS_EVERY = 2000;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Scans `dataDir` (see the module comment). Never throws for damage — it is reported in
 * `problems` — but throws for errors unrelated to the data (EACCES…).
 */
export async function verifyDataDir(dataDir: string, onProgress: (p: VerifyProgress) => void = () => {}): Promise<VerifyReport> {
  const report: VerifyReport = { realms: 0, snapshots: 0, records: 0, bodies: 0, problems: [] };
  let store: Store;
  try {
    store = openStore(dataDir, { readOnly: true });
  } catch (error) {
    if (error instanceof DataDirError || error instanceof StorageCorruptionError || (error as Error).name === 'StorageVersionError') {
      report.problems.push(describe(error));
      return report;
    }
    throw error;
  }
  try {
    const log = new AppendLog(store);
    try {
      checkDurableMark(store.dataDir, store.identity.storeId, (realmId) => log.lastSeq(realmId));
    } catch (error) {
      report.problems.push(describe(error));
    }
    let realms: Array<{ id: number; subdomain: string }> = [];
    try {
      realms = log.listRealms();
    } catch (error) {
      report.problems.push(describe(error));
    }
    report.realms = realms.length;
    const total = realms.reduce(
      (n, { id }) => n + store.log.getCount({ start: [id, 0], end: [id, MAX_KEY] }) + store.bodies.getCount({ start: [id, 0], end: [id, MAX_KEY] }),
      0,
    );
    let done = 0;
    const tick = async (): Promise<void> => {
      done++;
      if (done % PROGRESS_EVERY === 0) {
        onProgress({ done, total });
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    onProgress({ done, total });
    const snapshots = new SnapshotStore(store, log);
    for (const { id } of realms) {
      try {
        if (snapshots.readSnapshot(id) !== null) report.snapshots++;
      } catch (error) {
        report.problems.push(describe(error));
      }
      // Every record still in the log (also those a snapshot covers), with contiguous seqs.
      try {
        for (const _ of log.readFrom(id, log.trimmedThrough(id))) {
          report.records++;
          await tick();
        }
      } catch (error) {
        report.problems.push(describe(error));
      }
      for (const { key, value } of store.bodies.getRange({ start: [id, 0], end: [id, MAX_KEY] })) {
        try {
          decodeRecord(value, { realmId: id, what: `body of message ${key[1]}` });
          report.bodies++;
        } catch (error) {
          report.problems.push(describe(error));
        }
        await tick();
      }
    }
    onProgress({ done: total, total });
    return report;
  } finally {
    await store.close();
  }
}
