/**
 * Storage format upgrades (issue 13): a store written by parley's storage format 1 — the committed
 * fixture `fixtures/format-1/data.mdb.gz`, made by the code before format 2 (demo organization,
 * 28 extra messages, a snapshot at seq 54 and a log tail to seq 63) — opens with today's code,
 * is upgraded in place (it gains a store identity), and loads with all its data.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { RealmRegistry } from '../../src/realm/realm-registry.js';
import { RealmUrls } from '../../src/realm/realm-urls.js';
import { openStore, STORAGE_FORMAT_VERSION, StorageVersionError } from '../../src/storage/lmdb.js';
import { readIdentityFile } from '../../src/storage/store-identity.js';
import { verifyDataDir } from '../../src/storage/verify.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'format-1', 'data.mdb.gz');

function unpackFixture(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-format1-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'data.mdb'), gunzipSync(readFileSync(FIXTURE)));
  return dir;
}

t.test('a format-1 store is upgraded and loads with all its data', async (t) => {
  const dir = unpackFixture(t);
  const before = await verifyDataDir(dir);
  t.same(before.problems, [], 'verify reads format 1 without writing');
  t.equal(readIdentityFile(dir), undefined, 'format 1 has no identity file');

  const registry = await RealmRegistry.open({ dataDir: dir, urls: RealmUrls.parse('http://localhost') });
  const realm = registry.all()[0]!;
  t.equal(realm.state.users.size, 12, 'every user (9 humans, the demo bot, 2 system bots)');
  const ids = Array.from({ length: 60 }, (_, i) => i + 1).filter((id) => realm.state.messages.exists(id));
  const contents = ids.map((id) => realm.messageBody(id)?.content);
  t.ok(contents.includes('fixture message 0 **bold**'), 'a message from before the snapshot');
  t.ok(contents.includes('fixture message 27 after the snapshot'), 'a message from the log tail');
  t.equal(contents.filter((c) => c?.startsWith('fixture message')).length, 28);
  await registry.close();

  const identity = readIdentityFile(dir);
  t.match(identity, { format: STORAGE_FORMAT_VERSION, storeId: /^[0-9a-f-]{36}$/ }, 'the upgrade wrote the identity file');
  const store = openStore(dir);
  t.same(store.meta.get('format'), { version: STORAGE_FORMAT_VERSION });
  t.equal(store.identity.storeId, identity!.storeId, 'LMDB and the file agree');
  await store.close();
  t.same((await verifyDataDir(dir)).problems, [], 'the upgraded store verifies');
});

t.test('a store of a newer format is refused clearly', async (t) => {
  const dir = unpackFixture(t);
  const store = openStore(dir);
  await store.meta.put('format', { version: STORAGE_FORMAT_VERSION + 1 });
  await store.close();
  t.throws(() => openStore(dir), StorageVersionError);
  t.throws(() => openStore(dir), { message: new RegExp(`uses storage format version ${STORAGE_FORMAT_VERSION + 1}, but this parley build only reads versions up to ${STORAGE_FORMAT_VERSION}; upgrade parley`) });
});
