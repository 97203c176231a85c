import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Column } from '../../src/domain/column.js';
import { AppendLog } from '../../src/storage/append-log.js';
import { StorageCorruptionError } from '../../src/storage/codec.js';
import { openStore, type KeyPart, type Store } from '../../src/storage/lmdb.js';
import { SnapshotStore } from '../../src/storage/snapshot-store.js';



function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-snap-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Env {
  store: Store;
  log: AppendLog;
  snapshots: SnapshotStore;
  /** Keys of every `col` chunk put into the snapshot table (tests reset it). */
  chunkPuts: KeyPart[][];
  /** Keys of every other put into the snapshot table (tests reset it). */
  otherPuts: KeyPart[][];
}

function openEnv(t: Test, dir: string): Env {
  const store = openStore(dir);
  t.teardown(() => store.close());
  const log = new AppendLog(store);
  const env: Env = { store, log, snapshots: new SnapshotStore(store, log), chunkPuts: [], otherPuts: [] };
  const realPut = store.snapshot.put.bind(store.snapshot);
  store.snapshot.put = ((key: KeyPart[], value: Uint8Array) => {
    (key[1] === 'col' ? env.chunkPuts : env.otherPuts).push(key);
    return realPut(key, value);
  }) as typeof store.snapshot.put;
  return env;
}

const rec = (n: number) => ({ type: 'counter_added', v: 1, n });

function fill(column: Column, n: number, f: (i: number) => number): Column {
  for (let i = 0; i < n; i++) column.set(i, f(i));
  return column;
}

function sameColumn(t: Test, actual: Column | undefined, expected: Column, name: string): void {
  t.ok(actual, `${name} restored`);
  if (!actual) return;
  t.equal(actual.kind, expected.kind, `${name} kind`);
  t.equal(actual.chunkBits, expected.chunkBits, `${name} chunkBits`);
  t.equal(actual.length, expected.length, `${name} length`);
  let diff = -1;
  for (let i = 0; i < expected.length; i++) {
    if (actual.get(i) !== expected.get(i)) {
      diff = i;
      break;
    }
  }
  t.equal(diff, -1, `${name} values equal`);
}

t.test('round trip; the second snapshot rewrites only dirty chunks', async (t) => {
  const dir = tempDir(t);
  const sender = fill(new Column('int32'), 40_000, (i) => i * 3 - 7); // 3 chunks of 16 Ki
  const stamps = fill(new Column('float64'), 20_000, (i) => i / 3);
  const umIds = fill(new Column('int32', 8), 1000, (i) => i * 2); // 4 chunks of 256
  const core = { version: 1, users: [{ id: 1, name: 'Iago' }], nextIds: { message: 40_000 } };
  {
    const env = openEnv(t, dir);
    await env.log.append(1, [rec(1), rec(2), rec(3)]);
    const stats1 = await env.snapshots.writeSnapshot(1, 3, core, { sender, stamps, 'um:ids:1': umIds });
    t.equal(stats1.chunksWritten, 3 + 2 + 4, 'first snapshot writes every chunk');
    t.equal(env.chunkPuts.length, 9);
    t.equal(stats1.columnMetasWritten, 3);

    sender.set(20_000, 99); // chunk 1
    umIds.push(5); // chunk 3 (index 1000)
    await env.log.append(1, [rec(4)]);
    env.chunkPuts.length = 0;
    const stats2 = await env.snapshots.writeSnapshot(1, 4, { ...core, n: 2 }, { sender, stamps, 'um:ids:1': umIds });
    t.equal(stats2.chunksWritten, 2, 'second snapshot writes the 2 dirty chunks only');
    t.same(env.chunkPuts, [
      [1, 'col', 'sender', 1],
      [1, 'col', 'um:ids:1', 3],
    ]);
    t.equal(stats2.columnMetasWritten, 1, 'only the column whose length changed gets new metadata');

    env.chunkPuts.length = 0;
    env.otherPuts.length = 0;
    const stats3 = await env.snapshots.writeSnapshot(1, 4, core, { sender, stamps, 'um:ids:1': umIds });
    t.equal(stats3.chunksWritten, 0, 'nothing dirty, no chunk written');
    t.equal(env.chunkPuts.length, 0);
    t.same(env.otherPuts, [
      [1, 'core'],
      [1, 'header'],
    ], 'unchanged column names and metadata are not rewritten');
    await env.store.close();
  }
  const env = openEnv(t, dir);
  const snap = env.snapshots.readSnapshot(1);
  t.ok(snap);
  t.equal(snap!.seq, 4);
  t.same(snap!.core, core);
  t.same(Object.keys(snap!.columns).sort(), ['sender', 'stamps', 'um:ids:1']);
  sameColumn(t, snap!.columns['sender'], sender, 'sender');
  sameColumn(t, snap!.columns['stamps'], stamps, 'stamps');
  sameColumn(t, snap!.columns['um:ids:1'], umIds, 'um:ids:1');
  t.same(snap!.columns['sender']!.takeDirtyChunks(), [], 'restored chunks are not dirty');
  t.equal(env.snapshots.readSnapshot(2), null, 'no snapshot for another realm');

  // Restored columns are known: the next snapshot is incremental.
  const restored = snap!.columns;
  restored['stamps']!.set(5, 1.5);
  env.chunkPuts.length = 0;
  const stats = await env.snapshots.writeSnapshot(1, 4, snap!.core, restored);
  t.equal(stats.chunksWritten, 1);
  t.same(env.chunkPuts, [[1, 'col', 'stamps', 0]]);
});

