/**
 * `GET /health` and `GET /metrics` (issue 13 §2) on real servers: the built CLI as a child process
 * (token on the main port, the dedicated metrics port, off by default), and in process for a realm
 * that stopped running.
 */
import { renameSync, rmSync } from 'node:fs';
import t from 'tap';
import { api, fetchApiKey, startServer, DEFAULT_DEMO_PASSWORD } from '../support/server-process.js';
import { startTestServer } from '../support/test-server.js';
import { sample, scrape } from '../support/metrics-scrape.js';

/** Start-up can take tens of seconds on a loaded shared machine; a real hang still fails. */
const START_TIMEOUT_MS = 60_000;

const TOKEN = 'metrics-token-for-tests-0123456789';


t.test('GET /health: 200 success, unauthenticated, and 503 naming the data directory once it is gone', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t });
  const ok = await fetch(`${server.url}/health`);
  t.equal(ok.status, 200);
  t.same(await ok.json(), { result: 'success', msg: '' });
  t.equal((await fetch(`${server.url}/health`, { method: 'HEAD' })).status, 200, 'HEAD works too (load balancers)');

  // Gone from under the server (deleted or unmounted): moved away in one step, because removing
  // the tree while the server still writes in it (its durable mark, uploads, mail) can race
  // (ENOTEMPTY); the moved tree is removed once the server has stopped.
  const moved = `${server.dataDir}.gone`;
  renameSync(server.dataDir, moved);
  t.teardown(() => rmSync(moved, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  const bad = await fetch(`${server.url}/health`);
  t.equal(bad.status, 503);
  const body = (await bad.json()) as Record<string, string>;
  t.equal(body.result, 'error');
  t.equal(body.code, 'SERVER_NOT_READY');
  t.match(body.msg, /^Storage is not writable: data directory /);
  t.ok(body.msg.includes(server.dataDir), `names the directory: ${body.msg}`);
  t.match(body.msg, /ENOENT/, 'and the cause');
});

t.test('GET /health: 503 naming a realm that stopped running (in process)', async (t) => {
  const ts = await startTestServer(t);
  const healthy = await fetch(`${ts.url}/health`);
  t.equal(healthy.status, 200);
  const realm = ts.server.registry.all()[0]!;
  await realm.stop();
  const res = await fetch(`${ts.url}/health`);
  t.equal(res.status, 503);
  t.same(await res.json(), {
    result: 'error',
    code: 'SERVER_NOT_READY',
    msg: `Realm ${realm.id} (the root organization) is not running`,
  });
});

t.test('GET /metrics is not served by default', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t });
  const res = await scrape(server.url, TOKEN);
  t.equal(res.status, 404, 'no token configured: /metrics does not exist on the main port');
  t.equal(JSON.parse(res.text).code, 'NOT_FOUND');
});

t.test('GET /metrics with --metrics-token: 401 without or with a wrong token, Prometheus text with it', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, args: ['--metrics-token', TOKEN] });
  for (const token of [undefined, 'wrong', `${TOKEN}x`]) {
    const res = await scrape(server.url, token);
    t.equal(res.status, 401, `token ${token}`);
    t.match(JSON.parse(res.text), { result: 'error', code: 'UNAUTHORIZED' });
    t.notMatch(res.text, /parley_http_requests_total/, 'nothing leaks');
  }
  const post = await fetch(`${server.url}/metrics`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
  t.equal(post.status, 405);

  const before = await scrape(server.url, TOKEN);
  t.equal(before.status, 200);
  t.match(before.type, /^text\/plain; version=0\.0\.4/);
  const messagesBefore = sample(before.text, 'parley_realm_messages', 'realm=""')!;
  t.ok(messagesBefore > 0, `the demo realm has ${messagesBefore} messages`);
  t.equal(sample(before.text, 'parley_realm_users', 'realm=""')! > 5, true, 'users per realm');
  t.ok(sample(before.text, 'process_cpu_user_seconds_total') !== undefined, "prom-client's default process metrics");
  t.ok(sample(before.text, 'nodejs_eventloop_lag_seconds') !== undefined);

  const { api_key: key } = await fetchApiKey(server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  const sends = await Promise.all(
    [1, 2, 3].map((i) => api(server.url, 'hamlet@zulip.com', key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'metrics', content: `m${i}` })),
  );
  t.same(sends.map((s) => s.status), [200, 200, 200]);
  await api(server.url, 'hamlet@zulip.com', key, 'GET', 'messages/999999');
  const wrong = await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'hamlet@zulip.com', password: 'nope' });
  t.equal(wrong.status, 401);
  const reg = await api<{ queue_id: string; last_event_id: number }>(server.url, 'hamlet@zulip.com', key, 'POST', 'register', { event_types: ['message'] });
  // A long-poll left waiting: counted as an attached consumer.
  const poll = fetch(`${server.url}/api/v1/events?queue_id=${encodeURIComponent(reg.body.queue_id)}&last_event_id=${reg.body.last_event_id}`, {
    headers: { Authorization: `Basic ${Buffer.from(`hamlet@zulip.com:${key}`).toString('base64')}` },
  });
  let after = await scrape(server.url, TOKEN);
  for (let i = 0; i < 50 && sample(after.text, 'parley_event_queue_consumers') !== 1; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await scrape(server.url, TOKEN);
  }
  t.equal(sample(after.text, 'parley_http_requests_total', 'route="/api/v1/messages",method="POST",status="200"'), 3, 'sends by route template');
  t.equal(sample(after.text, 'parley_http_requests_total', 'route="/api/v1/messages/{message_id}",method="GET",status="400"'), 1, 'the template, not the raw path');
  t.equal(sample(after.text, 'parley_http_requests_total', 'route="/api/v1/fetch_api_key",method="POST",status="401"'), 1);
  t.equal(sample(after.text, 'parley_http_request_duration_seconds_count', 'route="/api/v1/messages",method="POST"'), 3, 'latency histogram');
  t.notMatch(after.text, /route="[^"]*999999/, 'no raw ids in labels');
  t.equal(sample(after.text, 'parley_realm_messages', 'realm=""'), messagesBefore + 3, 'messages per realm follow');
  t.equal(sample(after.text, 'parley_event_queues'), 1, 'one event queue');
  t.equal(sample(after.text, 'parley_event_queue_consumers'), 1, 'one long-poll waiting');
  t.ok(sample(after.text, 'parley_commit_batch_appends_count')! >= 3, 'group commits counted');
  t.ok(sample(after.text, 'parley_commit_batch_appends_sum')! >= 3, 'appends per group commit summed');
  t.ok(sample(after.text, 'parley_commit_durable_seconds_count')! >= 1, 'durable-commit latency');
  t.ok(sample(after.text, 'parley_snapshot_duration_seconds_count') !== undefined, 'snapshot histogram exported');
  t.match(after.text, /# TYPE parley_rate_limit_hits_total counter/, 'rate-limit counter exported');
  await server.stop('SIGTERM');
  await poll.catch(() => undefined);
});

