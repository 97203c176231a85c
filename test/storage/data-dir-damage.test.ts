/**
 * Damaged or missing storage is refused at open with a message naming the file (issue 12 §2):
 * every case starts from a real store written by the test, then damages a copy of it.
 */
import { cpSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openStore } from '../../src/storage/lmdb.js';
import { AppendLog } from '../../src/storage/append-log.js';
import { IDENTITY_FILE_NAME, readIdentityFile } from '../../src/storage/store-identity.js';
import { inspectLmdbFile } from '../../src/storage/lmdb-file-check.js';

const RECORDS = 60;

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-damage-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A store with RECORDS log records (some spilling to overflow pages) and bodies. */
async function makeStore(dir: string): Promise<void> {
  const store = openStore(dir);
  const log = new AppendLog(store);
  log.trackDurableMark();
  for (let i = 0; i < RECORDS; i++) {
    await log.append(1, [{ type: 'test', i, pad: 'x'.repeat(i * 97) }], [[i + 1, { content: `body ${i}`, rendered: `<p>body ${i}</p>` }]]);
  }
  await store.close();
}

/** Opens `dir` and returns how many records realm 1's log replays. */
async function replayCount(dir: string): Promise<number> {
  const store = openStore(dir);
  try {
    const log = new AppendLog(store);
    log.trackDurableMark();
    let n = 0;
    for (const _ of log.readFrom(1, 0)) n++;
    return n;
  } finally {
    await store.close();
  }
}

function patch(file: string, offset: number, bytes: Uint8Array): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

let pristine: string;
t.before(async () => {
  pristine = mkdtempSync(join(tmpdir(), 'parley-pristine-'));
  await makeStore(pristine);
});
t.teardown(() => rmSync(pristine, { recursive: true, force: true }));

function damagedCopy(t: Test): { dir: string; data: string } {
  const dir = tempDir(t);
  cpSync(pristine, dir, { recursive: true });
  return { dir, data: join(dir, 'data.mdb') };
}

t.test('a new store writes its identity file; the pristine copy opens with every record', async (t) => {
  const { dir } = damagedCopy(t);
  const identity = readIdentityFile(dir);
  t.ok(identity, 'identity file written at creation');
  t.match(identity, { format: 2, storeId: /^[0-9a-f-]{36}$/, createdAt: /^\d{4}-\d\d-\d\dT/ });
  t.equal(await replayCount(dir), RECORDS);
  const store = openStore(dir);
  t.equal(store.identity.storeId, identity!.storeId, 'LMDB holds the same store id');
  await store.close();
});

t.test('a missing data.mdb is refused, naming the file and saying to restore from backup', async (t) => {
  const { dir, data } = damagedCopy(t);
  unlinkSync(data);
  t.throws(() => openStore(dir), { name: 'DataDirError', message: new RegExp(`${data} is missing, but .*${IDENTITY_FILE_NAME} says this directory holds store .*Restore the data directory from a backup`) });
  t.throws(() => statSync(data), 'nothing was created in its place');
});

t.test('an empty data.mdb is refused', async (t) => {
  const { dir, data } = damagedCopy(t);
  truncateSync(data, 0);
  t.throws(() => openStore(dir), { name: 'DataDirError', message: new RegExp(`${data} is empty`) });
  t.equal(statSync(data).size, 0, 'left as it was');
});

t.test("another store's data.mdb is refused", async (t) => {
  const { dir, data } = damagedCopy(t);
  const other = tempDir(t);
  await makeStore(other);
  cpSync(join(other, 'data.mdb'), data);
  t.throws(() => openStore(dir), { name: 'DataDirError', message: /belongs to store .* but .* says this directory holds store .*: data.mdb was replaced/ });
});

t.test('a data.mdb replaced by a fresh empty LMDB environment is refused', async (t) => {
  const { dir, data } = damagedCopy(t);
  const other = tempDir(t);
  const { open } = await import('lmdb');
  const env = open({ path: other, maxDbs: 8 });
  await env.put('x', 1);
  await env.close();
  cpSync(join(other, 'data.mdb'), data);
  t.throws(() => openStore(dir), { name: 'DataDirError', message: /holds no parley store/ });
});

