/**
 * The browser app end to end (issue 15): the built server (`dist/cli.js`, demo organization) and
 * the built app (`dist/webapp/`), driven in real headless Chromium. Hamlet logs in through the
 * login page, reads the welcome thread, sends to a channel and a direct message, sees a message
 * Othello sends through the API arrive live, watches unread counts drop as he reads, edits,
 * reacts, narrows by search, survives a network cut without losing or duplicating a message, and
 * logs out; a second browser context logged in as Othello receives Hamlet's messages live.
 * Every browser-visible result is also checked on the server through the API.
 *
 * Screenshots of the main screens go to `.tap/webapp-screens/` (gitignored) for review. The two
 * budgets (JS + CSS < 150 KB gzip; navigation to first messages < 500 ms) are measured and
 * printed here and by `npm run bench -- --only webapp`, not asserted against time.
 */
import t from 'tap';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { api, DEFAULT_DEMO_PASSWORD, fetchApiKey, REPO_ROOT, startServer } from '../support/server-process.js';
import { appAssetSizes, chromiumMissing, cookieHeader, feedOf, launchChromium, logIn, newContext, timeToFirstMessages } from '../support/browser.js';

const PW = DEFAULT_DEMO_PASSWORD;
const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const SCREENS = join(REPO_ROOT, '.tap', 'webapp-screens');
const INDEX = join(REPO_ROOT, 'dist', 'webapp', 'index.html');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const missing = chromiumMissing() ?? (existsSync(INDEX) ? null : `${INDEX} is missing: run npm run build`);
// Two browsers walking through the app take about a minute alone, longer beside the rest of the
// suite on a 2-core machine: more than the suite's 120 s per file.
t.setTimeout(360_000);

