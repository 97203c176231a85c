/**
 * What a backup carries besides the LMDB store (issue 13 §3): files kept in the data directory,
 * never the lock files; and a `cp -r` copy whose lock file names a dead process starts.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { api, fetchApiKey, makeTempDir, runCli, startServer } from '../support/server-process.js';

/** Start-up can take tens of seconds on a loaded shared machine; a real hang still fails. */
const START_TIMEOUT_MS = 60_000;

const PW = 'backup-test-password';
const EMAIL = 'hamlet@zulip.com';

t.test('files beside the store travel with the backup (not the lock files)', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir, demoPassword: null }); // writes demo-password.txt (0600)
  mkdirSync(join(dataDir, 'uploads', 'ab'), { recursive: true });
  writeFileSync(join(dataDir, 'uploads', 'ab', 'file.bin'), Buffer.from([1, 2, 3]));
  const out = join(makeTempDir(t), 'b');
  const backup = await runCli(['backup', '--data-dir', dataDir, '--out', out]);
  t.equal(backup.code, 0, backup.stderr);
  const restored = join(makeTempDir(t), 'r');
  t.equal((await runCli(['restore', '--from', out, '--data-dir', restored])).code, 0);
  t.same([...readFileSync(join(restored, 'uploads', 'ab', 'file.bin'))], [1, 2, 3]);
  t.equal(readFileSync(join(restored, 'demo-password.txt'), 'utf8'), readFileSync(join(dataDir, 'demo-password.txt'), 'utf8'));
  t.equal(statSync(join(restored, 'demo-password.txt')).mode & 0o777, 0o600, 'modes kept');
  t.notOk(existsSync(join(restored, 'parley.lock')));
  t.notOk(existsSync(join(restored, 'parley-backup.json')), 'the manifest stays in the backup');
  await server.stop();
});

t.test('a cp -r copy of a running server starts once the copied lock names a dead process', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir, demoPassword: PW });
  const { api_key: key } = await fetchApiKey(server.url, EMAIL, PW);
  const sent = await api<{ id: number }>(server.url, EMAIL, key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'cp', content: 'copied' });
  server.child.kill('SIGKILL');
  await server.exited();
  const copyDir = join(makeTempDir(t), 'copy');
  cpSync(dataDir, copyDir, { recursive: true });
  t.ok(existsSync(join(copyDir, 'parley.lock')), 'the copy carries the dead server\'s lock file');
  const copy = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir: copyDir, demoPassword: null });
  const got = await api<{ message: { content: string } }>(copy.url, EMAIL, key, 'GET', `messages/${sent.body.id}`);
  t.equal(got.status, 200);
});
