/**
 * Real headless Chromium for the web app's end-to-end tests and the bench: Debian's `chromium`
 * (installed by `.ci/run` when missing), driven by playwright-core with `executablePath` (nothing
 * is downloaded). Also the two measurements of issue 15's budgets: the app's JS + CSS size
 * compressed, and the time from navigation to the first messages on screen.
 *
 * This module does not import tap, so bench/ uses it too.
 */
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Where Debian installs Chromium (`PARLEY_CHROMIUM` overrides). */
export const CHROMIUM_PATH = process.env['PARLEY_CHROMIUM'] ?? '/usr/bin/chromium';

/** Flags for a quiet, offline, sandbox-less headless run (CI runs as root in a container). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or null when Chromium is installed. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium; .ci/run does it)`;
}

/** Launches headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** A new context (own cookies) with a desktop viewport, or a phone's when `phone`. */
export function newContext(browser: Browser, opts: { phone?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext(
    opts.phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 860 } },
  );
}

/** The feed (`role="log"` named "Messages"). */
export const feedOf = (page: Page) => page.getByRole('log', { name: 'Messages' });

/**
 * Logs in through the real login page (`GET /login/`, labels "Email"/"Password", button
 * "Log in") and waits until the app shows its first message.
 */
export async function logIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await feedOf(page).locator('.message-row').first().waitFor({ timeout: 30_000 });
}

/**
 * Milliseconds from starting navigation to `url` until the first message row is visible (the
 * page must already hold a session). Measured with the page's own clock: `performance.now()` at
 * the moment the row appears, relative to navigation start.
 */
export async function timeToFirstMessages(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  await feedOf(page).locator('.message-row').first().waitFor({ timeout: 30_000 });
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        // The row exists; its paint time is bounded by the next frame.
        requestAnimationFrame(() => resolve(performance.now()));
      }),
  );
}

/** The app's hashed JS and CSS as the server serves them, and their gzip size (bytes). */
export async function appAssetSizes(baseUrl: string, cookie: string): Promise<{ files: string[]; rawBytes: number; gzipBytes: number }> {
  const html = await (await fetch(`${baseUrl}/`, { headers: { cookie }, redirect: 'manual' })).text();
  const files = [...html.matchAll(/(?:src|href)="(\/static\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const file of files) {
    const body = Buffer.from(await (await fetch(`${baseUrl}${file}`)).arrayBuffer());
    rawBytes += body.length;
    gzipBytes += gzipSync(body, { level: 9 }).length;
  }
  return { files, rawBytes, gzipBytes };
}

/** The `Cookie` header value of a context's cookies for `baseUrl`. */
export async function cookieHeader(context: BrowserContext, baseUrl: string): Promise<string> {
  return (await context.cookies(baseUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
}

/**
 * Scrolls the feed to its top until the whole narrow is loaded ("Beginning of this view"), at
 * most `maxSteps` steps or `timeLimitMs`. Resolves with whether everything was loaded.
 */
export async function loadWholeNarrow(page: Page, maxSteps = 400, timeLimitMs = 120_000): Promise<boolean> {
  const feed = feedOf(page);
  const deadline = Date.now() + timeLimitMs;
  for (let i = 0; i < maxSteps && Date.now() < deadline; i++) {
    if ((await feed.getByText('Beginning of this view').count()) > 0) return true;
    await feed.evaluate((el) => {
      el.scrollTop = 0;
      el.dispatchEvent(new Event('scroll'));
    });
    await page.waitForTimeout(150);
  }
  return (await feed.getByText('Beginning of this view').count()) > 0;
}

/** What scrolling the whole feed cost: frame intervals (ms) and the most rows in the DOM at once. */
export interface ScrollReport {
  steps: number;
  p50FrameMs: number;
  p95FrameMs: number;
  maxFrameMs: number;
  /** The most `.message-row` elements present at once (virtualization keeps this small). */
  maxRenderedRows: number;
}

/**
 * Scrolls the feed from top to bottom `stepPx` per animation frame (at most `maxSteps` steps) and
 * reports the frame intervals and the largest number of rendered rows.
 */
export async function scrollThroughFeed(page: Page, stepPx = 400, maxSteps = 3000): Promise<ScrollReport> {
  return feedOf(page).evaluate(
    async (el, { stepPx, maxSteps }) => {
      const frames: number[] = [];
      let maxRenderedRows = 0;
      let last = performance.now();
      for (let y = 0; y < el.scrollHeight && frames.length < maxSteps; y += stepPx) {
        el.scrollTop = y;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        frames.push(now - last);
        last = now;
        maxRenderedRows = Math.max(maxRenderedRows, el.querySelectorAll('.message-row').length);
      }
      frames.sort((a, b) => a - b);
      // No named helper functions in here: tsx would wrap them in a `__name` call the page lacks.
      const n = frames.length;
      return {
        steps: n,
        p50FrameMs: frames[Math.floor(n * 0.5)] ?? 0,
        p95FrameMs: frames[Math.min(n - 1, Math.floor(n * 0.95))] ?? 0,
        maxFrameMs: frames[n - 1] ?? 0,
        maxRenderedRows,
      };
    },
    { stepPx, maxSteps },
  );
}

/**
 * Sends `count` short messages to one channel topic through the API (16 at a time, stopping at
 * `timeLimitMs`); some have a second paragraph and a quote so row heights vary. The server must
 * run with `--rate-limits off`. Resolves with the number sent.
 */
export async function preloadTopic(
  url: string,
  auth: string,
  target: { channel: string; topic: string },
  count: number,
  timeLimitMs = 180_000,
): Promise<number> {
  const deadline = Date.now() + timeLimitMs;
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (next < count && Date.now() < deadline) {
      const i = next++;
      const content = `long message ${i}` + (i % 7 === 0 ? '\n\nwith a second paragraph\n> and a quote' : '');
      const response = await fetch(`${url}/api/v1/messages`, {
        method: 'POST',
        headers: { authorization: auth },
        body: new URLSearchParams({ type: 'stream', to: target.channel, topic: target.topic, content }),
      });
      if (!response.ok) throw new Error(`preload send failed: HTTP ${response.status} ${await response.text()}`);
      sent++;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return sent;
}
