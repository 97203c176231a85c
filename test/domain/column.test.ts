/**
 * Column.copyWithin against TypedArray#copyWithin on a plain array: forward and backward overlaps
 * across chunk boundaries, and dirty-chunk tracking for snapshots.
 */
import t from 'tap';
import { Column } from '../../src/domain/column.js';

/** A small deterministic PRNG (mulberry32), so failures reproduce. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

t.test('copyWithin matches Int32Array#copyWithin across chunk boundaries', async (t) => {
  const random = rng(42);
  for (let round = 0; round < 300; round++) {
    const length = 1 + Math.floor(random() * 70);
    const column = new Column('int32', 3); // 8-element chunks: most copies cross boundaries
    const reference = new Int32Array(length);
    for (let i = 0; i < length; i++) {
      column.set(i, i + 1);
      reference[i] = i + 1;
    }
    const start = Math.floor(random() * length);
    const end = start + Math.floor(random() * (length - start + 1));
    const target = Math.floor(random() * (length - (end - start) + 1));
    column.copyWithin(target, start, end);
    reference.copyWithin(target, start, end);
    const actual = Array.from({ length }, (_, i) => column.get(i));
    if (actual.join() !== Array.from(reference).join()) {
      t.fail(`round ${round}: copyWithin(${target}, ${start}, ${end}) on ${length}`);
      return;
    }
  }
  t.pass('300 random copies agree');
});

t.test('copyWithin marks the written chunks dirty, and only those', async (t) => {
  const column = new Column('uint16', 3);
  for (let i = 0; i < 40; i++) column.set(i, i);
  column.takeDirtyChunks();
  column.copyWithin(17, 18, 24); // writes 17..22: chunks 2
  t.same(column.takeDirtyChunks(), [2]);
  column.copyWithin(9, 8, 30); // writes 9..30: chunks 1, 2, 3
  t.same(column.takeDirtyChunks(), [1, 2, 3]);
  column.copyWithin(5, 5, 9);
  t.same(column.takeDirtyChunks(), [], 'a copy onto itself writes nothing');
});
