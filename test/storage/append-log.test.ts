import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AppendLog } from '../../src/storage/append-log.js';
import { encodeRecord, StorageCorruptionError } from '../../src/storage/codec.js';
import { openStore, type Store } from '../../src/storage/lmdb.js';



function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-log-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function openLog(t: Test, dir: string): { store: Store; log: AppendLog } {
  const store = openStore(dir);
  t.teardown(() => store.close());
  return { store, log: new AppendLog(store) };
}

const rec = (n: number) => ({ type: 'counter_added', v: 1, n });
const turn = () => new Promise((resolve) => setImmediate(resolve));

function caught(fn: () => unknown): unknown {
  try {
    for (const _ of fn() as Iterable<unknown>) void _;
  } catch (error) {
    return error;
  }
  return undefined;
}

t.test('append assigns consecutive seqs and reads back across a reopen', async (t) => {
  const dir = tempDir(t);
  {
    const { store, log } = openLog(t, dir);
    t.equal(log.lastSeq(1), 0);
    t.equal(await log.append(1, [rec(1), rec(2), rec(3)]), 3);
    t.equal(await log.append(1, [rec(4)]), 4);
    t.equal(await log.append(2, [rec(10)]), 1, 'seqs are per realm');
    t.equal(await log.append(1, []), 4, 'an empty append resolves with the current last seq');
    t.equal(log.lastSeq(1), 4);
    await store.close();
  }
  const { log } = openLog(t, dir);
  t.equal(log.lastSeq(1), 4, 'lastSeq is read back from disk');
  t.equal(log.lastSeq(2), 1);
  t.same(
    [...log.readFrom(1, 0)],
    [1, 2, 3, 4].map((n) => ({ seq: n, record: rec(n) })),
  );
  t.same([...log.readFrom(1, 2)].map((e) => e.seq), [3, 4]);
  t.same([...log.readFrom(2, 0)], [{ seq: 1, record: rec(10) }]);
  t.equal(await log.append(1, [rec(5)]), 5, 'appending continues after the reopened tail');
});

t.test('appends issued in one turn share one LMDB commit (group commit)', async (t) => {
  const { store, log } = openLog(t, tempDir(t));
  await log.append(1, [rec(0)]); // warm up: format stamp etc. already committed
  const commits0 = store.commitCount;
  const batches0 = log.batchCount;
  const appends: Promise<number>[] = [];
  for (let i = 0; i < 50; i++) appends.push(log.append(1 + (i % 5), [rec(i), rec(i + 1000)], [[i, { html: `<p>${i}</p>` }]]));
  const seqs = await Promise.all(appends);
  t.equal(store.commitCount - commits0, 1, '50 appends in one turn = one commit');
  t.equal(log.batchCount - batches0, 1, 'and one write batch');
  t.same(seqs.slice(0, 6), [3, 2, 2, 2, 2, 5], 'seqs are per realm and consecutive');

  // Control: the same appends awaited one by one take one commit each.
  const commits1 = store.commitCount;
  for (let i = 0; i < 5; i++) await log.append(1, [rec(i)]);
  t.equal(store.commitCount - commits1, 5, 'sequential appends commit separately');
});

t.test('appends issued while a batch commits are grouped into the next batch', async (t) => {
  const { store, log } = openLog(t, tempDir(t));
  await log.append(1, [rec(0)]);
  const commits0 = store.commitCount;
  const batches0 = log.batchCount;
  const first = log.append(1, [rec(1)]);
  await turn(); // the first batch is now in flight
  const later: Promise<number>[] = [];
  for (let i = 0; i < 20; i++) later.push(log.append(1, [rec(i)]));
  await first;
  const seqs = await Promise.all(later);
  t.same(seqs, Array.from({ length: 20 }, (_, i) => i + 3));
  t.equal(log.batchCount - batches0, 2, 'two batches for 21 appends');
  // The second batch is handed to LMDB while the first is in flight (commit-pipeline.ts): if the
  // write thread has not started the first transaction yet, lmdb-js puts both in it.
  const commits = store.commitCount - commits0;
  t.ok(commits >= 1 && commits <= 2, `one or two commits for 21 appends (${commits})`);
  t.same([...log.readFrom(1, 0)].map((e) => e.seq), Array.from({ length: 22 }, (_, i) => i + 1));
});

