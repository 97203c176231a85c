/**
 * Thumbnails of uploaded images and how files reach browsers (Zulip's zerver/lib/thumbnail.py,
 * zerver/views/upload.py `serve_file`, zerver/lib/markdown `add_a` + `rewrite_thumbnailed_images`):
 * the real server, images made by sharp, read back over HTTP.
 * - an uploaded image gets its 840x560 WebP (animated kept animated), its message renders
 *   Zulip's thumbnail markup, and the thumbnail is readable exactly by those who may read the file;
 * - bytes that do not decode as an image are stored but never previewed;
 * - the web app's `sessionid` cookie downloads files and thumbnails;
 * - temporary URLs stay valid across a restart (the signing key lives in the data directory).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { startServer } from '../../src/main.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { DEMO_PASSWORD, startTestServer } from '../support/test-server.js';
import { Browser } from '../support/browser-session.js';
import { makeTempDir } from '../support/server-process.js';
import { basicAuth, getFile, storedFiles, upload } from '../support/upload-client.js';

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();

/** A 3-frame 60×40 GIF. */
async function animatedGif(): Promise<Buffer> {
  const frame = (r: number) => sharp({ create: { width: 60, height: 40, channels: 4, background: { r, g: 0, b: 0, alpha: 1 } } }).png().toBuffer();
  return sharp([await frame(255), await frame(0), await frame(128)], { join: { animated: true } }).gif().toBuffer();
}

const pathOf = (uri: string) => uri.slice('/user_uploads/'.length);

t.test('an uploaded image: thumbnail stored, Zulip markup in the message, thumbnail access = file access', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const up = await upload(s, hamlet, [['file', new Uint8Array(await png(1200, 900)), 'photo.png', 'image/png']]);
  t.equal(up.status, 200);
  t.equal(storedFiles(s).length, 2, 'the original and its 840x560.webp');

  const sent = await hamlet.call('POST', '/messages', { type: 'direct', to: [cordelia.userId], content: `[photo.png](${up.body.uri})` });
  t.equal(sent.status, 200);
  const fetched = await hamlet.call('GET', '/messages', { anchor: sent.body.id, num_before: 0, num_after: 0, apply_markdown: true });
  const thumb = `/user_uploads/thumbnail/${pathOf(up.body.uri)}/840x560.webp`;
  t.equal(
    fetched.body.messages[0].content,
    `<p><a href="${up.body.uri}">photo.png</a></p>\n` +
      `<div class="message_inline_image"><a href="${up.body.uri}" title="photo.png"><img src="${thumb}" data-original-dimensions="1200x900" data-original-content-type="image/png"></a></div>`,
  );

  const served = await getFile(s, thumb, cordelia);
  t.equal(served.status, 200, 'a reader of the linking message reads the thumbnail');
  t.equal(served.headers.get('content-type'), 'image/webp');
  const meta = await sharp(served.bytes).metadata();
  t.same([meta.format, meta.width, meta.height], ['webp', 747, 560], 'fits 840x560, aspect kept');

  const refused = await getFile(s, thumb, othello);
  const missing = await getFile(s, thumb.replace('photo.png', 'other.png'), othello);
  t.equal(refused.status, 404);
  t.same(refused.bytes.toString(), missing.bytes.toString(), 'not allowed = missing');
  t.equal((await getFile(s, thumb, null)).status, 401, 'no credentials');
  t.equal((await getFile(s, thumb.replace('840x560.webp', '840x560-anim.webp'), hamlet)).status, 404, 'a still image has no animated thumbnail');
  t.equal((await getFile(s, thumb.replace('840x560.webp', '100x100.webp'), hamlet)).status, 404, 'a format never generated');
  t.equal((await getFile(s, `${thumb}/extra`, hamlet)).status, 404);

  // A small image is never upscaled.
  const small = await upload(s, hamlet, [['file', new Uint8Array(await png(30, 20)), 'small.png', 'image/png']]);
  const smallThumb = await getFile(s, `/user_uploads/thumbnail/${pathOf(small.body.uri)}/840x560.webp`, hamlet);
  t.same([(await sharp(smallThumb.bytes).metadata()).width, (await sharp(smallThumb.bytes).metadata()).height], [30, 20]);
});

