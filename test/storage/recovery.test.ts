import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Column } from '../../src/domain/column.js';
import { AppendLog } from '../../src/storage/append-log.js';
import { StorageCorruptionError } from '../../src/storage/codec.js';
import { openStore, type Store } from '../../src/storage/lmdb.js';
import { recoverRealm, RecoveryError, type RealmFold } from '../../src/storage/recovery.js';
import { SnapshotStore } from '../../src/storage/snapshot-store.js';



function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-recovery-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function openEnv(t: Test, dir: string): { store: Store; log: AppendLog; snapshots: SnapshotStore } {
  const store = openStore(dir);
  t.teardown(() => store.close());
  const log = new AppendLog(store);
  return { store, log, snapshots: new SnapshotStore(store, log) };
}

/** Toy realm state: a counter, a running sum and a column of every value (chunks of 16). */
interface Toy {
  count: number;
  sum: number;
  values: Column;
}

type ToyRecord = { type: 'added'; v: 1; n: number } | { type: 'reset_sum'; v: 1 };

const toyFold: RealmFold<Toy> = {
  empty: () => ({ count: 0, sum: 0, values: new Column('int32', 4) }),
  fromSnapshot(core, columns) {
    const c = core as { count: number; sum: number };
    return { count: c.count, sum: c.sum, values: columns['values'] ?? new Column('int32', 4) };
  },
  evolve(state, record) {
    const r = record as ToyRecord;
    switch (r.type) {
      case 'added':
        state.count++;
        state.sum += r.n;
        state.values.push(r.n);
        return;
      case 'reset_sum':
        state.sum = 0;
        return;
      default:
        throw new Error(`unknown record type ${(r as { type: string }).type}`);
    }
  },
  columnsOf: (state) => ({ values: state.values }),
};

const toSnapshot = (s: Toy) => ({ core: { count: s.count, sum: s.sum }, columns: { values: s.values } });

function records(from: number, n: number): ToyRecord[] {
  return Array.from({ length: n }, (_, i): ToyRecord => ((from + i) % 17 === 0 ? { type: 'reset_sum', v: 1 } : { type: 'added', v: 1, n: from + i }));
}

function sameToy(t: Test, actual: Toy, expected: Toy): void {
  t.equal(actual.count, expected.count, 'count');
  t.equal(actual.sum, expected.sum, 'sum');
  t.equal(actual.values.length, expected.values.length, 'values length');
  const a = Array.from({ length: expected.values.length }, (_, i) => actual.values.get(i));
  const e = Array.from({ length: expected.values.length }, (_, i) => expected.values.get(i));
  t.same(a, e, 'values');
}

/** Appends `recs` and folds them into `live` the way the realm actor does. */
async function commit(log: AppendLog, live: Toy, recs: ToyRecord[]): Promise<number> {
  for (const r of recs) toyFold.evolve(live, r);
  return log.append(1, recs);
}

t.test('recovery = snapshot + tail equals the fold over the full log', async (t) => {
  const dir = tempDir(t);
  const live = toyFold.empty();
  const full = toyFold.empty(); // fold over every record ever appended, from scratch
  {
    const { store, log, snapshots } = openEnv(t, dir);
    for (let i = 0; i < 10; i++) await commit(log, live, records(i * 10 + 1, 10));
    const { core, columns } = toSnapshot(live);
    await snapshots.writeSnapshot(1, log.lastSeq(1), core, columns); // seq 100, trims 1..100
    for (const e of log.readFrom(1, 100)) toyFold.evolve(full, e.record);
    await commit(log, live, records(101, 25));
    await commit(log, live, records(126, 5));
    await store.close();
  }
  for (const r of records(1, 130)) toyFold.evolve(full, r);
  const { store, log, snapshots } = openEnv(t, dir);
  const recovered = recoverRealm(log, snapshots, 1, toyFold);
  t.equal(recovered.seq, 130);
  t.equal(recovered.replayed, 30, 'only the tail after the snapshot is replayed');
  sameToy(t, recovered.state, full);
  sameToy(t, recovered.state, live);

  // The recovered state keeps evolving and snapshotting incrementally (columns adopted).
  const state = recovered.state;
  const lengthAtSnapshot = 100 - Math.floor(100 / 17); // values pushed by records 1..100
  await commit(log, state, records(131, 3));
  const dirtySinceSnapshot = Math.floor((state.values.length - 1) / 16) - Math.floor(lengthAtSnapshot / 16) + 1;
  const puts: unknown[] = [];
  const realPut = store.snapshot.put.bind(store.snapshot);
  store.snapshot.put = ((key: unknown[], value: Uint8Array) => {
    if (key[1] === 'col') puts.push(key);
    return realPut(key as never, value);
  }) as typeof store.snapshot.put;
  const { core, columns } = toSnapshot(state);
  const stats = await snapshots.writeSnapshot(1, 133, core, columns);
  t.equal(stats.chunksWritten, dirtySinceSnapshot, `only the chunks the tail touched are rewritten (of ${state.values.chunkCount})`);
  t.ok(dirtySinceSnapshot < state.values.chunkCount);
  t.equal(puts.length, stats.chunksWritten);
  const again = recoverRealm(log, snapshots, 1, toyFold);
  t.equal(again.replayed, 0);
  t.equal(again.seq, 133);
  sameToy(t, again.state, state);
});

