/**
 * Uploads travel with `parley backup` (src/ops/backup.ts, src/storage/file-store.ts): the stored
 * files are copied, the file store's temp area (uploads still being written) is not, and the
 * restored server serves the uploaded bytes.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { basicAuth, fetchApiKey, makeTempDir, runCli, startServer } from '../support/server-process.js';

const START_TIMEOUT_MS = 60_000;
const PW = 'backup-uploads-password';
const EMAIL = 'hamlet@zulip.com';

t.test('a backup carries the uploads, not the uploads in flight', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir, demoPassword: PW });
  const { api_key: key } = await fetchApiKey(server.url, EMAIL, PW);
  const form = new FormData();
  form.append('file', new Blob(['backed-up bytes'], { type: 'text/plain' }), 'kept.txt');
  const up = (await (await fetch(`${server.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: basicAuth(EMAIL, key) }, body: form })).json()) as { uri: string };
  mkdirSync(join(dataDir, 'files', 'tmp'), { recursive: true });
  writeFileSync(join(dataDir, 'files', 'tmp', 'in-flight'), 'half an upload');
  const out = join(makeTempDir(t), 'b');
  const backup = await runCli(['backup', '--data-dir', dataDir, '--out', out]);
  t.equal(backup.code, 0, backup.stderr);
  t.notOk(existsSync(join(out, 'files', 'tmp', 'in-flight')), 'the temp area is not backed up');
  await server.stop();
  const restoredDir = join(makeTempDir(t), 'r');
  t.equal((await runCli(['restore', '--from', out, '--data-dir', restoredDir])).code, 0);
  const restored = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir: restoredDir, demoPassword: null });
  const res = await fetch(`${restored.url}${up.uri}`, { headers: { Authorization: basicAuth(EMAIL, key) } });
  t.equal(res.status, 200);
  t.equal(await res.text(), 'backed-up bytes', 'the restored server serves the upload');
  await restored.stop();
});
