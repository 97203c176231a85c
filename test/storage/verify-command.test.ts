/**
 * `parley verify --data-dir D` with the built CLI on a good store and on damaged copies of it:
 * exit 0 and a summary on a sound store; exit 1 and one line per problem (naming the realm, seq,
 * message or file) otherwise.
 */
import { cpSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { open } from 'lmdb';
import { startServer } from '../../src/main.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { runCli } from '../support/server-process.js';

let pristine: string;
t.before(async () => {
  pristine = mkdtempSync(join(tmpdir(), 'parley-verify-'));
  const server = await startServer({ ...DEFAULT_CONFIG, port: 0, dataDir: pristine, demoPassword: 'verify-pw', snapshotEveryRecords: 10 });
  const realm = server.registry.all()[0]!;
  const hamlet = [...realm.state.users.values()].find((u) => u.email === 'hamlet@zulip.com')!;
  for (let i = 0; i < 30; i++) {
    const r = await realm.execute({ type: 'send_message', senderId: hamlet.id, messageType: 'stream', to: 'Verona', topic: 'verify', content: `message ${i}`, client: 'test' });
    if (!r.ok) throw new Error(r.error.message);
  }
  await server.close();
});
t.teardown(() => rmSync(pristine, { recursive: true, force: true }));

function copy(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-verify-copy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(pristine, dir, { recursive: true });
  return dir;
}

/** Flips one bit near the end of the value stored under `key` in `table`. */
async function flip(dir: string, table: string, key: [number, number]): Promise<void> {
  const env = open({ path: dir, maxDbs: 8 });
  const db = env.openDB<Buffer, [number, number]>(table, { encoding: 'binary' });
  const value = Buffer.from(db.getBinary(key)!);
  value[value.length - 2]! ^= 0x01;
  await db.put(key, value);
  await env.close();
}

t.test('a sound store: exit 0 and a summary', async (t) => {
  const r = await runCli(['verify', '--data-dir', pristine]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /verified .*: 1 realm\(s\), 1 snapshot\(s\), \d+ log record\(s\), \d+ message bodies\nno damage found/);
  t.notMatch(r.stderr, /\[#/, 'no progress bar when stderr is not a terminal');
});

t.test('a damaged body and a damaged log record: exit 1, each named', async (t) => {
  const dir = copy(t);
  const env = open({ path: dir, maxDbs: 8 });
  const logKeys = [...env.openDB<Buffer, [number, number]>('log', { encoding: 'binary' }).getKeys({ start: [1, 0], end: [1, Number.MAX_SAFE_INTEGER] })];
  await env.close();
  const lastSeq = logKeys.at(-1)![1];
  await flip(dir, 'bodies', [1, 20]);
  await flip(dir, 'log', [1, lastSeq]);
  const r = await runCli(['verify', '--data-dir', dir]);
  t.equal(r.code, 1);
  t.match(r.stdout, /DAMAGED: 2 problem\(s\):/);
  t.match(r.stdout, /storage corruption in realm 1, body of message 20: CRC mismatch/);
  t.match(r.stdout, new RegExp(`storage corruption in realm 1, log record seq ${lastSeq}: CRC mismatch`));
  t.match(r.stdout, /Restore the data directory from a backup/);
});

t.test('a damaged snapshot: exit 1', async (t) => {
  const dir = copy(t);
  const env = open({ path: dir, maxDbs: 8 });
  const db = env.openDB<Buffer, unknown[]>('snapshot', { encoding: 'binary' });
  const core = Buffer.from(db.getBinary([1, 'core'])!);
  core[core.length - 1]! ^= 0x80;
  await db.put([1, 'core'], core);
  await env.close();
  const r = await runCli(['verify', '--data-dir', dir]);
  t.equal(r.code, 1);
  t.match(r.stdout, /storage corruption in realm 1, snapshot core: CRC mismatch/);
});

t.test('a truncated or missing data.mdb: exit 1, naming the file', async (t) => {
  const dir = copy(t);
  const data = join(dir, 'data.mdb');
  truncateSync(data, Math.floor(statSync(data).size / 2));
  const r = await runCli(['verify', '--data-dir', dir]);
  t.equal(r.code, 1);
  t.match(r.stdout, new RegExp(`${data} is truncated`));
  rmSync(data);
  const missing = await runCli(['verify', '--data-dir', dir]);
  t.equal(missing.code, 1);
  t.match(missing.stdout, new RegExp(`${data} is missing`));
});
