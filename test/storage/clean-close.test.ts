/**
 * The clean-close mark (src/storage/clean-close.ts): a data.mdb untouched since our own clean close
 * skips the full page walk at open; any change to the file, a copy, or a read-only open walks.
 */
import { cpSync, closeSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { AppendLog } from '../../src/storage/append-log.js';
import { CLEAN_CLOSE_FILE } from '../../src/storage/clean-close.js';
import { inspectLmdbFile } from '../../src/storage/lmdb-file-check.js';
import { openStore } from '../../src/storage/lmdb.js';

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-clean-close-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function writeRecords(dir: string, n: number): Promise<void> {
  const store = openStore(dir);
  const log = new AppendLog(store);
  for (let i = 0; i < n; i++) await log.append(1, [{ type: 'test', v: 1, i }], [[i + 1, { raw: `m${i}`, html: `<p>m${i}</p>` }]]);
  await store.close();
}

async function pageCheckOf(dir: string): Promise<string> {
  const store = openStore(dir);
  try {
    return store.pageCheck;
  } finally {
    await store.close();
  }
}

t.test('a clean close lets the next open skip the walk; the mark is gone while the store is open', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 20);
  t.ok(existsSync(join(dir, CLEAN_CLOSE_FILE)), 'the close wrote the mark');
  const store = openStore(dir);
  t.equal(store.pageCheck, 'clean close');
  t.notOk(existsSync(join(dir, CLEAN_CLOSE_FILE)), 'removed at open: it describes the file before this session');
  const log = new AppendLog(store);
  t.equal(log.lastSeq(1), 20, 'every record is there');
  await log.append(1, [{ type: 'test', v: 1, i: 20 }]);
  await store.close();
  t.equal(await pageCheckOf(dir), 'clean close', 'the writes of that session were followed by a clean close too');
});

t.test('a file changed after the clean close is walked (and a damaged page refused)', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 20);
  const inspected = inspectLmdbFile(dir);
  if (inspected.kind !== 'sound') throw new Error('expected a sound file');
  const { pageSize, current } = inspected.info;
  await new Promise((resolve) => setTimeout(resolve, 30)); // past the filesystem's timestamp granularity
  const fd = openSync(join(dir, 'data.mdb'), 'r+');
  writeSync(fd, new Uint8Array(pageSize), 0, pageSize, Number(current.main.root) * pageSize);
  closeSync(fd);
  t.throws(() => openStore(dir), { name: 'DataDirError', message: /damaged page/ }, 'walked, so refused before LMDB');
});

t.test('a copy of the directory (mark included) is walked; a crash leaves no mark', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 5);
  const copy = tempDir(t);
  cpSync(dir, copy, { recursive: true });
  t.ok(existsSync(join(copy, CLEAN_CLOSE_FILE)));
  t.equal(await pageCheckOf(copy), 'walked', 'another file (inode, times) than the one closed');
  const store = openStore(dir); // the mark is consumed here; the "crash" is never closing this store
  t.equal(store.pageCheck, 'clean close');
  t.notOk(existsSync(join(dir, CLEAN_CLOSE_FILE)), 'a process killed now leaves no mark, so the next start walks');
  await store.close();
});

t.test('a read-only open (parley verify) always walks and keeps the mark', async (t) => {
  const dir = tempDir(t);
  await writeRecords(dir, 5);
  const store = openStore(dir, { readOnly: true });
  t.equal(store.pageCheck, 'walked');
  await store.close();
  t.ok(existsSync(join(dir, CLEAN_CLOSE_FILE)), 'still there for the server');
  t.equal(await pageCheckOf(dir), 'clean close');
});
