/**
 * The browser app shows uploaded images: the built server and app in real headless Chromium. An
 * image uploaded through the API and linked in a message appears in Hamlet's feed as Zulip's
 * inline preview, its 840x560 WebP thumbnail loaded by the browser with nothing but its session
 * cookie (no API key ever reaches the page), and the original by the same cookie.
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { api, DEFAULT_DEMO_PASSWORD, fetchApiKey, REPO_ROOT, startServer } from '../support/server-process.js';
import { chromiumMissing, feedOf, launchChromium, logIn, newContext } from '../support/browser.js';

const PW = DEFAULT_DEMO_PASSWORD;
const HAMLET = 'hamlet@zulip.com';
const INDEX = join(REPO_ROOT, 'dist', 'webapp', 'index.html');
const missing = chromiumMissing() ?? (existsSync(INDEX) ? null : `${INDEX} is missing: run npm run build`);
t.setTimeout(240_000);

t.test('an uploaded image shows in the feed, loaded with the session cookie', { skip: missing ?? false }, async (t) => {
  const server = await startServer({ t });
  const key = (await fetchApiKey(server.url, HAMLET, PW)).api_key;
  const auth = 'Basic ' + Buffer.from(`${HAMLET}:${key}`).toString('base64');
  const form = new FormData();
  const png = await sharp({ create: { width: 1000, height: 500, channels: 3, background: '#3060c0' } }).png().toBuffer();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'sky.png');
  const uploaded = (await (await fetch(`${server.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: auth }, body: form })).json()) as { uri: string };
  const sent = await api(server.url, HAMLET, key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'pictures', content: `[sky.png](${uploaded.uri})` });
  t.equal(sent.status, 200);

  const browser: Browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await (await newContext(browser)).newPage();
  await logIn(page, server.url, HAMLET, PW);
  await page.goto(`${server.url}/#narrow/channel/Verona/topic/pictures`);
  const img = feedOf(page).locator('.message_inline_image img').first();
  await img.waitFor({ timeout: 30_000 });
  t.match(await img.getAttribute('src'), /^\/user_uploads\/thumbnail\/\d+\/.+\/sky\.png\/840x560\.webp$/);
  t.equal(await img.getAttribute('data-original-dimensions'), '1000x500');
  const loaded = await img.evaluate(async (el: HTMLImageElement) => {
    if (!el.complete) await new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
    return [el.naturalWidth, el.naturalHeight];
  });
  t.same(loaded, [840, 420], 'the browser decoded the thumbnail served by its session');
  const full = await page.evaluate(async (uri) => (await fetch(uri)).status, uploaded.uri);
  t.equal(full, 200, 'the original too, by the same cookie');
});
