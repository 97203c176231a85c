/**
 * api/durable-read.ts on its own: answer at once with nothing pending, after the barrier when it
 * becomes durable, again on the reloaded state when its write failed, and 503 when it does not
 * become durable in time. The realm here is a stand-in with only what `durableRead` touches (the
 * held-flush tests in durable-reads.test.ts run the real server).
 */
import t from 'tap';
import { durableRead } from '../../src/api/durable-read.js';
import { ZulipError } from '../../src/errors.js';
import type { RealmHandle } from '../../src/realm/realm-handle.js';

function realmWith(barriers: Array<Promise<boolean> | null>) {
  let reads = 0;
  const realm = {
    readBarrier: () => barriers[Math.min(reads - 1, barriers.length - 1)] ?? null,
    whenDurable: () => Promise.resolve(),
  } as unknown as RealmHandle;
  return { realm, read: () => ({ read: ++reads }), reads: () => reads };
}

t.test('nothing pending: the answer comes at once, not as a promise', async (t) => {
  const r = realmWith([null]);
  t.same(durableRead(r.realm, r.read), { read: 1 });
});

t.test('a pending barrier: the first read is answered once it is durable', async (t) => {
  let durable!: (v: boolean) => void;
  const r = realmWith([new Promise<boolean>((res) => (durable = res))]);
  const answer = durableRead(r.realm, r.read);
  t.ok(answer instanceof Promise);
  let settled = false;
  void (answer as Promise<unknown>).then(() => (settled = true));
  await new Promise((res) => setTimeout(res, 20));
  t.equal(settled, false, 'held while the barrier is pending');
  durable(true);
  t.same(await answer, { read: 1 }, 'the read computed before the wait, not a later one');
  t.equal(r.reads(), 1);
});

t.test('the write behind the barrier failed: read again on the reloaded state', async (t) => {
  const r = realmWith([Promise.resolve(false), null]);
  t.same(await durableRead(r.realm, r.read), { read: 2 });
});

t.test('a write that keeps failing or never becomes durable: 503, never a stale answer', async (t) => {
  const failing = realmWith([Promise.resolve(false)]);
  const answer = await durableRead(failing.realm, failing.read);
  t.ok(answer instanceof ZulipError);
  t.match(answer, { code: 'SERVER_NOT_READY', status: 503 });
  t.equal(failing.reads(), 3, 'at most three reads');
  const stuck = realmWith([new Promise<boolean>(() => {})]);
  const started = Date.now();
  const late = await durableRead(stuck.realm, stuck.read, 50);
  t.match(late, { code: 'SERVER_NOT_READY' }, 'bounded wait');
  t.ok(Date.now() - started >= 45);
});
