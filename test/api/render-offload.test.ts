/**
 * Large messages render on a worker thread before their command reaches the realm actor
 * (realm/render-offload.ts, issue 12), through the real server and the real worker pool, held at a
 * gate by the test so the order of events is fixed (structural, never timed):
 * - while a 10 KB render is in flight, the actor decides other commands (a small send completes);
 * - a user renamed between the worker's render and `decide` gives the in-thread render of the
 *   state the send is decided on;
 * - edits and `POST /messages/render` use the worker too, with the same HTML as in-thread;
 * - a pool whose worker cannot start changes nothing but the thread the render runs on;
 * - the built server (a child process) renders on its worker and exits at SIGTERM.
 */
import t from 'tap';
import { startTestServer, type Caller, type TestServer } from '../support/test-server.js';
import { sample, scrape } from '../support/metrics-scrape.js';
import { api, DEFAULT_DEMO_PASSWORD, ensureBuilt, fetchApiKey, startServer as startProcess } from '../support/server-process.js';
import { WorkerRenderPool, type RenderPool } from '../../src/realm/render-pool.js';
import type { RenderTask, RenderTaskResult } from '../../src/markdown/render-worker.js';
import { renderMessageContent } from '../../src/realm/message-render.js';
import { ZulipError } from '../../src/errors.js';
import { renderOffloads } from '../../src/metrics.js';

/** The offload counter by outcome (process-wide: tests compare before/after). */
async function offloads(): Promise<Record<string, number>> {
  const out: Record<string, number> = { worker: 0, stale: 0, in_thread: 0 };
  for (const v of (await renderOffloads.get()).values) out[String(v.labels['outcome'])] = v.value;
  return out;
}

/** The real pool, counting its renders, holding each finished render until the test opens the gate. */
class GatedPool implements RenderPool {
  readonly inner = new WorkerRenderPool({ maxThreads: 1, timeoutMs: 60_000 });
  readonly results: Array<RenderTaskResult | undefined> = [];
  #gate: Promise<void> = Promise.resolve();
  #open: () => void = () => {};
  #waiters: Array<() => void> = [];

  /** Holds the renders that finish from now on until {@link open}. */
  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }
  open(): void {
    this.#open();
  }
  /** Resolves once `n` renders have finished in total. */
  rendered(n: number): Promise<void> {
    return this.results.length >= n ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(() => this.results.length >= n && resolve()));
  }
  async render(task: RenderTask): Promise<RenderTaskResult | undefined> {
    const result = await this.inner.render(task);
    this.results.push(result);
    for (const w of this.#waiters) w();
    await this.#gate;
    return result;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** About 10,000 characters of list items (the costliest plain pattern for markdown-it) after `head`. */
const big = (head: string) => head + '\n' + '* a\n'.repeat(2480) + '* end';

async function server(t: { teardown(fn: () => unknown): void }, pool: RenderPool): Promise<{ s: TestServer; hamlet: Caller; iago: Caller }> {
  const s = await startTestServer(t, {}, { renderPool: pool });
  return { s, hamlet: await s.as('hamlet@zulip.com'), iago: await s.as('iago@zulip.com') };
}

/** What an in-thread render of `content` by `senderId` to Verona gives against the realm's state now. */
function inThread(s: TestServer, senderId: number, content: string): string {
  const realm = s.server.registry.all()[0]!;
  const verona = [...realm.state.streams.values()].find((x) => x.name === 'Verona')!;
  const r = renderMessageContent(realm.state, content, { senderId, streamId: verona.id, topic: 'big', nowSeconds: Date.now() / 1000 });
  if (r instanceof ZulipError) throw r;
  return r.rendered;
}

const send = (caller: Caller, content: string) => caller.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'big', content });

t.test('a small send completes while a 10 KB render is in flight', async (t) => {
  const pool = new GatedPool();
  const { s, hamlet, iago } = await server(t, pool);
  const before = await offloads();
  pool.hold();
  let bigDone = false;
  const bigSend = send(hamlet, big('@**Iago** look')).then((r) => ((bigDone = true), r));
  await pool.rendered(1);
  const small = await send(hamlet, 'small one');
  t.equal(small.status, 200, 'the small send is answered');
  t.notOk(bigDone, 'while the large one is still held after its render');
  pool.open();
  const large = await bigSend;
  t.equal(large.status, 200);
  t.ok(large.body.id > small.body.id, 'the large message is decided after the small one');
  t.equal(pool.results[0]?.kind, 'rendered', 'the large content was rendered by the worker');
  t.equal((await offloads()).worker, before.worker! + 1, "decide used the worker's HTML");
  const stored = await iago.call('GET', `/messages/${large.body.id}`);
  t.equal(stored.body.message.content, inThread(s, hamlet.userId, big('@**Iago** look')), 'stored HTML = in-thread HTML');
  t.match(stored.body.message.content, 'class="user-mention"');
  t.ok(stored.body.message.flags.includes('mentioned'), 'mention flags computed from the worker\'s findings');
});

