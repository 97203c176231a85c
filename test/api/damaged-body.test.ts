/**
 * A message body that fails its checksum (issue 12 §2): GET /messages still answers 200 with the
 * other messages and a marker in its place; the endpoints about that one message answer a JSON
 * MESSAGE_DAMAGED error; nothing answers 500 and nothing changes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { open } from 'lmdb';
import { startServer } from '../../src/main.js';
import { DEFAULT_CONFIG } from '../../src/config.js';

const PW = 'damaged-body-password';

async function call(url: string, auth: string, method: string, path: string, params: Record<string, string> = {}) {
  const q = new URLSearchParams(params).toString();
  const isGet = method === 'GET';
  const res = await fetch(`${url}/api/v1${path}${isGet && q ? `?${q}` : ''}`, {
    method,
    headers: { Authorization: auth, ...(isGet ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) },
    ...(isGet ? {} : { body: q }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

t.test('a damaged body is reported for that message only', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-damaged-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: PW };
  let server = await startServer(config);
  const login = await (await fetch(`${server.url}/api/v1/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'hamlet@zulip.com', password: PW }) })).json() as { api_key: string };
  const auth = 'Basic ' + Buffer.from(`hamlet@zulip.com:${login.api_key}`).toString('base64');
  const ids: number[] = [];
  for (const content of ['first intact', 'to be damaged', 'last intact']) {
    const r = await call(server.url, auth, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'damage', content });
    t.equal(r.status, 200);
    ids.push(r.body.id);
  }
  await server.close();

  // Flip one bit of the stored body blob (bit rot in the value; LMDB's pages stay sound).
  const env = open({ path: dataDir, maxDbs: 8 });
  const bodies = env.openDB<Buffer, [number, number]>('bodies', { encoding: 'binary' });
  const realmId = 1;
  const blob = Buffer.from(bodies.getBinary([realmId, ids[1]!])!);
  blob[blob.length - 3]! ^= 0x04;
  await bodies.put([realmId, ids[1]!], blob);
  await env.close();

  const errors: string[] = [];
  const originalError = console.error;
  console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
  t.teardown(() => {
    console.error = originalError;
  });
  server = await startServer(config);
  t.teardown(() => server.close());

  const narrow = JSON.stringify([{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'damage' }]);
  const list = await call(server.url, auth, 'GET', '/messages', { anchor: 'newest', num_before: '10', num_after: '0', narrow });
  t.equal(list.status, 200, 'the list still answers');
  t.same(list.body.messages.map((m: { id: number }) => m.id), ids);
  t.equal(list.body.messages[0].content, '<p>first intact</p>');
  t.equal(list.body.messages[2].content, '<p>last intact</p>');
  t.match(list.body.messages[1].content, /this message's stored content is damaged/);
  const raw = await call(server.url, auth, 'GET', '/messages', { anchor: String(ids[1]), num_before: '0', num_after: '0', apply_markdown: 'false' });
  t.match(raw.body.messages[0].content, /^\[parley note: this message's stored content is damaged/);

  const one = await call(server.url, auth, 'GET', `/messages/${ids[1]}`);
  t.same(one, { status: 400, body: { result: 'error', code: 'MESSAGE_DAMAGED', msg: `The stored content of message ${ids[1]} is damaged; an administrator must restore it from a backup` } });
  const good = await call(server.url, auth, 'GET', `/messages/${ids[0]}`);
  t.equal(good.body.raw_content, 'first intact');
  const history = await call(server.url, auth, 'GET', `/messages/${ids[1]}/history`);
  t.equal(history.body.code, 'MESSAGE_DAMAGED');
  const edit = await call(server.url, auth, 'PATCH', `/messages/${ids[1]}`, { content: 'overwrite' });
  t.equal(edit.status, 400);
  t.equal(edit.body.code, 'MESSAGE_DAMAGED');
  const after = await call(server.url, auth, 'GET', '/messages', { anchor: 'newest', num_before: '10', num_after: '0', narrow });
  t.same(after.body.messages.map((m: { content: string }) => m.content), list.body.messages.map((m: { content: string }) => m.content), 'nothing changed');
  t.equal(errors.filter((e) => e.includes(`message ${ids[1]} is shown as damaged`)).length, 1, 'logged once');
  t.match(errors.join('\n'), /storage corruption in realm 1, body of message \d+: CRC mismatch/);
});