t.test('recovery without a snapshot replays the whole log; an unknown realm is empty', async (t) => {
  const { log, snapshots } = openEnv(t, tempDir(t));
  const live = toyFold.empty();
  await commit(log, live, records(1, 40));
  const r = recoverRealm(log, snapshots, 1, toyFold);
  t.equal(r.replayed, 40);
  sameToy(t, r.state, live);
  const empty = recoverRealm(log, snapshots, 9, toyFold);
  t.same([empty.seq, empty.replayed, empty.state.count], [0, 0, 0]);
});

t.test('a corrupted record stops recovery with a clear error', async (t) => {
  const dir = tempDir(t);
  {
    const { store, log, snapshots } = openEnv(t, dir);
    const live = toyFold.empty();
    await commit(log, live, records(1, 10));
    await snapshots.writeSnapshot(1, 10, toSnapshot(live).core, toSnapshot(live).columns);
    await commit(log, live, records(11, 10));
    const bytes = Uint8Array.from(store.log.getBinary([1, 15])!);
    bytes[6]! ^= 0xff;
    await store.log.put([1, 15], bytes);
    await store.close();
  }
  const { log, snapshots } = openEnv(t, dir);
  t.throws(() => recoverRealm(log, snapshots, 1, toyFold), {
    name: 'StorageCorruptionError',
    message: /storage corruption in realm 1, log record seq 15: CRC mismatch/,
  });
});

t.test('the first record after the snapshot must be snapshot.seq + 1', async (t) => {
  const { store, log, snapshots } = openEnv(t, tempDir(t));
  const live = toyFold.empty();
  await commit(log, live, records(1, 10));
  await snapshots.writeSnapshot(1, 10, toSnapshot(live).core, toSnapshot(live).columns);
  await commit(log, live, records(11, 5)); // seqs 11..15
  await store.log.remove([1, 11]);
  let error: unknown;
  try {
    recoverRealm(log, snapshots, 1, toyFold);
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof StorageCorruptionError, 'StorageCorruptionError');
  t.match((error as Error).message, /realm 1, log record seq 11: log gap: expected seq 11, found seq 12/);
});

t.test('a trimmed log without its snapshot is not silently loaded', async (t) => {
  const { store, log, snapshots } = openEnv(t, tempDir(t));
  const live = toyFold.empty();
  await commit(log, live, records(1, 10));
  await snapshots.writeSnapshot(1, 10, toSnapshot(live).core, toSnapshot(live).columns);
  await commit(log, live, records(11, 2));
  await store.snapshot.remove([1, 'header']); // the snapshot is gone, the log prefix too
  t.throws(() => recoverRealm(log, snapshots, 1, toyFold), {
    name: 'StorageCorruptionError',
    message: /realm 1: log records 1\.\.10 were trimmed/,
  });
});

t.test('a snapshot ahead of the log is reported', async (t) => {
  const dir = tempDir(t);
  {
    const { store, log, snapshots } = openEnv(t, dir);
    const live = toyFold.empty();
    await commit(log, live, records(1, 10));
    await snapshots.writeSnapshot(1, 10, toSnapshot(live).core, toSnapshot(live).columns);
    await store.meta.remove(['trimmed', 1]); // lose the log's memory of seqs 1..10
    await store.close();
  }
  const { log, snapshots } = openEnv(t, dir);
  t.throws(() => recoverRealm(log, snapshots, 1, toyFold), {
    name: 'StorageCorruptionError',
    message: /snapshot is at seq 10 but the log ends at seq 0/,
  });
});

t.test('a record evolve cannot fold is reported with its seq and type', async (t) => {
  const { log, snapshots } = openEnv(t, tempDir(t));
  await log.append(1, [{ type: 'added', v: 1, n: 1 }, { type: 'from_the_future', v: 9 }]);
  let error: unknown;
  try {
    recoverRealm(log, snapshots, 1, toyFold);
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof RecoveryError, 'RecoveryError');
  t.match((error as Error).message, /realm 1: replaying log record seq 2 \(type from_the_future\) failed: unknown record type/);
  t.equal((error as RecoveryError).seq, 2);
});
