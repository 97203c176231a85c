/**
 * Column.copyWithin against TypedArray#copyWithin on a plain array: forward and backward overlaps
 * across chunk boundaries, dirty-chunk tracking for snapshots, and pinned (copy-on-write) chunks.
 */
import t from 'tap';
import { Column } from '../../src/domain/column.js';
import { prng } from '../../bench/prng.js';

t.test('copyWithin matches Int32Array#copyWithin across chunk boundaries', async (t) => {
  const random = prng(42);
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

t.test('a write after takeDirtyChunks marks its chunk dirty again, also the last chunk written', async (t) => {
  const column = new Column('int32', 2);
  column.push(1);
  column.push(2);
  t.same(column.takeDirtyChunks(), [0]);
  column.push(3); // the same chunk as the last write before the take
  t.same(column.takeDirtyChunks(), [0], 'not lost to the repeated-chunk shortcut');
  column.push(4);
  column.push(5); // chunk 1
  column.set(0, 9); // back to chunk 0
  column.set(1, 8);
  t.same(column.takeDirtyChunks(), [0, 1]);
  column.copyWithin(0, 4, 5);
  t.same(column.takeDirtyChunks(), [0]);
  column.copyWithin(1, 4, 5);
  t.same(column.takeDirtyChunks(), [0], 'copyWithin after a take, onto the chunk it last wrote');
});

t.test('pinned chunks read as they were when pinned, whatever is written meanwhile', async (t) => {
  const random = prng(7);
  const column = new Column('int32', 3);
  for (let i = 0; i < 50; i++) column.set(i, i + 1);
  const pinnedNos = [0, 2, 3, 6];
  const expected = pinnedNos.map((c) => Array.from(column.chunk(c)));
  column.pin(pinnedNos);
  t.throws(() => column.pin([1]), /already pinned/, 'one snapshot at a time');
  const model = Array.from({ length: 50 }, (_, i) => i + 1);
  for (let step = 0; step < 300; step++) {
    const r = random();
    if (r < 0.5) {
      const i = Math.floor(random() * 60);
      const v = Math.floor(random() * 1000) - 500;
      column.set(i, v);
      while (model.length <= i) model.push(0);
      model[i] = v;
    } else {
      const start = Math.floor(random() * column.length);
      const end = start + Math.floor(random() * (column.length - start));
      const target = Math.floor(random() * (column.length - (end - start)));
      column.copyWithin(target, start, end);
      model.copyWithin(target, start, end);
    }
  }
  pinnedNos.forEach((c, k) => t.same(Array.from(column.pinnedChunk(c)), expected[k], `chunk ${c} as pinned`));
  t.same(Array.from(column.pinnedChunk(1)), Array.from(column.chunk(1)), 'an unpinned chunk reads live');
  for (let i = 0; i < model.length; i++) {
    if (column.get(i) !== model[i]) {
      t.fail(`live value at ${i}: ${column.get(i)} != ${model[i]}`);
      break;
    }
  }
  column.unpin();
  pinnedNos.forEach((c) => t.same(Array.from(column.pinnedChunk(c)), Array.from(column.chunk(c)), `chunk ${c} live after unpin`));
  column.pin([0]);
  column.restoreChunk(0, new Uint8Array(32).fill(1));
  t.equal(column.pinnedChunk(0)[0], model[0], 'restoreChunk does not change a pinned chunk either');
  t.equal(column.get(0), 0x01010101);
});