t.test('bodies are written with the records and readable synchronously once the append resolves', async (t) => {
  const dir = tempDir(t);
  const { store, log } = openLog(t, dir);
  const body = { raw: '**hi**', html: '<p><strong>hi</strong></p>' };
  const pending = log.append(1, [rec(1)], [[7, body]]);
  t.equal(log.getBody(1, 7), undefined, 'not visible before the commit');
  await pending;
  t.same(log.getBody(1, 7), body);
  t.equal(log.getBody(2, 7), undefined, 'bodies are per realm');
  await log.append(1, [rec(2)], [[7, { raw: 'edited', html: '<p>edited</p>' }], [8, { raw: 'x', html: 'x' }]]);
  t.same(log.getBody(1, 7), { raw: 'edited', html: '<p>edited</p>' });
  await log.append(1, [rec(3)], [[8, null]]);
  t.equal(log.getBody(1, 8), undefined, 'a null body deletes it');

  // A corrupted body is reported, not returned.
  const bytes = encodeRecord(body);
  bytes[bytes.length - 1]! ^= 1;
  await store.bodies.put([1, 9], bytes);
  t.throws(() => log.getBody(1, 9), { name: 'StorageCorruptionError', message: /realm 1, body of message 9: CRC mismatch/ });
});

t.test('a flipped byte in a stored record is reported on read, naming realm and seq', async (t) => {
  const dir = tempDir(t);
  {
    const { store, log } = openLog(t, dir);
    await log.append(4, [rec(1), rec(2), rec(3)]);
    const stored = store.log.getBinary([4, 2])!;
    const bad = Uint8Array.from(stored);
    bad[bad.length - 1]! ^= 0x01;
    await store.log.put([4, 2], bad);
    await store.close();
  }
  const { log } = openLog(t, dir);
  const error = caught(() => log.readFrom(4, 0));
  t.ok(error instanceof StorageCorruptionError);
  t.match((error as Error).message, /realm 4, log record seq 2: CRC mismatch/);
  t.equal((error as StorageCorruptionError).seq, 2);
});

t.test('a truncated record is reported', async (t) => {
  const { store, log } = openLog(t, tempDir(t));
  await log.append(1, [rec(1), { type: 'long', v: 1, text: 'x'.repeat(500) }]);
  const stored = store.log.getBinary([1, 2])!;
  await store.log.put([1, 2], Uint8Array.from(stored.subarray(0, 100)));
  const error = caught(() => log.readFrom(1, 0));
  t.ok(error instanceof StorageCorruptionError);
  t.match((error as Error).message, /realm 1, log record seq 2: CRC mismatch, data corrupted or truncated/);
  await store.log.put([1, 2], Uint8Array.from(stored.subarray(0, 3)));
  t.match((caught(() => log.readFrom(1, 0)) as Error).message, /seq 2: truncated/);
});

t.test('a gap in the seqs is reported', async (t) => {
  const { store, log } = openLog(t, tempDir(t));
  await log.append(1, [rec(1), rec(2), rec(3), rec(4)]);
  await store.log.remove([1, 3]);
  t.same([...log.readFrom(1, 3)].map((e) => e.seq), [4], 'reading after the gap is fine');
  const error = caught(() => log.readFrom(1, 0));
  t.ok(error instanceof StorageCorruptionError);
  t.equal((error as StorageCorruptionError).check, 'gap');
  t.match((error as Error).message, /realm 1, log record seq 3: log gap: expected seq 3, found seq 4/);
  const fromTwo = caught(() => log.readFrom(1, 1));
  t.match((fromTwo as Error).message, /expected seq 3, found seq 4/);
  await store.log.remove([1, 1]);
  t.match((caught(() => log.readFrom(1, 0)) as Error).message, /expected seq 1, found seq 2/, 'a missing first record');
});

