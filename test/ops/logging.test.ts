/**
 * Structured logs (issue 13 §2) from the built server: JSON lines on stderr (stdout keeps the
 * plain start-up banner), one per request with the route template, failed logins, start/stop,
 * snapshots; `--log-level` filters; `--log-format pretty` is human-readable; bad values are usage
 * errors.
 */
import t from 'tap';
import { api, DEFAULT_DEMO_PASSWORD, fetchApiKey, runCli, startServer } from '../support/server-process.js';

/** Start-up can take tens of seconds on a loaded shared machine; a real hang still fails. */
const START_TIMEOUT_MS = 60_000;

/** The JSON log lines of a stderr capture (every non-empty line must parse). */
function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

t.test('JSON logs: one line per request, failed logins, start and stop', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, env: { PARLEY_LOG_LEVEL: 'info' }, args: ['--log-format', 'json', '--snapshot-every-records', '1'] });
  const { api_key: key, user_id: userId } = await fetchApiKey(server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  const sent = await api<{ id: number }>(server.url, 'hamlet@zulip.com', key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'logs', content: 'hi' });
  await api(server.url, 'hamlet@zulip.com', key, 'GET', `messages/${sent.body.id}`);
  const failed = await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'othello@zulip.com', password: 'wrong password' });
  t.equal(failed.status, 401);
  await fetch(`${server.url}/nowhere`);
  t.same(await server.stop('SIGTERM'), { code: 0, signal: null });

  t.match(server.stdout(), /^parley listening on http:\/\/127\.0\.0\.1:\d+$/m, 'the banner stays plain text on stdout');
  t.notMatch(server.stdout(), /"level"/, 'no log lines on stdout');
  const lines = jsonLines(server.stderr());
  for (const line of lines) {
    t.type(line.time, 'number');
    t.type(line.level, 'number');
  }
  const requests = lines.filter((l) => l.msg === 'request');
  const send = requests.find((l) => l.route === '/api/v1/messages' && l.method === 'POST');
  t.match(send, { method: 'POST', route: '/api/v1/messages', status: 200, realm: '', user_id: userId, ip: '127.0.0.1', level: 30 });
  t.type(send?.ms, 'number');
  const one = requests.find((l) => l.route === '/api/v1/messages/{message_id}');
  t.match(one, { method: 'GET', status: 200, user_id: userId }, 'the route template, not the raw path');
  t.notOk(requests.some((l) => String(l.route).includes(String(sent.body.id))), 'ids never in the route');
  t.match(
    requests.find((l) => l.route === '/api/v1/fetch_api_key' && l.status === 401),
    { user_id: null, realm: '' },
  );
  t.match(requests.find((l) => l.status === 404), { route: 'unmatched', method: 'GET' });
  const login = lines.find((l) => l.event === 'login_failed');
  t.match(login, { level: 40, msg: 'failed login', username: 'othello@zulip.com', realm: '', ip: '127.0.0.1' });
  t.notMatch(JSON.stringify(login), /wrong password/, 'never the password');
  t.match(lines.find((l) => l.event === 'start'), { msg: 'parley started', realms: 1 });
  t.match(lines.find((l) => l.event === 'stopping'), { signal: 'SIGTERM' });
  t.ok(lines.some((l) => l.event === 'stop'), 'stop logged');
  t.match(lines.find((l) => l.event === 'snapshot'), { msg: 'snapshot written', realm_id: 1 });
});

t.test('--log-level warn keeps request lines out; failed logins stay', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, args: ['--log-level', 'warn', '--log-format', 'json'] });
  await api(server.url, null, null, 'GET', 'server_settings');
  await api(server.url, null, null, 'POST', 'fetch_api_key', { username: 'iago@zulip.com', password: 'nope' });
  await server.stop('SIGTERM');
  const lines = jsonLines(server.stderr());
  t.equal(lines.filter((l) => l.msg === 'request').length, 0);
  t.equal(lines.filter((l) => l.event === 'login_failed').length, 1);
});

t.test('--log-format pretty writes readable lines', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, env: { PARLEY_LOG_LEVEL: 'info' }, args: ['--log-format', 'pretty'] });
  await api(server.url, null, null, 'GET', 'server_settings');
  await server.stop('SIGTERM');
  const stderr = server.stderr();
  t.match(stderr, /INFO.*request/);
  t.match(stderr, /route: "\/api\/v1\/server_settings"/);
  t.throws(() => JSON.parse(stderr.split('\n')[0]!), 'not JSON');
});

t.test('bad --log-level / --log-format are usage errors', async (t) => {
  const [level, format] = await Promise.all([runCli(['serve', '--log-level', 'loud']), runCli(['serve'], { PARLEY_LOG_FORMAT: 'xml' })]);
  t.equal(level.code, 2);
  t.match(level.stderr, /--log-level must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'/);
  t.equal(format.code, 2);
  t.match(format.stderr, /--log-format must be json or pretty, got 'xml'/);
});
