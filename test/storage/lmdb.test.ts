import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openStore, STORAGE_FORMAT_VERSION, StorageVersionError } from '../../src/storage/lmdb.js';



function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-lmdb-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('creates the directory (even with a dot in its name) and stamps the format', async (t) => {
  const dir = join(tempDir(t), 'data.v1', 'snapshots');
  const store = openStore(dir);
  t.ok(existsSync(join(dir, 'data.mdb')), 'the environment lives in the directory');
  t.same(store.meta.get('format'), { version: STORAGE_FORMAT_VERSION });
  await store.close();
  await store.close(); // idempotent
  const again = openStore(dir);
  t.same(again.meta.get('format'), { version: STORAGE_FORMAT_VERSION });
  await again.close();
});

t.test('a data directory from a newer storage format is refused', async (t) => {
  const dir = tempDir(t);
  const store = openStore(dir);
  await store.meta.put('format', { version: STORAGE_FORMAT_VERSION + 1 });
  await store.close();
  t.throws(() => openStore(dir), StorageVersionError);
  t.throws(() => openStore(dir), {
    message: new RegExp(`uses storage format version ${STORAGE_FORMAT_VERSION + 1}, but this parley build only reads versions up to ${STORAGE_FORMAT_VERSION}`),
  });
});

t.test('data without a format stamp is refused', async (t) => {
  const dir = tempDir(t);
  const store = openStore(dir);
  await store.log.put([1, 1], new Uint8Array([1, 2, 3]));
  await store.meta.remove('format');
  await store.close();
  t.throws(() => openStore(dir), { name: 'StorageCorruptionError', message: /holds data but no storage format version/ });
});

t.test('durable() resolves after commit and flush, and rejects when the commit fails', async (t) => {
  const dir = tempDir(t);
  const store = openStore(dir);
  t.teardown(() => store.close());
  const put = store.log.put([1, 1], new Uint8Array([1]));
  let committed = false;
  void put.then(() => (committed = true));
  await store.durable([put]);
  t.equal(committed, true);
  t.same(store.log.getBinary([1, 1]), Buffer.from([1]));
  await t.rejects(store.durable([store.log.put([1, 2], new Uint8Array([2])), Promise.reject(new Error('boom'))]), { message: 'boom' });
});
