/**
 * The group-commit pipeline (src/storage/commit-pipeline.ts): two batches in flight at once, the
 * later one's writes conditional on the earlier one's, appends acknowledged only once durable and
 * in seq order, and no gap in the log when the earlier batch fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AppendLog } from '../../src/storage/append-log.js';
import { MAX_IN_FLIGHT } from '../../src/storage/commit-pipeline.js';
import { openStore, type Store } from '../../src/storage/lmdb.js';

function openLog(t: Test): { store: Store; log: AppendLog } {
  const dir = mkdtempSync(join(tmpdir(), 'parley-pipeline-'));
  const store = openStore(dir);
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { store, log: new AppendLog(store) };
}

const rec = (n: number) => ({ type: 'counter_added', v: 1, n });
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Holds the commit promises of the puts issued while installed (the writes themselves go to LMDB
 * at once): the pipeline sees that batch as "not yet committed" until `release()`.
 */
function holdCommits(store: Store): { restore(): void; release(): void } {
  const realPut = store.log.put;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const put2 = realPut as unknown as (this: unknown, key: unknown, value: unknown) => Promise<boolean>;
  store.log.put = ((key: unknown, value: unknown) => {
    const put = put2.call(store.log, key, value);
    return gate.then(() => put);
  }) as typeof store.log.put;
  return { restore: () => (store.log.put = realPut), release };
}

t.test('a second batch is handed to LMDB while the first commits; a third waits for a slot', async (t) => {
  t.equal(MAX_IN_FLIGHT, 2);
  const { store, log } = openLog(t);
  for (const realm of [1, 2, 3]) await log.append(realm, [rec(0)]);
  const batches0 = log.batchCount;
  const held = holdCommits(store);
  const settledOrder: string[] = [];
  // Three realms: each batch is unconditional, so holding the puts' promises holds the batch.
  const first = log.append(1, [rec(1)]).then((seq) => (settledOrder.push('first'), seq));
  await turn(); // batch 1 issued, its commit held
  const second = log.append(2, [rec(2)]).then((seq) => (settledOrder.push('second'), seq));
  await turn();
  t.equal(log.batchCount - batches0, 2, 'the second batch is issued while the first is uncommitted');
  held.restore();
  const third = log.append(3, [rec(3)]).then((seq) => (settledOrder.push('third'), seq));
  await turn();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(log.batchCount - batches0, 2, 'no third batch while two are uncommitted');
  t.same(settledOrder, [], 'nothing is acknowledged before its batch is durable');
  held.release();
  t.same(await Promise.all([first, second, third]), [2, 2, 2]);
  t.same(settledOrder, ['first', 'second', 'third'], 'acknowledged in issue order');
  t.equal(log.batchCount - batches0, 3);
  for (const realm of [1, 2, 3]) t.same([...log.readFrom(realm, 0)].map((e) => e.seq), [1, 2]);
});

t.test('a later batch that commits first is still acknowledged after the earlier one', async (t) => {
  const { store, log } = openLog(t);
  await log.append(1, [rec(0)]);
  const held = holdCommits(store);
  const order: number[] = [];
  const first = log.append(1, [rec(1)]).then((seq) => order.push(seq));
  await turn();
  held.restore();
  const second = log.append(2, [rec(1)]).then((seq) => order.push(100 + seq)); // another realm: unconditional
  await turn();
  await new Promise((resolve) => setTimeout(resolve, 50)); // the second batch is committed and flushed by now
  t.same(order, [], 'the second batch waits for the first');
  held.release();
  await Promise.all([first, second]);
  t.same(order, [2, 101]);
});

t.test('when the earlier batch fails, the later batch writes nothing for that realm (no gap) and the rest of it lands', async (t) => {
  const { store, log } = openLog(t);
  await log.append(1, [rec(1)]);
  await log.append(2, [rec(1)]);
  const realPut = store.log.put;
  const failure = new Error('disk on fire');
  // A transaction that fails: its writes never reach LMDB and their promise rejects later.
  store.log.put = (() => new Promise((_, reject) => setTimeout(() => reject(failure), 50))) as typeof store.log.put;
  const failing = log.append(1, [rec(2), rec(3)], [[7, { raw: 'lost', html: '<p>lost</p>' }]]);
  await turn();
  store.log.put = realPut;
  const batches0 = log.batchCount;
  const behind = log.append(1, [rec(4)], [[8, { raw: 'behind', html: '<p>behind</p>' }]]); // seq 4, conditional on seq 3
  const otherRealm = log.append(2, [rec(2)]);
  await turn();
  t.equal(log.batchCount - batches0, 1, 'the later batch was issued while the failing one was in flight');
  await new Promise((resolve) => setTimeout(resolve, 20)); // the later batch commits (writing nothing for realm 1)
  const third = log.append(1, [rec(5)]); // seq 5: its batch is issued before the failure is handled
  await turn();
  t.equal(log.batchCount - batches0, 2, 'a third batch is issued before the failure is known');
  await t.rejects(failing, failure);
  await t.rejects(behind, { message: /realm 1's log cancelled: an earlier append of the realm failed/ });
  await t.rejects(third, { message: /realm 1's log cancelled/ });
  t.equal(await otherRealm, 2, "another realm's appends in the later batch are written");
  t.same([...log.readFrom(1, 0)].map((e) => e.seq), [1], 'seq 4 was not written after the missing 2..3');
  t.equal(log.getBody(1, 8), undefined, 'nor the body that came with it');
  t.equal(log.lastSeq(1), 1, 'lastSeq is back to what is on disk');
  t.equal(await log.append(1, [rec(2)]), 2);
  t.same([...log.readFrom(1, 0)].map((e) => e.seq), [1, 2]);
  t.same([...log.readFrom(2, 0)].map((e) => e.seq), [1, 2]);
});

t.test('a batch refused for disk space keeps the seqs of the batch still in flight', async (t) => {
  const { store, log } = openLog(t);
  await log.append(1, [rec(1)]);
  const held = holdCommits(store);
  const inFlight = log.append(1, [rec(2)]);
  await turn();
  held.restore();
  const realCheck = store.space.check.bind(store.space);
  const full = Object.assign(new Error('no space left (simulated)'), { code: 'ENOSPC' });
  store.space.check = () => {
    throw full;
  };
  const refused = log.append(1, [rec(3)]);
  await turn();
  store.space.check = realCheck;
  await t.rejects(refused, full);
  t.equal(log.lastSeq(1), 2, 'the next seq follows the in-flight batch, not the disk');
  const next = log.append(1, [rec(3)]);
  held.release();
  t.equal(await inFlight, 2);
  t.equal(await next, 3);
  t.same([...log.readFrom(1, 0)].map((e) => e.seq), [1, 2, 3], 'no seq reused, no gap');
});
