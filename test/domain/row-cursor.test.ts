/**
 * domain/row-cursor.ts against `UserMessages.indexOf`: every lookup, in ascending, descending,
 * random and repeated orders, present and absent ids, over rows of several sizes, answers what a
 * binary search answers.
 */
import t from 'tap';
import { UserMessages } from '../../src/domain/message-index.js';
import { RowCursor } from '../../src/domain/row-cursor.js';
import { prng } from '../../bench/prng.js';

const expected = (rows: UserMessages, id: number) => {
  const i = rows.indexOf(id);
  return i < 0 ? undefined : rows.flags.get(i);
};

t.test('RowCursor answers as indexOf does, in every lookup order', async (t) => {
  const random = prng(17);
  for (const size of [0, 1, 2, 3, 17, 256, 257, 5000]) {
    const rows = new UserMessages();
    let id = 0;
    for (let i = 0; i < size; i++) {
      id += 1 + Math.floor(random() * 4); // gaps: some ids have no row
      rows.append(id, Math.floor(random() * 1024));
    }
    const maxId = id + 3;
    const all = Array.from({ length: maxId + 2 }, (_, i) => i);
    const orders: Array<[string, number[]]> = [
      ['ascending', all],
      ['descending', [...all].reverse()],
      ['random', Array.from({ length: 3 * all.length }, () => Math.floor(random() * (maxId + 2)))],
      ['repeated', all.flatMap((x) => [x, x])],
      ['far jumps', all.map((_, i) => (i % 2 === 0 ? i : maxId + 1 - i))],
    ];
    for (const [name, order] of orders) {
      const cursor = new RowCursor(rows);
      let mismatches = 0;
      for (const x of order) if (cursor.flags(x) !== expected(rows, x)) mismatches++;
      t.equal(mismatches, 0, `${size} rows, ${name} lookups`);
    }
  }
  t.equal(new RowCursor(undefined).flags(1), undefined, 'no rows at all');
});