t.test('a damaged identity file is refused', async (t) => {
  const { dir } = damagedCopy(t);
  writeFileSync(join(dir, IDENTITY_FILE_NAME), '{"store_id": 1');
  t.throws(() => openStore(dir), { name: 'DataDirError', message: /parley-store.json is malformed/ });
  writeFileSync(join(dir, IDENTITY_FILE_NAME), '');
  t.throws(() => openStore(dir), { name: 'DataDirError', message: /parley-store.json is empty/ });
});

t.test('a truncated data.mdb is refused before LMDB maps it (no SIGBUS)', async (t) => {
  const size = statSync(join(pristine, 'data.mdb')).size;
  let refused = 0;
  for (let keep = size - 4096; keep > 0; keep -= keep > 16384 ? 4096 : 1500) {
    const { dir, data } = damagedCopy(t);
    truncateSync(data, keep);
    try {
      // Harmless only if every cut page was free (LMDB's file may end before its last page).
      t.equal(await replayCount(dir), RECORDS, `truncated to ${keep} bytes: only free pages cut`);
    } catch (error) {
      t.match(error, { name: 'DataDirError', message: new RegExp(`${data} (is truncated|is not a sound LMDB file)`) }, `truncated to ${keep} bytes`);
      refused++;
    }
  }
  t.ok(refused > 0);
});

t.test('zeroed meta pages are refused', async (t) => {
  const info = inspectLmdbFile(pristine);
  if (info.kind !== 'sound') throw new Error('pristine store unsound');
  const { pageSize } = info.info;
  for (const page of [0, 1]) {
    const { dir, data } = damagedCopy(t);
    patch(data, page * pageSize, new Uint8Array(pageSize));
    t.throws(() => openStore(dir), { name: 'DataDirError', message: new RegExp(`page ${page} is not a meta page`) }, `meta page ${page}`);
  }
});

