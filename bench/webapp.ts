/**
 * The browser app's budgets (issue 15), measured in real headless Chromium against the bench's
 * server: the app's JS + CSS gzip size (budget 150 KB), the time from navigation to the first
 * messages on screen (budget 500 ms on loopback; median of several loads), and scrolling a narrow
 * of 10,000 messages (frame intervals, and how many rows the virtualized feed keeps in the DOM).
 * Needs Debian's Chromium (`test/support/browser.ts`); the server must run without rate limits.
 */
import { basicAuth, fetchApiKey } from '../test/support/server-process.js';
import {
  appAssetSizes,
  chromiumMissing,
  cookieHeader,
  feedOf,
  launchChromium,
  loadWholeNarrow,
  logIn,
  newContext,
  preloadTopic,
  scrollThroughFeed,
  timeToFirstMessages,
  type ScrollReport,
} from '../test/support/browser.js';

/** Budgets of issue 15. */
export const WEBAPP_BUDGETS = { gzipBytes: 150_000, firstMessagesMs: 500 } as const;

export interface WebappBenchReport {
  gzipBytes: number;
  rawBytes: number;
  /** Navigation → first messages, each load (ms). */
  firstMessagesMs: number[];
  medianFirstMessagesMs: number;
  longNarrow: { messages: number; loadMs: number; scroll: ScrollReport } | null;
}

/** Runs the measurements; null with a reason when Chromium is missing. */
export async function runWebappBench(
  url: string,
  password: string,
  opts: { loads?: number; longNarrowMessages?: number } = {},
): Promise<WebappBenchReport | string> {
  const missing = chromiumMissing();
  if (missing !== null) return missing;
  const browser = await launchChromium();
  try {
    const context = await newContext(browser);
    const page = await context.newPage();
    await logIn(page, url, 'hamlet@zulip.com', password);
    const sizes = await appAssetSizes(url, await cookieHeader(context, url));
    const firstMessagesMs: number[] = [];
    for (let i = 0; i < (opts.loads ?? 7); i++) firstMessagesMs.push(await timeToFirstMessages(page, `${url}/`));
    const sorted = [...firstMessagesMs].sort((a, b) => a - b);
    let longNarrow: WebappBenchReport['longNarrow'] = null;
    const messages = opts.longNarrowMessages ?? 10_000;
    if (messages > 0) {
      const key = (await fetchApiKey(url, 'othello@zulip.com', password)).api_key;
      const sent = await preloadTopic(url, basicAuth('othello@zulip.com', key), { channel: 'Scotland', topic: 'bench long narrow' }, messages);
      await page.goto(`${url}/#narrow/channel/Scotland/topic/bench%20long%20narrow`);
      await feedOf(page).locator('.message-row').first().waitFor();
      const started = Date.now();
      await loadWholeNarrow(page);
      const loadMs = Date.now() - started;
      longNarrow = { messages: sent, loadMs, scroll: await scrollThroughFeed(page) };
    }
    return {
      gzipBytes: sizes.gzipBytes,
      rawBytes: sizes.rawBytes,
      firstMessagesMs,
      medianFirstMessagesMs: sorted[sorted.length >> 1] ?? 0,
      longNarrow,
    };
  } finally {
    await browser.close();
  }
}

/** The report as printed lines. */
export function formatWebappBench(r: WebappBenchReport): string {
  const lines = [
    `  JS+CSS: ${r.gzipBytes} B gzip (${r.rawBytes} B raw), budget ${WEBAPP_BUDGETS.gzipBytes} B: ${r.gzipBytes < WEBAPP_BUDGETS.gzipBytes ? 'met' : 'MISSED'}`,
    `  navigation → first messages: median ${r.medianFirstMessagesMs.toFixed(0)} ms (${r.firstMessagesMs.map((ms) => ms.toFixed(0)).join(', ')}), budget ${WEBAPP_BUDGETS.firstMessagesMs} ms: ${r.medianFirstMessagesMs < WEBAPP_BUDGETS.firstMessagesMs ? 'met' : 'MISSED'}`,
  ];
  if (r.longNarrow !== null) {
    const s = r.longNarrow.scroll;
    lines.push(
      `  narrow of ${r.longNarrow.messages} messages: all pages loaded in ${r.longNarrow.loadMs} ms; scrolled in ${s.steps} frames, ` +
        `p50 ${s.p50FrameMs.toFixed(1)} ms, p95 ${s.p95FrameMs.toFixed(1)} ms, max ${s.maxFrameMs.toFixed(1)} ms; at most ${s.maxRenderedRows} rows in the DOM`,
    );
  }
  return lines.join('\n');
}