t.test('writing a snapshot trims the log it covers', async (t) => {
  const env = openEnv(t, tempDir(t));
  await env.log.append(1, [rec(1), rec(2), rec(3), rec(4)]);
  await env.snapshots.writeSnapshot(1, 3, { n: 3 }, {});
  t.equal(env.log.trimmedThrough(1), 3);
  t.same([...env.log.readFrom(1, 3)].map((e) => e.seq), [4]);
  t.equal([...env.store.log.getKeys({ start: [1, 0], end: [1, 4] })].length, 0);
});

t.test('a column object not written before is written in full; stale chunks are pruned', async (t) => {
  const env = openEnv(t, tempDir(t));
  await env.log.append(1, [rec(1)]);
  await env.snapshots.writeSnapshot(1, 1, {}, { c: fill(new Column('uint16', 4), 64, (i) => i + 1) }); // 4 chunks
  const replacement = new Column('uint16', 4);
  replacement.set(40, 7); // allocates chunks 0..2, marks only chunk 2 dirty
  env.chunkPuts.length = 0;
  const stats = await env.snapshots.writeSnapshot(1, 1, {}, { c: replacement });
  t.equal(stats.chunksWritten, 3, 'all 3 chunks of the replacement, not only the dirty one');
  t.equal([...env.store.snapshot.getKeys({ start: [1, 'col', 'c', 0], end: [1, 'col', 'c', 1e9] })].length, 3, 'chunk 3 pruned');
  const snap = env.snapshots.readSnapshot(1)!;
  sameColumn(t, snap.columns['c'], replacement, 'c');
  t.equal(snap.columns['c']!.get(1), 0, 'no stale value from the replaced column');
});

t.test('a column dropped from the state is deleted from the snapshot', async (t) => {
  const env = openEnv(t, tempDir(t));
  await env.log.append(1, [rec(1)]);
  const keep = fill(new Column('int32', 4), 10, (i) => i);
  await env.snapshots.writeSnapshot(1, 1, {}, { keep, 'um:ids:9': fill(new Column('int32', 4), 10, (i) => i) });
  const stats = await env.snapshots.writeSnapshot(1, 1, {}, { keep });
  t.equal(stats.columnsRemoved, 1);
  t.equal([...env.store.snapshot.getKeys({ start: [1, 'col', 'um:ids:9'], end: [1, 'col', 'um:ids:9', 1e9] })].length, 0);
  t.equal(env.store.snapshot.getBinary([1, 'colmeta', 'um:ids:9']), undefined);
  t.same(Object.keys(env.snapshots.readSnapshot(1)!.columns), ['keep']);
});

