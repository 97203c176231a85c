/**
 * A narrow of 10,000 messages in the browser app (issue 15): the feed loads it page by page as
 * the reader scrolls up, and renders only the rows near the viewport, so the DOM stays small
 * whatever the narrow's length. Frame intervals while scrolling through it are printed (a speed
 * figure for review and for `npm run bench -- --only webapp`, not asserted).
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { basicAuth, DEFAULT_DEMO_PASSWORD, fetchApiKey, REPO_ROOT, startServer } from '../support/server-process.js';
import { chromiumMissing, feedOf, launchChromium, loadWholeNarrow, logIn, newContext, preloadTopic, scrollThroughFeed } from '../support/browser.js';

const MESSAGES = 10_000;
// Sending 10,000 messages takes a while on a loaded 2-core machine: this file may run longer
// than the suite's default 120 s per file.
t.setTimeout(420_000);
const INDEX = join(REPO_ROOT, 'dist', 'webapp', 'index.html');
const missing = chromiumMissing() ?? (existsSync(INDEX) ? null : `${INDEX} is missing: run npm run build`);

t.test('10,000 messages: loaded as scrolled, only the visible rows rendered', { skip: missing ?? false, timeout: 400_000 }, async (t) => {
  // One user sends 10,000 messages: Zulip's 200 requests a minute would refuse them.
  const server = await startServer({ t, args: ['--rate-limits', 'off'] });
  const { api_key: key } = await fetchApiKey(server.url, 'othello@zulip.com', DEFAULT_DEMO_PASSWORD);
  const sent = await preloadTopic(server.url, basicAuth('othello@zulip.com', key), { channel: 'Scotland', topic: 'long' }, MESSAGES);
  t.equal(sent, MESSAGES, `${MESSAGES} messages sent`);

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await (await newContext(browser)).newPage();
  await logIn(page, server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  await page.goto(`${server.url}/#narrow/channel/Scotland/topic/long`);
  const feed = feedOf(page);
  await feed.getByText(`long message ${MESSAGES - 1}`, { exact: true }).waitFor();
  t.ok(await loadWholeNarrow(page), 'scrolling up loads every page down to the first message');
  await feed.getByText('long message 0', { exact: true }).waitFor();
  const report = await scrollThroughFeed(page);
  t.comment(
    `scrolled ${MESSAGES} messages in ${report.steps} frames: p50 ${report.p50FrameMs.toFixed(1)} ms, ` +
      `p95 ${report.p95FrameMs.toFixed(1)} ms, max ${report.maxFrameMs.toFixed(1)} ms; at most ${report.maxRenderedRows} rows in the DOM`,
  );
  t.ok(report.steps > 100, 'the whole feed was scrolled through');
  t.ok(report.maxRenderedRows > 10 && report.maxRenderedRows < 300, `only rows near the viewport are rendered (${report.maxRenderedRows} of ${MESSAGES})`);
  await feed.getByText(`long message ${MESSAGES - 1}`, { exact: true }).waitFor();
});
