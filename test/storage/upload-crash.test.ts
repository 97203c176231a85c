/**
 * Uploads across a crash (src/storage/file-store.ts; issue 14 "storage and safety"): a real
 * server process is killed with SIGKILL while concurrent `POST /user_uploads` run and one large
 * upload is half sent. After a restart on the same data directory: every acknowledged upload is
 * listed and served byte for byte, every listed attachment has its file (no record without a
 * file), and the start-up sweep left no temp file and no file without a record.
 */
import t from 'tap';
import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fetchApiKey, makeTempDir, startServer as startParley, type StartServerOptions } from '../support/server-process.js';

const startServer = (options: StartServerOptions) => startParley({ ...options, args: [...(options.args ?? []), '--rate-limits', 'off'] });
const PW = 'upload-crash-password';
const EMAIL = 'hamlet@zulip.com';
const LOOPS = 4;
const MAX_UPLOADS = 400;
const MAX_BURST_MS = 1500;

const authOf = (key: string) => 'Basic ' + Buffer.from(`${EMAIL}:${key}`).toString('base64');

async function uploadOne(url: string, key: string, content: string): Promise<string | null> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), `${content}.txt`);
  const res = await fetch(`${url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: authOf(key) }, body: form });
  const body = (await res.json()) as { result: string; uri?: string };
  return body.result === 'success' ? body.uri! : null;
}

function dirFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? dirFiles(join(dir, e.name)) : [e.name]));
}

t.test('kill -9 during uploads loses no acknowledged upload and leaves no orphan', async (t) => {
  const dataDir = makeTempDir(t);
  const first = await startServer({ t, dataDir, demoPassword: PW });
  const { api_key: key } = await fetchApiKey(first.url, EMAIL, PW);

  // A large upload left half sent when the server dies: its temp file must be swept.
  const half = httpRequest(`${first.url}/api/v1/user_uploads`, {
    method: 'POST',
    headers: { Authorization: authOf(key), 'Content-Type': 'multipart/form-data; boundary=B', 'Content-Length': String(8 * 1024 * 1024) },
  });
  half.on('error', () => {});
  half.write('--B\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n');
  half.write(Buffer.alloc(2 * 1024 * 1024, 7));

  const acked = new Map<string, string>();
  let started = 0;
  const deadline = Date.now() + MAX_BURST_MS;
  let stop = false;
  const loops = Array.from({ length: LOOPS }, async () => {
    while (!stop && started < MAX_UPLOADS && Date.now() < deadline) {
      const content = `crash-upload-${started++}`;
      try {
        const uri = await uploadOne(first.url, key, content);
        if (uri !== null) acked.set(uri, content);
      } catch {
        return; // the server is gone
      }
    }
  });
  await new Promise((resolve) => setTimeout(resolve, MAX_BURST_MS / 2));
  await first.stop('SIGKILL');
  stop = true;
  await Promise.all(loops);
  half.destroy();
  t.ok(acked.size > 0, `${acked.size} uploads acknowledged before the kill`);

  const second = await startServer({ t, dataDir, demoPassword: PW });
  const list = (await (await fetch(`${second.url}/api/v1/attachments`, { headers: { Authorization: authOf(key) } })).json()) as {
    attachments: Array<{ path_id: string; size: number }>;
  };
  const listed = new Set(list.attachments.map((a) => `/user_uploads/${a.path_id}`));
  for (const uri of acked.keys()) if (!listed.has(uri)) t.fail(`acknowledged upload lost: ${uri}`);
  let served = 0;
  for (const a of list.attachments) {
    const res = await fetch(`${second.url}/user_uploads/${a.path_id}`, { headers: { Authorization: authOf(key) } });
    const text = await res.text();
    if (res.status !== 200) t.fail(`record without a file: ${a.path_id} (${res.status})`);
    const expected = acked.get(`/user_uploads/${a.path_id}`);
    if (expected !== undefined && text !== expected) t.fail(`content differs for ${a.path_id}`);
    served++;
  }
  t.equal(served, list.attachments.length, 'every listed attachment is served');
  t.same(dirFiles(join(dataDir, 'files', 'tmp')), [], 'no temp file after the start-up sweep');
  t.equal(dirFiles(join(dataDir, 'files', 'sha256')).length, list.attachments.length, 'no stored file without a record');
  await second.stop();
});
