/**
 * Inline previews end to end and the `/external_content/` proxy (camo): a message linking an
 * image on a real HTTP server renders Zulip's preview markup; `/thumbnail` redirects signed-in
 * users to the signed proxy URL; the proxy fetches only signed URLs, only public addresses
 * (loopback only with the test hook), only images and videos, within size and redirect limits.
 */
import t from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type Caller, type TestServer } from '../support/test-server.js';
import { solidImage } from '../support/multipart.js';
import { isPublicAddress, verifiedUrl } from '../../src/http/external-content.js';
import { camoUrl } from '../../src/domain/camo.js';

/** A real origin server on 127.0.0.1 with a few fixed answers. */
async function origin(t: { teardown(fn: () => unknown): void }): Promise<{ base: string; server: Server }> {
  const png = await solidImage(30, 20);
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/pic.png') res.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
    else if (path === '/clip.mp4') res.writeHead(200, { 'Content-Type': 'video/mp4' }).end(Buffer.alloc(100, 1));
    else if (path === '/page.png') res.writeHead(200, { 'Content-Type': 'text/html' }).end('<script>alert(1)</script>');
    else if (path === '/vector.png') res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end('<svg/>');
    else if (path === '/huge.png') res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(50 * 1024 * 1024) }).end();
    else if (path === '/moved.png') res.writeHead(302, { Location: '/pic.png' }).end();
    else if (path.startsWith('/loop')) res.writeHead(302, { Location: `/loop${path.length}` }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const auth = (c: Caller) => ({ Authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64') });

async function get(s: TestServer, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

t.test('addresses: only public ones are fetched', async (t) => {
  for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '::1', '::', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
    t.equal(isPublicAddress(ip), false, ip);
  }
  for (const ip of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.equal(isPublicAddress(ip), true, ip);
  t.equal(isPublicAddress('127.0.0.1', true), true, 'the test hook allows loopback');
  t.equal(isPublicAddress('10.0.0.1', true), false, '…and nothing else');
  const signed = camoUrl('https://example.com/a.png', { uri: '/external_content/', key: 'k' });
  const [, , digest, hex] = signed.split('/');
  t.equal(verifiedUrl(digest!, hex!, 'k'), 'https://example.com/a.png');
  t.equal(verifiedUrl(digest!, hex!, 'other key'), null);
  t.equal(verifiedUrl(digest!, hex!.slice(0, -2), 'k'), null, 'a changed URL');
  const js = camoUrl('javascript:alert(1)', { uri: '/external_content/', key: 'k' }).split('/');
  t.equal(verifiedUrl(js[2]!, js[3]!, 'k'), null, 'http(s) only, even when signed');
});

t.test('preview → /thumbnail → /external_content/ → the image (loopback allowed by the test hook)', async (t) => {
  const { base } = await origin(t);
  const s = await startTestServer(t, {}, { externalContentAllowLoopback: true });
  const hamlet = await s.as('hamlet@zulip.com');
  const url = `${base}/pic.png`;
  const rendered = (await hamlet.call('POST', '/messages/render', { content: url })).body.rendered as string;
  const q = encodeURIComponent(url);
  t.equal(rendered,
    `<div class="message_inline_image"><a href="${url}"><img data-src-fullsize="/thumbnail?url=${q}&amp;size=full" src="/thumbnail?url=${q}&amp;size=thumbnail"></a></div>`);

  t.equal((await get(s, `/thumbnail?url=${q}&size=full`)).status, 401, 'signed-in users only');
  t.equal((await get(s, `/thumbnail?url=${q}&size=huge`, auth(hamlet))).status, 400);
  t.equal((await get(s, `/thumbnail?url=${encodeURIComponent('ftp://x/y.png')}&size=full`, auth(hamlet))).status, 400);
  const redirect = await get(s, `/thumbnail?url=${q}&size=thumbnail`, auth(hamlet));
  t.equal(redirect.status, 302);
  const location = redirect.headers.get('location')!;
  t.match(location, /^\/external_content\/[0-9a-f]{40}\/[0-9a-f]+$/);
  t.equal((await get(s, `/thumbnail?url=${encodeURIComponent('/user_uploads/1/ab/x.png')}&size=full`, auth(hamlet))).headers.get('location'), '/user_uploads/1/ab/x.png');

  const image = await get(s, location);
  t.equal(image.status, 200);
  t.equal(image.headers.get('content-type'), 'image/png');
  t.equal(image.headers.get('x-content-type-options'), 'nosniff');
  t.same(image.bytes, await solidImage(30, 20), 'the origin\'s bytes');

  // A video is linked through the proxy directly in the markup.
  const video = (await hamlet.call('POST', '/messages/render', { content: `[clip](${base}/clip.mp4)` })).body.rendered as string;
  const src = /<video data-video-original-url="[^"]+" preload="metadata" src="([^"]+)">/.exec(video)?.[1];
  t.match(src, /^\/external_content\//);
  t.equal((await get(s, src!)).headers.get('content-type'), 'video/mp4');

  const camo = async (path: string) => {
    const r = await get(s, (await get(s, `/thumbnail?url=${encodeURIComponent(base + path)}&size=full`, auth(hamlet))).headers.get('location')!);
    return r.status;
  };
  t.equal(await camo('/page.png'), 404, 'not an image');
  t.equal(await camo('/vector.png'), 404, 'SVG is never proxied');
  t.equal(await camo('/huge.png'), 404, 'over the size limit');
  t.equal(await camo('/missing.png'), 404);
  t.equal(await camo('/moved.png'), 200, 'one redirect is followed');
  t.equal(await camo('/loop.png'), 404, 'a redirect loop stops');
  const forged = location.replace(/\/([0-9a-f]{40})\//, (_m, d: string) => `/${d.slice(0, -1)}${d.endsWith('0') ? '1' : '0'}/`);
  t.equal((await get(s, forged)).status, 403, 'a forged signature');
});

t.test('without the test hook, loopback and private targets are refused', async (t) => {
  const { base } = await origin(t);
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  for (const target of [`${base}/pic.png`, 'http://10.0.0.1/x.png', 'http://169.254.169.254/latest/meta-data.png', 'http://[::1]/x.png']) {
    const location = (await get(s, `/thumbnail?url=${encodeURIComponent(target)}&size=full`, auth(hamlet))).headers.get('location')!;
    const started = Date.now();
    t.equal((await get(s, location)).status, 404, target);
    t.ok(Date.now() - started < 10_000, 'refused without waiting for a connection');
  }
});
