import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { FileStore, FileTooLarge, isSha256 } from '../../src/storage/file-store.js';

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-files-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

t.test('put stores a buffer or a stream under its SHA-256 and reads it back', async (t) => {
  const store = new FileStore(tempDir(t));
  const bytes = Buffer.from('hello, parley');
  const put = await store.put(bytes);
  t.same(put, { sha256: sha(bytes), size: bytes.length });
  t.same(readFileSync(store.pathOf(put.sha256)), bytes);
  const big = Buffer.alloc(3 * 65536 + 7, 0x61);
  const streamed = await store.put(Readable.from([big.subarray(0, 65536), big.subarray(65536)]));
  t.same(streamed, { sha256: sha(big), size: big.length });
  t.equal(await store.size(streamed.sha256), big.length);
  t.same(await store.readAll(put.sha256), bytes);
  const ranged = await store.openRead(streamed.sha256, { start: 1, end: 4 });
  const parts: Buffer[] = [];
  for await (const chunk of ranged!) parts.push(chunk as Buffer);
  t.equal(Buffer.concat(parts).length, 4);
  t.same(readdirSync(join(store.root, 'tmp')), [], 'no temp file left');
  t.same(await store.put(bytes), put, 'the same content is stored once');
});

t.test('over maxBytes rejects with FileTooLarge and stores nothing', async (t) => {
  const store = new FileStore(tempDir(t));
  const chunks = [Buffer.alloc(10, 1), Buffer.alloc(10, 2)];
  await t.rejects(store.put(Readable.from(chunks), { maxBytes: 15 }), FileTooLarge);
  t.same(readdirSync(join(store.root, 'tmp')), []);
  t.same(readdirSync(join(store.root, 'sha256')), []);
  t.ok(await store.put(Buffer.alloc(15), { maxBytes: 15 }), 'exactly maxBytes is allowed');
});

t.test('paths come only from digests', async (t) => {
  const store = new FileStore(tempDir(t));
  t.notOk(isSha256('../../etc/passwd'));
  t.notOk(isSha256('A'.repeat(64)));
  t.throws(() => store.pathOf('../x'), TypeError);
  t.equal(await store.size('../../../etc/passwd'), undefined);
  t.equal(await store.openRead('0'.repeat(64)), undefined, 'a digest not stored');
  t.equal(await store.readAll('..'), undefined);
});

t.test('sweep removes temp files and unreferenced content, keeps referenced content', async (t) => {
  const store = new FileStore(tempDir(t));
  const keep = await store.put(Buffer.from('keep'));
  const drop = await store.put(Buffer.from('drop'));
  writeFileSync(join(store.root, 'tmp', 'half-written'), 'x');
  const removed = await store.sweep((digest) => digest === keep.sha256);
  t.same(removed, { temp: 1, unreferenced: 1 });
  t.equal(await store.size(keep.sha256), 4);
  t.equal(await store.size(drop.sha256), undefined);
  await store.remove(keep.sha256);
  t.equal(await store.size(keep.sha256), undefined);
});

t.test('stage keeps the file invisible until commit; discard removes it', async (t) => {
  const store = new FileStore(tempDir(t));
  const staged = await store.stage(Buffer.from('staged'));
  t.equal(await store.size(staged.sha256), undefined, 'not visible before commit');
  t.equal(readdirSync(join(store.root, 'tmp')).length, 1);
  await staged.commit();
  await staged.commit();
  t.equal(await store.size(staged.sha256), 6);
  await staged.discard();
  t.equal(await store.size(staged.sha256), 6, 'discard after commit keeps the file');
  const other = await store.stage(Buffer.from('other'));
  await other.discard();
  t.equal(await store.size(other.sha256), undefined);
  t.same(readdirSync(join(store.root, 'tmp')), []);
  await t.rejects(other.commit(), /discarded/);
});
