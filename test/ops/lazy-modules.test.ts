/**
 * Idle memory (issue 17): the real server process (`dist/cli.js serve`) does not load what an idle
 * server does not need, and loads it on first use without the feature noticing:
 * - sharp (libvips, ~7 MiB of shared objects) is not mapped after start-up and a login; the first
 *   image upload maps it, and the upload gets its thumbnail;
 * - KaTeX is required by the first formula: a `$$…$$` message sent to a fresh server renders.
 * Memory figures themselves are shown by `npm run bench`, never asserted here.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import t from 'tap';
import { api, basicAuth, DEFAULT_DEMO_PASSWORD, fetchApiKey, startServer } from '../support/server-process.js';

/** The shared objects of sharp / libvips mapped into process `pid` (from /proc/PID/maps). */
function sharpMappings(pid: number): string[] {
  const lines = readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n');
  return [...new Set(lines.map((line) => line.split(/\s+/)[5] ?? '').filter((path) => /sharp|libvips/.test(path)))];
}

t.test('sharp is mapped only once an image is processed, and the upload is thumbnailed', { skip: process.platform !== 'linux' && 'reads /proc/PID/maps' }, async (t) => {
  const server = await startServer({ t });
  const { api_key: key } = await fetchApiKey(server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  t.same(sharpMappings(server.pid), [], 'no sharp / libvips object mapped at idle (after start-up and a login)');

  const png = await sharp({ create: { width: 1200, height: 900, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'photo.png');
  const uploaded = await fetch(`${server.url}/api/v1/user_uploads`, { method: 'POST', headers: { authorization: basicAuth('hamlet@zulip.com', key) }, body: form });
  const body = (await uploaded.json()) as { result: string; uri: string };
  t.equal(uploaded.status, 200, JSON.stringify(body));
  t.match(body.uri, /^\/user_uploads\/\d+\/.+\/photo\.png$/);

  const thumbnail = await fetch(`${server.url}${body.uri.replace('/user_uploads/', '/user_uploads/thumbnail/')}/840x560.webp`, {
    headers: { authorization: basicAuth('hamlet@zulip.com', key) },
  });
  t.equal(thumbnail.status, 200, 'the thumbnail made by the lazily loaded sharp is served');
  t.equal(thumbnail.headers.get('content-type'), 'image/webp');
  const meta = await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata();
  t.same([meta.format, meta.width, meta.height], ['webp', 747, 560]);
  t.ok(sharpMappings(server.pid).length > 0, 'sharp is mapped after the first image');
});

t.test('the first formula of a fresh server renders with KaTeX (loaded on first use)', async (t) => {
  const server = await startServer({ t });
  const { api_key: key } = await fetchApiKey(server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  const call = <T>(method: string, path: string, params: Record<string, unknown>) => api<T>(server.url, 'hamlet@zulip.com', key, method, path, params);
  const sent = await call<{ id: number }>('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'math', content: 'Euler: $$e^{i\\pi} + 1 = 0$$' });
  t.equal(sent.status, 200, JSON.stringify(sent.body));
  const fetched = await call<{ messages: { content: string }[] }>('GET', '/messages', {
    anchor: sent.body.id,
    num_before: 0,
    num_after: 0,
    apply_markdown: true,
  });
  t.equal(fetched.status, 200);
  t.match(fetched.body.messages[0]?.content, /^<p>Euler: <span class="katex"><span class="katex-mathml"><math/, 'KaTeX markup');

  const invalid = await call<{ rendered: string }>('POST', '/messages/render', { content: '$$\\frac{1}{$$' });
  t.equal(invalid.status, 200);
  t.match(invalid.body.rendered, /class="tex-error"/, 'TeX that does not parse is still shown as Zulip\'s tex-error');
});
