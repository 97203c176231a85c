/**
 * The dedicated metrics listener (`--metrics-port`, issue 13 §2) and the snapshot timing it exports.
 */
import t from 'tap';
import { api, fetchApiKey, startServer, DEFAULT_DEMO_PASSWORD } from '../support/server-process.js';

/** Start-up can take tens of seconds on a loaded shared machine; a real hang still fails. */
const START_TIMEOUT_MS = 60_000;

/** One sample value of the exposition (first line matching name + label fragment), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith('{') || rest.startsWith(' '))) continue;
    if (labels !== '' && !rest.includes(labels)) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

async function scrape(url: string, token?: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${url}/metrics`, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

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