t.test('an animated GIF keeps its animation in an -anim thumbnail', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const up = await upload(s, hamlet, [['file', new Uint8Array(await animatedGif()), 'dance.gif', 'image/gif']]);
  t.equal(storedFiles(s).length, 3, 'original, 840x560-anim.webp and 840x560.webp');
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'gif', content: `[dance.gif](${up.body.uri})` });
  const content = (await hamlet.call('GET', '/messages', { anchor: sent.body.id, num_before: 0, num_after: 0 })).body.messages[0].content;
  const anim = `/user_uploads/thumbnail/${pathOf(up.body.uri)}/840x560-anim.webp`;
  t.equal(
    content,
    `<p><a href="${up.body.uri}">dance.gif</a></p>\n` +
      `<div class="message_inline_image"><a href="${up.body.uri}" title="dance.gif"><img src="${anim}" data-original-dimensions="60x40" data-original-content-type="image/gif" data-animated="true"></a></div>`,
  );
  const animated = await sharp((await getFile(s, anim, hamlet)).bytes, { animated: true }).metadata();
  t.same([animated.format, animated.pages, animated.pageHeight], ['webp', 3, 40]);
  const still = await sharp((await getFile(s, anim.replace('-anim', ''), hamlet)).bytes).metadata();
  t.equal(still.pages ?? 1, 1, 'the still thumbnail has one frame');
});

t.test('bytes that are no image: stored, never previewed; a non-image type is never parsed', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const fake = await upload(s, hamlet, [['file', 'not really a png', 'fake.png', 'image/png']]);
  t.equal(fake.status, 200, 'Zulip accepts it as a file');
  const doc = await upload(s, hamlet, [['file', new Uint8Array(await png(50, 50)), 'image.bin', 'application/octet-stream']]);
  t.equal(storedFiles(s).length, 2, 'no thumbnail for either');
  for (const uri of [fake.body.uri, doc.body.uri]) {
    const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'files', content: `[file](${uri})` });
    const content = (await hamlet.call('GET', '/messages', { anchor: sent.body.id, num_before: 0, num_after: 0 })).body.messages[0].content;
    t.equal(content, `<p><a href="${uri}">file</a></p>`);
    t.equal((await getFile(s, `/user_uploads/thumbnail/${pathOf(uri)}/840x560.webp`, hamlet)).status, 404);
  }
});

t.test('the web app downloads files and thumbnails with its session cookie', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const up = await upload(s, hamlet, [['file', new Uint8Array(await png(100, 80)), 'p.png', 'image/png']]);
  const browser = new Browser(s.url);
  t.equal((await browser.logIn('hamlet@zulip.com', DEMO_PASSWORD)).status, 302);
  const file = await browser.fetch('GET', up.body.uri);
  t.equal(file.status, 200);
  t.equal(file.headers.get('content-type'), 'image/png');
  const thumb = await browser.fetch('GET', `/user_uploads/thumbnail/${pathOf(up.body.uri)}/840x560.webp`);
  t.equal(thumb.status, 200);
  t.equal(thumb.headers.get('content-type'), 'image/webp');

  const other = new Browser(s.url);
  t.equal((await other.logIn('othello@zulip.com', DEMO_PASSWORD)).status, 302);
  t.match((await other.fetch('GET', up.body.uri)).json, { result: 'error', msg: 'File not found' }, 'another user’s session: same rules');
  const anonymous = await new Browser(s.url).fetch('GET', up.body.uri);
  t.equal(anonymous.status, 401);
  const forgedCookie = await getFile(s, up.body.uri, null, { Cookie: 'sessionid=not-a-session' });
  t.equal(forgedCookie.status, 401);
  const cookie = browser.cookieHeader();
  t.equal((await browser.fetch('POST', '/accounts/logout/', { headers: { 'X-CSRFToken': browser.csrf() } })).status, 302);
  const afterLogout = await fetch(`${s.url}${up.body.uri}`, { headers: { Cookie: cookie } });
  t.equal(afterLogout.status, 401, 'an ended session reads nothing');
});

t.test('a temporary URL survives a restart: the signing key is per data directory', async (t) => {
  const dataDir = makeTempDir(t);
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: DEMO_PASSWORD, rateLimits: false };
  let server = await startServer(config);
  t.teardown(() => server.close());
  const login = await (await fetch(`${server.url}/api/v1/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'hamlet@zulip.com', password: DEMO_PASSWORD }) })).json() as { api_key: string; user_id: number };
  const hamlet = { email: 'hamlet@zulip.com', apiKey: login.api_key, userId: login.user_id, call: () => Promise.reject(new Error('unused')) };
  const form = new FormData();
  form.append('file', new Blob(['kept across restarts']), 'kept.txt');
  const up = (await (await fetch(`${server.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: basicAuth(hamlet) }, body: form })).json()) as { uri: string };
  const temp = (await (await fetch(`${server.url}/api/v1${up.uri}`, { headers: { Authorization: basicAuth(hamlet) } })).json()) as { url: string };
  t.match(temp.url, /^\/user_uploads\/temporary\//);
  const keyFile = join(dataDir, 'upload-url-key.secret');
  t.ok(existsSync(keyFile), 'the key is created with the data directory');
  const key = readFileSync(keyFile, 'utf8');

  await server.close();
  server = await startServer(config);
  t.equal(readFileSync(keyFile, 'utf8'), key, 'the same key after a restart');
  const res = await fetch(`${server.url}${temp.url}`);
  t.equal(res.status, 200);
  t.equal(await res.text(), 'kept across restarts');
});
