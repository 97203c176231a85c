/**
 * The dedicated metrics listener (`--metrics-port`, issue 13 §2) and the snapshot timing it exports.
 */
import t from 'tap';
import { api, fetchApiKey, startServer, DEFAULT_DEMO_PASSWORD } from '../support/server-process.js';
import { sample, scrape } from '../support/metrics-scrape.js';

/** Start-up can take tens of seconds on a loaded shared machine; a real hang still fails. */
const START_TIMEOUT_MS = 60_000;


t.test('--metrics-port serves /metrics without a token on its own listener; the main port does not', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, args: ['--metrics-port', '0'] });
  const line = /^parley metrics on (http:\/\/127\.0\.0\.1:(\d+))\/metrics$/m.exec(server.stdout());
  t.ok(line, 'prints the metrics URL');
  const metricsUrl = line![1]!;
  t.not(Number(line![2]), server.port);
  const res = await scrape(metricsUrl);
  t.equal(res.status, 200);
  t.match(res.text, /# TYPE parley_http_requests_total counter/);
  t.equal((await fetch(`${metricsUrl}/health`)).status, 200, '/health there too');
  t.equal((await fetch(`${metricsUrl}/api/v1/server_settings`)).status, 404, 'nothing else');
  t.equal((await scrape(server.url)).status, 404, 'not on the main port');
});

t.test('snapshots are timed', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, args: ['--metrics-port', '0', '--snapshot-every-records', '1'] });
  const metricsUrl = /^parley metrics on (\S+)\/metrics$/m.exec(server.stdout())![1]!;
  const { api_key: key } = await fetchApiKey(server.url, 'iago@zulip.com', DEFAULT_DEMO_PASSWORD);
  await api(server.url, 'iago@zulip.com', key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'snap', content: 'x' });
  let count = 0;
  for (let i = 0; i < 50 && count === 0; i++) {
    count = sample((await scrape(metricsUrl)).text, 'parley_snapshot_duration_seconds_count') ?? 0;
    if (count === 0) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(count >= 1, `${count} snapshots timed`);
});