t.test('a flipped bit in a meta page is refused or harmless, never an older state', async (t) => {
  const info = inspectLmdbFile(pristine);
  if (info.kind !== 'sound') throw new Error('pristine store unsound');
  const { pageSize, previous } = info.info;
  // The txnid of the older meta page (offset 24 + 128), each of its low 40 bits: the meta pages no
  // longer pair up, or (bit 1: txnid N-1 becomes N+1) LMDB would open the older state, which is
  // behind the durable high-water mark.
  let refused = 0;
  for (let bit = 0; bit < 40; bit++) {
    const { dir, data } = damagedCopy(t);
    const offset = previous.page * pageSize + 24 + 128 + Math.floor(bit / 8);
    const byte = readFileSync(data).subarray(offset, offset + 1)[0]!;
    patch(data, offset, new Uint8Array([byte ^ (1 << bit % 8)]));
    try {
      // Harmless only if LMDB still opens the newest state (e.g. txnid 64 -> 0 reads as a
      // compacted file's unused meta page).
      t.equal(await replayCount(dir), RECORDS, `bit ${bit}: opened with every record`);
    } catch (error) {
      refused++;
      t.match(error, { name: 'DataDirError', message: /transaction ids .* cannot both be right|is older than what the server acknowledged: realm 1's log ends at seq \d+, but seq 60 was durable/ }, `bit ${bit}: refused`);
    }
  }
  t.ok(refused >= 35, `${refused} of 40 flips refused, the others harmless`);
  // Magic and version of the current meta page.
  for (const [what, at] of [['magic', 24], ['version', 28]] as const) {
    const { dir, data } = damagedCopy(t);
    const offset = info.info.current.page * pageSize + at;
    const byte = readFileSync(data)[offset]!;
    patch(data, offset, new Uint8Array([byte ^ 0x10]));
    t.throws(() => openStore(dir), { name: 'DataDirError', message: new RegExp(what === 'magic' ? 'no LMDB magic' : 'unknown LMDB version') }, what);
  }
});

t.test('a zeroed root page is refused', async (t) => {
  const info = inspectLmdbFile(pristine);
  if (info.kind !== 'sound') throw new Error('pristine store unsound');
  const { pageSize, current } = info.info;
  const { dir, data } = damagedCopy(t);
  patch(data, Number(current.main.root) * pageSize, new Uint8Array(pageSize));
  t.throws(() => openStore(dir), { name: 'DataDirError', message: /root of LMDB's main tree is zeroed or overwritten/ });
});

t.test('every page zeroed in turn: refused with a clear error or harmless, never an abort', async (t) => {
  const info = inspectLmdbFile(pristine);
  if (info.kind !== 'sound') throw new Error('pristine store unsound');
  const { pageSize } = info.info;
  const pages = statSync(join(pristine, 'data.mdb')).size / pageSize;
  let refusedBeforeLmdb = 0;
  let caughtByChecksum = 0;
  for (let page = 2; page < pages; page++) {
    const { dir, data } = damagedCopy(t);
    patch(data, page * pageSize, new Uint8Array(pageSize));
    try {
      // Harmless only for a free page: then every record is still there.
      t.equal(await replayCount(dir), RECORDS, `page ${page}: a free page, every record opens`);
    } catch (error) {
      const e = error as Error;
      if (e.name === 'DataDirError') {
        t.match(e.message, new RegExp(`${data} has a damaged page ${page} \\((zeroed or overwritten|the root of LMDB's (main|free-page) tree is zeroed)`), `page ${page}: refused before LMDB`);
        refusedBeforeLmdb++;
      } else {
        t.equal(e.name, 'StorageCorruptionError', `page ${page}: ${e.message}`);
        caughtByChecksum++;
      }
    }
  }
  t.ok(refusedBeforeLmdb > 0 && caughtByChecksum > 0, `${refusedBeforeLmdb} B-tree pages refused before LMDB, ${caughtByChecksum} value pages caught by CRC`);
});

t.test('a store behind its durable mark is refused; a mark of another store too', async (t) => {
  const { dir, data } = damagedCopy(t);
  const markFile = join(dir, 'parley-durable.json');
  const mark = JSON.parse(readFileSync(markFile, 'utf8'));
  t.equal(mark.realms['1'], RECORDS, 'the mark holds the last durable seq');
  writeFileSync(markFile, JSON.stringify({ ...mark, realms: { 1: RECORDS + 1 } }));
  await t.rejects(replayCount(dir), { name: 'DataDirError', message: new RegExp(`${data} is older than what the server acknowledged: realm 1's log ends at seq ${RECORDS}, but seq ${RECORDS + 1} was durable`) });
  writeFileSync(markFile, JSON.stringify({ ...mark, realms: { 1: 1, 7: 3 } }));
  await t.rejects(replayCount(dir), { message: /realm 7's log ends at seq 0, but seq 3 was durable/ }, 'a realm that vanished');
  writeFileSync(markFile, JSON.stringify({ ...mark, store_id: 'another' }));
  await t.rejects(replayCount(dir), { message: /parley-durable.json belongs to store another/ });
  writeFileSync(markFile, '{');
  await t.rejects(replayCount(dir), { message: /parley-durable.json is malformed/ });
  writeFileSync(markFile, JSON.stringify(mark));
  t.equal(await replayCount(dir), RECORDS, 'the true mark opens');
});

t.test('a directory without identity file and store is a new store; an old store without one adopts one', async (t) => {
  const dir = tempDir(t);
  const store = openStore(dir);
  await store.close();
  const first = readIdentityFile(dir);
  t.ok(first);
  unlinkSync(join(dir, IDENTITY_FILE_NAME));
  const again = openStore(dir);
  t.equal(again.identity.storeId, first!.storeId, 'the identity stamped in LMDB is kept');
  await again.close();
  t.equal(readIdentityFile(dir)!.storeId, first!.storeId, 'and the file is written again');
});