t.test('the web app in headless Chromium', { skip: missing ?? false, timeout: 300_000 }, async (t) => {
  const server = await startServer({ t });
  const url = server.url;
  const othelloKey = (await fetchApiKey(url, OTHELLO, PW)).api_key;
  const hamletKey = (await fetchApiKey(url, HAMLET, PW)).api_key;
  const asOthello = (method: string, path: string, params: Json = {}) => api<Json>(url, OTHELLO, othelloKey, method, path, params);
  const asHamlet = (method: string, path: string, params: Json = {}) => api<Json>(url, HAMLET, hamletKey, method, path, params);
  /** The newest message of a narrow, as `who` sees it (Markdown source). */
  const latest = async (narrow: Json[], who = asHamlet) =>
    ((await who('GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow, apply_markdown: false })).body.messages as Json[]).at(-1);
  const unreadCount = async (narrow: Json[]) =>
    ((await asHamlet('GET', 'messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [...narrow, { operator: 'is', operand: 'unread' }] })).body.messages as Json[]).length;
  mkdirSync(SCREENS, { recursive: true });
  const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENS, `${name}.png`) });

  const browser: Browser = await launchChromium();
  t.teardown(() => browser.close());
  const hamletContext = await newContext(browser);
  const page = await hamletContext.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  // Without a session, / sends the browser to the login page.
  await page.goto(`${url}/`);
  await page.waitForURL(/\/login\/$/);
  await shot(page, '01-login');

  await t.test('logs in and shows the feed, the channels and the welcome thread', async (t) => {
    await logIn(page, url, HAMLET, PW);
    t.match(page.url(), new RegExp(`^${url}/`), 'the app is served at /');
    const nav = page.getByRole('navigation', { name: 'Channels' });
    for (const name of ['Verona', 'Denmark', 'Scotland']) t.ok(await nav.getByRole('button', { name }).isVisible(), `channel ${name} listed`);
    // No script ever sees the API key: the cookies are the session and the CSRF token only.
    const cookies = await hamletContext.cookies(url);
    t.same(cookies.map((c) => c.name).sort(), ['csrftoken', 'sessionid']);
    t.equal(cookies.find((c) => c.name === 'sessionid')?.httpOnly, true, 'the session cookie is HttpOnly');
    t.notOk(await page.evaluate(() => document.cookie.includes('sessionid')), 'script cannot read the session');
    await page.locator('.connection-live').waitFor({ state: 'attached' });
    t.pass('events arrive over the WebSocket (/json/events/socket with the session cookie)');
    await shot(page, '02-all-messages');

    await nav.getByRole('button', { name: 'Verona' }).click();
    await nav.getByRole('button', { name: /^welcome/ }).click();
    await feedOf(page).getByText('Welcome to').waitFor();
    t.match(page.url(), /#narrow\/channel\/Verona\/topic\/welcome$/, 'the narrow is in the URL');
    const headers = await feedOf(page).locator('.recipient-header').allTextContents();
    t.ok(headers.length >= 1 && headers.every((h) => /#Verona › welcome/.test(h)), 'grouped under Verona › welcome');
    await shot(page, '03-welcome-thread');
  });

  const othelloContext = await newContext(browser);
  const othelloPage = await othelloContext.newPage();
  await logIn(othelloPage, url, OTHELLO, PW);

  await t.test('unread counts appear live and drop as messages are read', async (t) => {
    // Hamlet looks at Denmark; Othello writes to Verona › unread-check through the API.
    await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: 'Denmark' }).click();
    await feedOf(page).getByText('rotten').waitFor();
    for (let i = 1; i <= 3; i++) await asOthello('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'unread-check', content: `unread ${i}` });
    const veronaCount = page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /^Verona/ }).getByLabel(/unread/);
    await t.resolves(waitFor(async () => (await veronaCount.getAttribute('aria-label')) === '3 unread messages'), 'Verona shows 3 unread');
    await shot(page, '04-unread-counts');
    const unreadOnServer = () => unreadCount([{ operator: 'channel', operand: 'Verona' }]);
    t.equal(await unreadOnServer(), 3, 'three unread on the server');

    await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /^Verona/ }).click();
    await feedOf(page).getByText('unread 3').waitFor();
    await veronaCount.waitFor({ state: 'detached' });
    await t.resolves(waitFor(async () => (await unreadOnServer()) === 0), 'read on the server too');
  });

  let sentId = 0;
  await t.test('sends to a channel with Enter; the other user sees it live', async (t) => {
    await othelloPage.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /^Verona/ }).click();
    await feedOf(othelloPage).getByText('unread 3').waitFor();

    await page.getByLabel('Channel', { exact: true }).fill('Verona');
    await page.getByLabel('Topic', { exact: true }).fill('browser');
    const box = page.getByLabel('Message', { exact: true });
    await box.fill('Hello from **the browser**');
    await box.press('Shift+Enter');
    await box.pressSequentially('second line');
    t.equal(await box.inputValue(), 'Hello from **the browser**\nsecond line', 'Shift+Enter is a newline');
    await box.press('Enter');
    await feedOf(page).locator('strong', { hasText: 'the browser' }).waitFor();
    t.equal(await box.inputValue(), '', 'the box is cleared');
    const sent = await latest([{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'browser' }]);
    t.equal(sent?.content, 'Hello from **the browser**\nsecond line', 'stored as typed');
    sentId = sent?.id;
    await feedOf(othelloPage).locator('strong', { hasText: 'the browser' }).waitFor();
    t.equal(await feedOf(page).getByText('second line').count(), 1, 'the local echo was replaced, not duplicated');
    await shot(othelloPage, '05-othello-receives');
  });

  await t.test('a message sent through the API appears live', async (t) => {
    await asOthello('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'browser', content: 'sent by othello via the API' });
    await feedOf(page).getByText('sent by othello via the API').waitFor();
    t.equal(await feedOf(page).getByText('sent by othello via the API').count(), 1);
  });

  await t.test('edits and reacts to own message; the other user sees both', async (t) => {
    const row = feedOf(page).locator(`.message-group[data-message-id="${sentId}"] .message-row`);
    await row.hover();
    await row.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByLabel('Edit message');
    await t.resolves(waitFor(async () => (await editor.inputValue()).includes('second line')), 'the editor holds the Markdown source');
    await editor.fill('Hello from the browser, *edited*');
    await editor.press('Enter');
    await feedOf(page).locator('em', { hasText: 'edited' }).waitFor();
    await feedOf(othelloPage).locator('em', { hasText: 'edited' }).waitFor();
    const edited = (await asHamlet('GET', `messages/${sentId}`, { apply_markdown: false })).body.message as Json;
    t.equal(edited.content, 'Hello from the browser, *edited*');

    await row.hover();
    await row.getByRole('button', { name: 'Add reaction' }).click();
    await page.getByLabel('Search emoji').fill('thumbs_u');
    await page.getByRole('dialog', { name: 'Emoji picker' }).getByRole('button', { name: 'thumbs_up' }).click();
    await row.getByRole('button', { name: 'thumbs_up 1' }).waitFor();
    await feedOf(othelloPage).getByRole('button', { name: 'thumbs_up 1' }).waitFor();
    const reacted = (await asHamlet('GET', `messages/${sentId}`)).body.message as Json;
    t.same(
      reacted.reactions.map((r: Json) => [r.emoji_name, r.user_id]),
      [['thumbs_up', reacted.sender_id]],
    );
    await shot(page, '06-edit-and-reaction');
  });

  await t.test('typing notices, preview, and a failed send keeps the draft', async (t) => {
    await othelloPage.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /^browser/ }).click();
    await feedOf(othelloPage).getByText('sent by othello via the API').waitFor();
    const box = page.getByLabel('Message', { exact: true });
    await page.getByLabel('Topic', { exact: true }).fill('browser');
    await box.pressSequentially('Some *markdown* with @**Othello, the Moor of Venice**');
    await othelloPage.getByText('King Hamlet is typing…').waitFor();
    t.pass('the other user sees the typing notice');

    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByLabel('Preview');
    await preview.locator('em', { hasText: 'markdown' }).waitFor();
    t.equal(await preview.locator('.user-mention').textContent(), '@Othello, the Moor of Venice', 'rendered by the server');
    await page.getByRole('button', { name: 'Write', exact: true }).click();

    // A channel that does not exist: the server refuses, the text stays in the box.
    await page.getByLabel('Channel', { exact: true }).fill('No such channel');
    await box.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Message not sent' }).waitFor();
    t.equal(await box.inputValue(), 'Some *markdown* with @**Othello, the Moor of Venice**', 'the draft is kept');
    t.equal(await feedOf(page).getByText('Some *markdown*').count(), 0, 'the local echo is gone');
    t.equal((await latest([{ operator: 'sender', operand: HAMLET }]))?.content, 'Hello from the browser, *edited*', 'nothing was stored');
    await box.fill('');
    await page.getByLabel('Channel', { exact: true }).fill('Verona');
  });

  const uploadProbe = await asHamlet('POST', 'user_uploads');
  const noUploads = uploadProbe.status === 404 ? 'this server has no uploads (POST /user_uploads answers 404)' : false;
  await t.test('a file dropped on the message box is uploaded and linked', { skip: noUploads }, async (t) => {
    const box = page.getByLabel('Message', { exact: true });
    await page.getByLabel('Channel', { exact: true }).fill('Verona');
    await page.getByLabel('Topic', { exact: true }).fill('browser');
    await box.evaluate((el) => {
      const data = new DataTransfer();
      data.items.add(new File(['dropped in the browser'], 'note.txt', { type: 'text/plain' }));
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await t.resolves(waitFor(async () => /^\[note\.txt\]\(\/user_uploads\/[^)]+\)$/.test(await box.inputValue())), 'a link to the upload');
    await box.press('Enter');
    await feedOf(page).getByRole('link', { name: 'note.txt' }).last().waitFor();
    const stored = await latest([{ operator: 'sender', operand: HAMLET }]);
    t.match(String(stored?.content), /^\[note\.txt\]\(\/user_uploads\/[^)]+\)$/, 'the message links the upload');
  });

  await t.test('keyboard: j/k select, r replies, c composes, Esc leaves the box', async (t) => {
    await page.getByLabel('Topic', { exact: true }).fill('');
    await page.getByLabel('Message', { exact: true }).focus();
    await page.keyboard.press('Escape');
    const selectedText = () => page.locator('.message-row.selected').textContent();
    await page.keyboard.press('k');
    const afterK = await selectedText();
    await page.keyboard.press('j');
    t.not(await selectedText(), afterK, 'j moves the selection');
    await page.keyboard.press('r');
    t.equal(await page.getByLabel('Topic', { exact: true }).inputValue(), 'browser', 'r fills the selected message’s topic');
    t.ok(await page.getByLabel('Message', { exact: true }).evaluate((el) => el === document.activeElement), 'and focuses the message box');
    await page.keyboard.press('Escape');
    await page.keyboard.press('c');
    t.equal(await page.getByLabel('Channel', { exact: true }).inputValue(), 'Verona', 'c in a channel narrow targets the channel');
    t.ok(await page.getByLabel('Topic', { exact: true }).evaluate((el) => el === document.activeElement), 'and focuses the empty topic');
    await page.keyboard.press('Escape');
  });

  await t.test('sends a direct message (keyboard x); the recipient sees it', async (t) => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('x');
    await page.getByLabel('To', { exact: true }).fill(OTHELLO);
    await page.getByLabel('Message', { exact: true }).fill('a private word from the browser');
    await page.getByRole('button', { name: 'Send' }).click();
    await othelloPage.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /King Hamlet/ }).click();
    await feedOf(othelloPage).getByText('a private word from the browser').waitFor();
    const dm = await latest([{ operator: 'dm', operand: HAMLET }], asOthello);
    t.equal(dm?.content, 'a private word from the browser');
    await shot(othelloPage, '07-direct-message');
  });

  await t.test('the search box narrows with Zulip search syntax', async (t) => {
    const search = page.getByRole('searchbox', { name: 'Search' });
    await page.keyboard.press('Escape');
    await page.keyboard.press('/');
    t.ok(await search.evaluate((el) => el === document.activeElement), '/ focuses the search box');
    await search.fill('channel:Verona topic:browser');
    await search.press('Enter');
    await feedOf(page).getByText('sent by othello via the API').waitFor();
    await t.resolves(waitFor(async () => (await feedOf(page).getByText('unread 1').count()) === 0), 'other topics are gone');
    const topics = await feedOf(page).locator('.recipient-header').allTextContents();
    t.ok(topics.every((h) => h.includes('browser')), 'only the browser topic');
    await search.fill('topic:browser edited');
    await search.press('Enter');
    await t.resolves(waitFor(async () => (await feedOf(page).getByText('sent by othello via the API').count()) === 0), 'full-text search narrows further');
    // The feed empties as the narrow changes, before the search answers: wait for the match.
    await t.resolves(waitFor(async () => (await feedOf(page).locator('em', { hasText: 'edited' }).count()) === 1), 'the edited message matches');
    await shot(page, '08-search');
  });

  await t.test('a network cut loses and duplicates nothing', async (t) => {
    await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /^Verona/ }).click();
    await feedOf(page).getByText('sent by othello via the API').waitFor();
    await hamletContext.setOffline(true);
    for (let i = 1; i <= 3; i++) await asOthello('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'browser', content: `while offline ${i}` });
    await hamletContext.setOffline(false);
    await page.evaluate(() => (window as unknown as { parley: { stream: { reconnect(): void } } }).parley.stream.reconnect());
    await feedOf(page).getByText('while offline 3').waitFor({ timeout: 30_000 });
    for (let i = 1; i <= 3; i++) t.equal(await feedOf(page).getByText(`while offline ${i}`).count(), 1, `message ${i} shown once`);
  });

  await t.test('a lost event queue is registered again and nothing is missed', async (t) => {
    type Parley = { parley: { stream: { queueId: string } } };
    const oldQueue = await page.evaluate(() => (window as unknown as Parley).parley.stream.queueId);
    // The queue disappears (as after 10 minutes asleep): deleted through the API.
    t.equal((await asHamlet('DELETE', 'events', { queue_id: oldQueue })).status, 200, 'queue deleted');
    await asOthello('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'browser', content: 'after the queue was lost' });
    await feedOf(page).getByText('after the queue was lost').waitFor({ timeout: 30_000 });
    t.not(await page.evaluate(() => (window as unknown as Parley).parley.stream.queueId), oldQueue, 'a new queue');
    t.equal(await feedOf(page).getByText('after the queue was lost').count(), 1, 'shown once');
    await asOthello('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'browser', content: 'on the new queue' });
    await feedOf(page).getByText('on the new queue').waitFor();
  });

  await t.test('deletes own message; the other user sees it go', async (t) => {
    await othelloPage.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /^Verona/ }).click();
    const doomed = (await asHamlet('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'browser', content: 'to be deleted' })).body.id as number;
    await feedOf(othelloPage).getByText('to be deleted').waitFor();
    const row = feedOf(page).locator(`.message-group[data-message-id="${doomed}"] .message-row`);
    await row.click();
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    await feedOf(othelloPage).getByText('to be deleted').waitFor({ state: 'detached' });
    t.equal((await asHamlet('GET', `messages/${doomed}`)).status, 400, 'gone on the server');
  });

  await t.test('budgets: JS+CSS compressed, navigation to first messages', async (t) => {
    const sizes = await appAssetSizes(url, await cookieHeader(hamletContext, url));
    t.equal(sizes.files.length, 2, 'one script, one stylesheet');
    t.ok(sizes.gzipBytes < 150_000, `JS+CSS ${sizes.gzipBytes} B gzip < 150 KB`);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) times.push(await timeToFirstMessages(page, `${url}/`));
    t.comment(`navigation to first messages: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms (budget 500 ms); JS+CSS ${sizes.gzipBytes} B gzip`);
    t.ok(times.every((ms) => ms > 0), 'measured');
  });

  await t.test('the page is served under a strict CSP and never inlines script', async (t) => {
    const response = await fetch(`${url}/`, { headers: { cookie: await cookieHeader(hamletContext, url) } });
    const html = await response.text();
    t.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    const built = readFileSync(INDEX, 'utf8');
    for (const asset of built.match(/\/static\/app-[^"]+/g) ?? []) t.ok(html.includes(asset), `references ${asset}`);
  });

  await t.test('phone-sized layout: the channel list is a drawer', async (t) => {
    const phone = await newContext(browser, { phone: true });
    await phone.addCookies(await hamletContext.cookies(url));
    const small = await phone.newPage();
    await small.goto(`${url}/`);
    await feedOf(small).locator('.message-row').first().waitFor();
    const nav = small.getByRole('navigation', { name: 'Channels' });
    t.notOk(await nav.isVisible(), 'sidebar hidden on a phone');
    await shot(small, '09-phone');
    await small.getByRole('button', { name: 'Show channels' }).click();
    t.ok(await nav.isVisible(), 'the menu button opens it');
    await shot(small, '10-phone-drawer');
    await phone.close();
  });

  await t.test('without WebSockets the app long-polls GET /json/events', async (t) => {
    const context = await newContext(browser);
    // A proxy that accepts the upgrade and drops the socket at once.
    await context.routeWebSocket(/\/events\/socket/, (ws) => void ws.close());
    await context.addCookies(await hamletContext.cookies(url));
    const polling = await context.newPage();
    await polling.goto(`${url}/#narrow/channel/Verona/topic/browser`);
    await polling.locator('.connection-polling').waitFor({ state: 'attached' });
    await asOthello('POST', 'messages', { type: 'stream', to: 'Verona', topic: 'browser', content: 'delivered by long-poll' });
    await feedOf(polling).getByText('delivered by long-poll').waitFor();
    t.equal(await feedOf(polling).getByText('delivered by long-poll').count(), 1, 'shown once');
    await context.close();
  });

  await t.test('dark theme in personal settings', async (t) => {
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Dark').check();
    await t.resolves(waitFor(async () => (await page.evaluate(() => document.documentElement.dataset['theme'])) === 'dark'));
    const colorScheme = async () => (await asHamlet('POST', 'register', { fetch_event_types: ['user_settings'] })).body.user_settings?.color_scheme;
    await t.resolves(waitFor(async () => (await colorScheme()) === 2), 'color_scheme 2 (dark) saved on the server');
    await shot(page, '11-dark-settings');
  });

  await t.test('name and password in personal settings', async (t) => {
    const settings = page.getByRole('region', { name: 'Personal settings' });
    await settings.getByLabel('Full name').fill('Prince Hamlet');
    await settings.getByRole('button', { name: 'Save name' }).click();
    await settings.getByRole('status').getByText('Name saved.').waitFor();
    t.equal(((await asHamlet('GET', 'users/me')).body as Json).full_name, 'Prince Hamlet', 'renamed on the server');

    await settings.getByLabel('Current password').fill('wrong password');
    await settings.getByLabel('New password').fill('a much longer new secret 42');
    await settings.getByRole('button', { name: 'Change password' }).click();
    const status = settings.getByRole('status');
    await t.resolves(waitFor(async () => !['', 'Name saved.'].includes((await status.textContent()) ?? '')), 'the server’s refusal is shown');
    t.comment(`refusal shown: ${await status.textContent()}`);
    t.equal((await api(url, null, null, 'POST', 'fetch_api_key', { username: HAMLET, password: PW })).status, 200, 'a wrong current password changes nothing');

    await settings.getByLabel('Current password').fill(PW);
    await settings.getByLabel('New password').fill('a much longer new secret 42');
    await settings.getByRole('button', { name: 'Change password' }).click();
    await settings.getByRole('status').getByText('Password changed.').waitFor();
    t.equal((await api(url, null, null, 'POST', 'fetch_api_key', { username: HAMLET, password: 'a much longer new secret 42' })).status, 200, 'the new password works');
    await page.reload();
    await feedOf(page).locator('.message-row').first().waitFor();
    t.pass('this session survives its own password change');
    await page.getByRole('button', { name: 'Settings' }).click();
    await settings.getByRole('button', { name: 'Close' }).click();
  });

  await t.test('logs out', async (t) => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login\/$/);
    await page.goto(`${url}/`);
    await page.waitForURL(/\/login\/$/);
    t.pass('the session is gone: / goes to the login page');
  });

  t.same(pageErrors, [], 'no uncaught errors in the page');
  await othelloContext.close();
  await hamletContext.close();
});

/** Polls `check` every 100 ms until it is true; rejects after `timeoutMs` (default 15 s). */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
