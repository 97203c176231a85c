/**
 * The server emoji data file (https://zulip.com/api/register-queue `server_emoji_data_url`,
 * parsed by zulip-flutter as `ServerEmojiData`): served without authentication at the path
 * `/register` names, `{"code_to_names": {code: [canonical name, aliases...]}}` for every emoji of
 * Zulip's `emoji_names.json`, gzip when accepted, with an ETag and cache headers.
 */
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import emojiNames from '../../src/domain/emoji_names.json' with { type: 'json' };

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('server_emoji_data_url serves the emoji data', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const registered = await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] });
  const path = new URL(registered.body.server_emoji_data_url as string).pathname;
  t.equal(path, '/static/generated/emoji/emoji_api.json');

  const plain = await get(`${s.url}${path}`);
  t.equal(plain.status, 200, 'no authentication needed');
  t.equal(plain.headers['content-type'], 'application/json');
  t.equal(plain.headers['content-encoding'], undefined);
  t.match(plain.headers['cache-control'], /max-age=\d+/);
  const data = JSON.parse(plain.body.toString('utf8')) as { code_to_names: Record<string, string[]> };
  t.same(Object.keys(data), ['code_to_names']);
  const entries = Object.entries(emojiNames as Record<string, { canonical_name: string; aliases: string[] }>);
  t.equal(Object.keys(data.code_to_names).length, entries.length, 'every emoji');
  for (const [code, { canonical_name, aliases }] of entries) {
    const names = data.code_to_names[code];
    if (names?.[0] !== canonical_name || names.length !== aliases.length + 1) {
      t.fail(`${code}: ${JSON.stringify(names)}`);
      break;
    }
  }
  t.same(data.code_to_names['1f44d'], [emojiNames['1f44d'].canonical_name, ...emojiNames['1f44d'].aliases], 'thumbs up with its aliases');
  t.ok(data.code_to_names['1f44d']!.length > 1, 'aliases are listed');

  const gz = await get(`${s.url}${path}`, { 'Accept-Encoding': 'gzip, br' });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.ok(gz.body.length < plain.body.length / 2, `compressed ${gz.body.length} < ${plain.body.length} / 2`);
  t.same(gunzipSync(gz.body), plain.body, 'same data');
  t.equal(gz.headers.vary, 'Accept-Encoding');

  const etag = plain.headers.etag as string;
  t.match(etag, /^"[0-9a-f]+"$/);
  const cached = await get(`${s.url}${path}`, { 'If-None-Match': etag });
  t.equal(cached.status, 304);
  t.equal(cached.body.length, 0);
  t.equal((await get(`${s.url}${path}`, { 'If-None-Match': '"stale"' })).status, 200);
  const head = await get(`${s.url}${path}`, {}, 'HEAD');
  t.equal(head.status, 200);
  t.equal(head.headers['content-length'], String(plain.body.length));
  t.equal((await get(`${s.url}/static/generated/emoji/other.json`)).status, 404, 'only that file');
});