t.test('adoptColumns keeps the first snapshot after a restore incremental', async (t) => {
  const dir = tempDir(t);
  {
    const env = openEnv(t, dir);
    await env.log.append(1, [rec(1)]);
    await env.snapshots.writeSnapshot(1, 1, {}, { a: fill(new Column('int32', 4), 100, (i) => i) });
    await env.store.close();
  }
  const env = openEnv(t, dir);
  const snap = env.snapshots.readSnapshot(1)!;
  // The domain copies restored columns into its own objects.
  const copy = new Column('int32', 4);
  const source = snap.columns['a']!;
  for (let i = 0; i < source.chunkCount; i++) {
    const chunk = source.chunk(i);
    copy.restoreChunk(i, new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  copy.restoreLength(source.length);
  t.equal(env.snapshots.adoptColumns(1, { a: copy }), 1);
  copy.set(50, -1);
  env.chunkPuts.length = 0;
  const stats = await env.snapshots.writeSnapshot(1, 1, {}, { a: copy });
  t.equal(stats.chunksWritten, 1, 'only the dirty chunk, not all 25');
  t.equal(env.snapshots.adoptColumns(1, { a: new Column('int32', 8) }), 0, 'a column of another shape is not adopted');
});

t.test('a failed snapshot write re-marks the chunks dirty', async (t) => {
  const env = openEnv(t, tempDir(t));
  await env.log.append(1, [rec(1)]);
  const c = fill(new Column('int32', 4), 64, (i) => i);
  await env.snapshots.writeSnapshot(1, 1, {}, { c });
  c.set(3, 100);
  c.set(60, 100);
  const realPut = env.store.snapshot.put;
  env.store.snapshot.put = (() => Promise.reject(new Error('disk full'))) as typeof realPut;
  await t.rejects(env.snapshots.writeSnapshot(1, 1, {}, { c }), { message: 'disk full' });
  env.store.snapshot.put = realPut;
  t.same(c.takeDirtyChunks(), [0, 3], 'chunks taken by the failed write are dirty again');
  c.markDirty([0, 3]);
  const stats = await env.snapshots.writeSnapshot(1, 1, {}, { c });
  t.equal(stats.chunksWritten, 2);
  t.equal(env.snapshots.readSnapshot(1)!.columns['c']!.get(60), 100);
});

t.test('a snapshot holds the state as of the call while the columns change during its write', async (t) => {
  const dir = tempDir(t);
  const env = openEnv(t, dir);
  await env.log.append(1, [rec(1)]);
  // 300 chunks of 64 KiB: copying them takes several slices, so writes land between slices.
  const big = fill(new Column('int32'), 300 << 14, (i) => i);
  const small = fill(new Column('uint16', 4), 100, (i) => i);
  const before = { big: Int32Array.from({ length: big.length }, (_, i) => big.get(i)), small: Array.from({ length: 100 }, (_, i) => small.get(i)) };
  const writing = env.snapshots.writeSnapshot(1, 1, {}, { big, small });
  // Synchronously after the call, then on every turn until the write is done.
  let done = false;
  void writing.finally(() => (done = true));
  let turns = 0;
  const mutate = (): void => {
    big.set((turns * 7919) % (300 << 14), -1);
    big.set(big.length, -2); // a new chunk
    small.copyWithin(0, 50, 100);
    small.push(turns);
    turns++;
  };
  mutate();
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!done) mutate();
  }
  await writing;
  t.ok(turns > 2, `the write yielded to the event loop (${turns} turns)`);
  const snap = env.snapshots.readSnapshot(1)!;
  const restoredBig = snap.columns['big']!;
  t.equal(restoredBig.length, 300 << 14, 'length as of the call');
  let diff = -1;
  for (let i = 0; i < before.big.length; i++) {
    if (restoredBig.get(i) !== before.big[i]) {
      diff = i;
      break;
    }
  }
  t.equal(diff, -1, 'big: every value as of the call');
  t.same(Array.from({ length: 100 }, (_, i) => snap.columns['small']!.get(i)), before.small, 'small: values as of the call');
  t.equal(snap.columns['small']!.length, 100);

  // The writes made during the write are dirty: the next snapshot stores them.
  await env.log.append(1, [rec(2)]);
  await env.snapshots.writeSnapshot(1, 2, {}, { big, small });
  const next = env.snapshots.readSnapshot(1)!;
  sameColumn(t, next.columns['big'], big, 'big after the next snapshot');
  sameColumn(t, next.columns['small'], small, 'small after the next snapshot');
});

t.test('a snapshot refused while planning leaves no column pinned and every chunk dirty', async (t) => {
  const env = openEnv(t, tempDir(t));
  await env.log.append(1, [rec(1)]);
  const good = fill(new Column('int32', 4), 40, (i) => i);
  const broken = new Column('int32', 4);
  broken.restoreLength(100); // longer than its (zero) allocated chunks
  await t.rejects(env.snapshots.writeSnapshot(1, 1, {}, { good, broken }), RangeError, 'the broken column is refused');
  t.doesNotThrow(() => good.pin([0]), 'the good column was unpinned');
  good.unpin();
  t.same(good.takeDirtyChunks(), [0, 1, 2], "the good column's chunks are dirty again");
  good.markDirty([0, 1, 2]);
  const stats = await env.snapshots.writeSnapshot(1, 1, {}, { good });
  t.equal(stats.chunksWritten, 3, 'the next snapshot writes them');
  sameColumn(t, env.snapshots.readSnapshot(1)!.columns['good'], good, 'good');
});