t.test('a user renamed between the worker render and decide: the in-thread result', async (t) => {
  const pool = new GatedPool();
  const { s, hamlet, iago } = await server(t, pool);
  const othello = await s.as('othello@zulip.com');
  const content = big('hi @**Othello, the Moor of Venice**');
  const before = await offloads();
  pool.hold();
  const sending = send(hamlet, content);
  await pool.rendered(1);
  const worker = pool.results[0];
  t.match(worker?.kind === 'rendered' ? worker.html : '', 'class="user-mention"', 'the worker saw the old name');
  const renamed = await iago.call('PATCH', `/users/${othello.userId}`, { full_name: 'Othello Renamed' });
  t.equal(renamed.status, 200);
  pool.open();
  const sent = await sending;
  t.equal(sent.status, 200);
  const stored = await othello.call('GET', `/messages/${sent.body.id}`);
  t.notMatch(stored.body.message.content, 'user-mention', 'the mention names nobody any more');
  t.equal(stored.body.message.content, inThread(s, hamlet.userId, content), 'stored HTML = in-thread HTML of the decided state');
  t.notOk(stored.body.message.flags.includes('mentioned'), 'and nobody is flagged');
  t.equal((await offloads()).stale, before.stale! + 1, 'decide rendered again in-thread');
});

t.test('edits and POST /messages/render use the worker with the in-thread result', async (t) => {
  const pool = new GatedPool();
  const { s, hamlet } = await server(t, pool);
  const sent = await send(hamlet, 'short');
  const content = big('edited **bold** #**Verona** :smile:');
  const edited = await hamlet.call('PATCH', `/messages/${sent.body.id}`, { content });
  t.equal(edited.status, 200);
  t.equal(pool.results.length, 1, 'the edit was rendered by the worker');
  const stored = await hamlet.call('GET', `/messages/${sent.body.id}`);
  t.equal(stored.body.message.content, inThread(s, hamlet.userId, content));
  const preview = await hamlet.call('POST', '/messages/render', { content });
  t.equal(pool.results.length, 2, 'the preview was rendered by the worker');
  t.equal(preview.body.rendered, stored.body.message.content);
  const over = await hamlet.call('POST', '/messages/render', { content: ('[ ' + '[a](b) '.repeat(2000)).slice(0, 10_000) });
  t.equal(pool.results.at(-1)?.kind, 'over_budget', 'the worker hit the work budget');
  t.same(over.body, { result: 'error', msg: 'Unable to render message', code: 'BAD_REQUEST' }, 'same error as in-thread');
  const small = await hamlet.call('POST', '/messages/render', { content: '*small*' });
  t.equal(small.body.rendered, '<p><em>small</em></p>');
  t.equal(pool.results.length, 3, 'small contents stay in-thread');
});

t.test('a pool whose worker cannot start: sends render in-thread', async (t) => {
  const broken = new WorkerRenderPool({ filename: new URL('./no-such-render-worker.js', import.meta.url).href });
  const { s, hamlet } = await server(t, broken);
  const before = await offloads();
  const content = big('@**Iago** still works');
  const sent = await send(hamlet, content);
  t.equal(sent.status, 200);
  const stored = await hamlet.call('GET', `/messages/${sent.body.id}`);
  t.equal(stored.body.message.content, inThread(s, hamlet.userId, content));
  t.equal((await offloads()).in_thread, before.in_thread! + 1, 'counted as rendered in-thread');
});

t.test('the built server renders a 10 KB send on its worker and still exits at SIGTERM', async (t) => {
  ensureBuilt();
  const token = 'render-offload-metrics-token-0123456789';
  const server = await startProcess({ t, args: ['--metrics-token', token] });
  const { api_key: key } = await fetchApiKey(server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  const content = big('@**Iago** from the built server');
  const sent = await api<{ id: number }>(server.url, 'hamlet@zulip.com', key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'big', content });
  t.equal(sent.status, 200);
  const got = await api<{ message: { content: string } }>(server.url, 'hamlet@zulip.com', key, 'GET', `messages/${sent.body.id}`);
  t.match(got.body.message.content, /^<p><span class="user-mention" data-user-id="\d+">@Iago<\/span> from the built server<\/p>\n<ul>\n<li>a<\/li>/);
  const metrics = await scrape(server.url, token);
  t.equal(sample(metrics.text, 'parley_render_offloads_total', 'outcome="worker"'), 1, "the send used its worker's render");
  const exit = await server.stop('SIGTERM', 15_000);
  t.same(exit, { code: 0, signal: null }, 'no worker thread keeps the process alive');
});