t.test('a failed commit rejects, cancels the realm queue behind it and leaves lastSeq consistent', async (t) => {
  const { store, log } = openLog(t, tempDir(t));
  await log.append(1, [rec(1), rec(2), rec(3)]);
  await log.append(2, [rec(1)]);
  const realPut = store.log.put;
  const failure = new Error('disk on fire');
  // Simulate a transaction that fails: writes are not applied and their promise rejects later.
  store.log.put = (() => new Promise((_, reject) => setTimeout(() => reject(failure), 20))) as typeof store.log.put;
  const failing = log.append(1, [rec(4), rec(5)]);
  const failingOther = log.append(2, [rec(2)]);
  await turn(); // batch issued with the failing put
  store.log.put = realPut;
  t.equal(log.lastSeq(1), 5, 'seqs are assigned at append time');
  const queued = log.append(1, [rec(6)]); // seq 6, waits behind the failing batch
  const unrelated = log.append(3, [rec(1)]);
  await t.rejects(failing, failure);
  await t.rejects(failingOther, failure);
  await t.rejects(queued, { message: /realm 1's log cancelled: an earlier append of the realm failed/ });
  t.equal(await unrelated, 1, 'other realms queued behind it are written');
  t.equal(log.lastSeq(1), 3, 'lastSeq is back to what is on disk');
  t.equal(log.lastSeq(2), 1);
  t.equal(await log.append(1, [rec(4)]), 4);
  t.same([...log.readFrom(1, 0)].map((e) => e.seq), [1, 2, 3, 4], 'no gap in the log');
});

t.test('invalid arguments reject without consuming seqs', async (t) => {
  const { log } = openLog(t, tempDir(t));
  await log.append(1, [rec(1)]);
  await t.rejects(log.append(0, [rec(1)]), RangeError);
  await t.rejects(log.append(1, [rec(2), null as unknown as object]), TypeError);
  await t.rejects(log.append(1, [rec(2)], [[-1, {}]]), RangeError);
  t.equal(log.lastSeq(1), 1);
  t.equal(await log.append(1, [rec(2)]), 2);
});

t.test('trimThrough deletes the prefix and keeps lastSeq across a reopen', async (t) => {
  const dir = tempDir(t);
  {
    const { store, log } = openLog(t, dir);
    const records = Array.from({ length: 4500 }, (_, i) => rec(i));
    await log.append(1, records);
    await log.append(2, [rec(1)]);
    await log.trimThrough(1, 4000);
    t.equal(log.trimmedThrough(1), 4000);
    t.same([...log.readFrom(1, 4000)].map((e) => e.seq).slice(0, 2), [4001, 4002]);
    t.equal([...store.log.getKeys({ start: [1, 0], end: [1, 4001] })].length, 0, 'prefix removed');
    t.throws(() => [...log.readFrom(1, 10)], { name: 'StorageCorruptionError', message: /log records 11\.\.4000 were trimmed/ });
    await log.trimThrough(1, 4500); // trim everything
    t.equal([...store.log.getKeys({ start: [1, 0], end: [1, 1e9] })].length, 0);
    t.same([...log.readFrom(2, 0)].map((e) => e.seq), [1], 'other realms untouched');
    await t.rejects(log.trimThrough(2, 5), RangeError);
    await store.close();
  }
  const { log } = openLog(t, dir);
  t.equal(log.lastSeq(1), 4500, 'a fully trimmed log still knows its last seq');
  t.equal(await log.append(1, [rec(1)]), 4501);
  t.same([...log.readFrom(1, 4500)].map((e) => e.seq), [4501]);
});

t.test('realm registry', async (t) => {
  const dir = tempDir(t);
  {
    const { store, log } = openLog(t, dir);
    t.same(log.listRealms(), []);
    await log.append(2, [], [], { subdomain: 'zulip' }); // registration alone, no records
    await log.append(1, [rec(1)], [], { subdomain: '' });
    t.same(log.listRealms(), [
      { id: 1, subdomain: '' },
      { id: 2, subdomain: 'zulip' },
    ]);
    await log.append(2, [], [], { subdomain: 'renamed' });
    await store.close();
  }
  const { log } = openLog(t, dir);
  t.same(log.listRealms(), [
    { id: 1, subdomain: '' },
    { id: 2, subdomain: 'renamed' },
  ]);
});

t.test('whenDurable waits for the append holding the seq', async (t) => {
  const { log } = openLog(t, tempDir(t));
  await log.append(1, [rec(1)]);
  await log.whenDurable(1, 1);
  let durable = false;
  const appended = log.append(1, [rec(2)]);
  const waiting = log.whenDurable(1, 2).then(() => (durable = true));
  t.equal(durable, false);
  await appended;
  await waiting;
  t.equal(durable, true);
  await t.rejects(log.whenDurable(1, 3), RangeError);
});

t.test('close drains queued appends and then rejects new ones', async (t) => {
  const dir = tempDir(t);
  const store = openStore(dir);
  const log = new AppendLog(store);
  const appends = [log.append(1, [rec(1)]), log.append(1, [rec(2)])];
  await store.close();
  t.same(await Promise.all(appends), [1, 2]);
  await t.rejects(log.append(1, [rec(3)]), { message: /closed/ });
  const { log: reopened } = openLog(t, dir);
  t.equal(reopened.lastSeq(1), 2);
});