t.test('argument checks', async (t) => {
  const env = openEnv(t, tempDir(t));
  await env.log.append(1, [rec(1)]);
  await t.rejects(env.snapshots.writeSnapshot(1, 2, {}, {}), RangeError, 'seq beyond the log');
  await t.rejects(env.snapshots.writeSnapshot(1, 1, {}, { 'a\u0000b': new Column('int32') }), RangeError);
  const first = env.snapshots.writeSnapshot(1, 1, {}, {});
  await t.rejects(env.snapshots.writeSnapshot(1, 1, {}, {}), { message: /already being written/ });
  await first;
});

t.test('the snapshot waits for the log to be durable through its seq', async (t) => {
  const env = openEnv(t, tempDir(t));
  const appended = env.log.append(1, [rec(1), rec(2)]);
  let appendDone = false;
  void appended.then(() => (appendDone = true));
  await env.snapshots.writeSnapshot(1, 2, { n: 2 }, {});
  t.equal(appendDone, true);
  t.equal(env.snapshots.readSnapshot(1)!.seq, 2);
});

function corruptionOf(fn: () => unknown): StorageCorruptionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StorageCorruptionError) return error;
    throw error;
  }
  throw new Error('expected a StorageCorruptionError');
}

t.test('corruption of any snapshot part is detected', async (t) => {
  const dir = tempDir(t);
  const env = openEnv(t, dir);
  await env.log.append(1, [rec(1)]);
  await env.snapshots.writeSnapshot(1, 1, { hello: 'world' }, { c: fill(new Column('int32', 4), 40, (i) => i) });
  const db = env.store.snapshot;
  const flip = async (key: KeyPart[], at: number) => {
    const original = Uint8Array.from(db.getBinary(key)!);
    const bad = Uint8Array.from(original);
    bad[at < 0 ? bad.length + at : at]! ^= 0x10;
    await db.put(key, bad);
    return () => db.put(key, original);
  };
  let restore = await flip([1, 'col', 'c', 1], -1);
  let e = corruptionOf(() => env.snapshots.readSnapshot(1));
  t.equal(e.check, 'crc');
  t.match(e.message, /realm 1, snapshot column "c" chunk 1: chunk CRC mismatch/);
  await restore();

  const chunk = db.getBinary([1, 'col', 'c', 2])!;
  await db.put([1, 'col', 'c', 2], Uint8Array.from(chunk.subarray(0, 20)));
  t.equal(corruptionOf(() => env.snapshots.readSnapshot(1)).check, 'truncated');
  await db.put([1, 'col', 'c', 2], Uint8Array.from(chunk));

  await db.remove([1, 'col', 'c', 0]);
  t.match(corruptionOf(() => env.snapshots.readSnapshot(1)).message, /chunk 0: chunk is missing/);
  await db.put([1, 'col', 'c', 0], Uint8Array.from(chunk));
  t.equal(corruptionOf(() => env.snapshots.readSnapshot(1)).check, 'crc', 'a chunk stored under the wrong key fails its check');

  await env.snapshots.writeSnapshot(1, 1, { hello: 'world' }, { c: fill(new Column('int32', 4), 40, (i) => i) });
  restore = await flip([1, 'core'], -1);
  e = corruptionOf(() => env.snapshots.readSnapshot(1));
  t.match(e.message, /realm 1, snapshot core: CRC mismatch/);
  await restore();

  restore = await flip([1, 'header'], -1);
  t.match(corruptionOf(() => env.snapshots.readSnapshot(1)).message, /snapshot header: CRC mismatch/);
  await restore();

  restore = await flip([1, 'colmeta', 'c'], -1);
  t.match(corruptionOf(() => env.snapshots.readSnapshot(1)).message, /snapshot column "c": CRC mismatch/);
  await restore();

  restore = await flip([1, 'names'], -1);
  t.match(corruptionOf(() => env.snapshots.readSnapshot(1)).message, /snapshot names: CRC mismatch/);
  await restore();

  // A core from another snapshot (valid CRC on its own) does not match the header.
  const otherCore = Uint8Array.from(db.getBinary([1, 'core'])!);
  await env.log.append(1, [rec(2)]);
  await env.snapshots.writeSnapshot(1, 2, { hello: 'again' }, {});
  await db.put([1, 'core'], otherCore);
  t.equal(corruptionOf(() => env.snapshots.readSnapshot(1)).check, 'mismatch');
});
