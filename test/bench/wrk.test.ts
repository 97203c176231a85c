/**
 * `--driver wrk` (bench/wrk.ts): the real wrk binary, driven by the generated Lua script, against
 * (1) a loopback HTTP server that records every request (the mix's weights, headers, form bodies,
 * non-ASCII values, unique `{seq}` counters, replies ≥ 400 counted as bad) and (2) a real parley
 * process through `npm run bench -- --target … --driver wrk` (ceiling and send for ~1 s each: the
 * parsed result, the driver's targets, and every send stored with its own content). Skipped when
 * wrk is not installed; the harness's early exit without wrk is tested with a PATH that lacks it.
 */
import t, { type Test } from 'tap';
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basicAuth, DEFAULT_DEMO_PASSWORD, fetchApiKey, REPO_ROOT, startServer } from '../support/server-process.js';
import { luaString, runWrk, wrkVersion } from '../../bench/wrk.js';
import { judge } from '../../bench/scenario-run.js';
import { runCompare } from '../../bench/compare.js';
import { loadScenarios, parseScenario } from '../../bench/scenario-file.js';
import { parseOptions } from '../../bench/options.js';
import type { BenchResults, ScenarioReport } from '../../bench/results.js';
import type { LoadResult } from '../../bench/load.js';
import { runBench } from '../support/bench-process.js';

const noWrk = wrkVersion() === null ? 'wrk is not installed' : false;

const ordered = (t: Test, r: LoadResult, what: string) => {
  const l = r.latencyMs;
  t.ok(l.p50 > 0 && l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.p999 && l.p999 <= l.max, `${what}: 0 < p50 ≤ p90 ≤ p99 ≤ p99.9 ≤ max (${JSON.stringify(l)})`);
};

t.test('the generated script: mix by weight, headers, form bodies, unique {seq}, ≥ 400 counted', { skip: noWrk, timeout: 60_000 }, async (t) => {
  const seen: Array<{ method: string; url: string; auth: string | undefined; type: string | undefined; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, type: req.headers['content-type'], body });
      res.writeHead(req.url!.startsWith('/missing') ? 404 : 200).end('{"result":"success","msg":""}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  const result = await runWrk({
    url: `http://127.0.0.1:${port}`,
    templates: [
      { method: 'POST', path: '/api/v1/messages', form: { to: '{channel}', content: 'm {seq}' }, weight: 3 },
      { method: 'GET', path: '/missing/{seq}' },
    ],
    vars: { channel: 'Vé"r\\ona' },
    source: 'mix',
    auth: 'Basic abc',
    connections: 2,
    duration: 1,
  });
  t.ok(result.responses > 0, `answered (${result.responses})`);
  ordered(t, result, 'loopback');
  const posts = seen.filter((r) => r.method === 'POST');
  const gets = seen.filter((r) => r.method === 'GET');
  t.ok(seen.length >= result.responses, 'the server saw every counted request');
  // The weighted round-robin repeats POST POST GET POST: every prefix is within one request of 3:1,
  // give or take the last request of each connection.
  t.ok(seen.length >= 8 && Math.abs(posts.length - 0.75 * seen.length) <= 3, `weights 3:1 (${posts.length} POST of ${seen.length})`);
  // The server may also have answered a request per connection that wrk stopped waiting for at the end.
  t.ok(result.non2xx <= gets.length && gets.length - result.non2xx <= 2, `every 404 is counted as bad (${result.non2xx} of ${gets.length})`);
  t.ok(result.non2xx > 0 && result.ok2xx === result.responses - result.non2xx, 'the rest as good');
  t.ok(seen.every((r) => r.auth === 'Basic abc'), 'every request carries the Authorization header');
  t.ok(posts.every((r) => r.type === 'application/x-www-form-urlencoded'), 'form bodies are typed');
  const bodies = posts.map((r) => new URLSearchParams(r.body));
  t.ok(bodies.every((b) => b.get('to') === 'Vé"r\\ona'), 'non-ASCII, quotes and backslashes arrive intact');
  const seqs = [...bodies.map((b) => b.get('content')!), ...gets.map((r) => r.url)].map((s) => Number(/(\d+)$/.exec(s)?.[1]));
  t.equal(new Set(seqs).size, seqs.length, '{seq} is unique over the mix');
  t.ok(seqs.every((n) => Number.isInteger(n) && n >= 1), '{seq} counts from 1');

  // The next run continues the counter: contents stay unique across warm-up and measured runs.
  const before = new Set(seqs);
  const count = seen.length;
  await runWrk({ url: `http://127.0.0.1:${port}`, templates: [{ method: 'POST', path: '/x', form: { content: 'n {seq}' } }], vars: {}, source: 'again', connections: 1, duration: 1 });
  const again = seen.slice(count).map((r) => Number(/(\d+)$/.exec(new URLSearchParams(r.body).get('content')!)?.[1]));
  t.ok(again.length > 0 && again.every((n) => !before.has(n)), 'a second run uses new {seq} values');

  // The time limit interrupts wrk (SIGINT): it still reports what it measured.
  const cut = await runWrk({ url: `http://127.0.0.1:${port}/`, templates: [{ method: 'GET', path: '/ok' }], vars: {}, source: 'cut', connections: 1, duration: 20, timeLimitMs: 1500 });
  t.ok(cut.stoppedByTimeLimit && cut.responses > 0, `stopped by the time limit with ${cut.responses} responses`);
  t.ok(cut.elapsedSec < 10, `long before the 20 s duration (${cut.elapsedSec.toFixed(1)} s)`);
});

t.test('luaString escapes quotes, backslashes, control and non-ASCII bytes', async (t) => {
  t.equal(luaString('a"b\\c\nü'), '"a\\034b\\092c\\010\\195\\188"');
});

t.test('--driver wrk against a real parley (--target): ceiling and send', { skip: noWrk, timeout: 300_000 }, async (t) => {
  const server = await startServer({ t, bench: true, args: ['--rate-limits', 'off'] });
  const { api_key: key } = await fetchApiKey(server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  const out = mkdtempSync(join(tmpdir(), 'parley-bench-wrk-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runBench([
    '--target', server.url, '--email', 'hamlet@zulip.com', '--api-key', key, '--channel', 'Verona', '--topic', 'wrk',
    '--driver', 'wrk', '--only', 'send', '--fanout', '0', '--duration', '1', '--warmup', '1', '--connections', '4', '--out', out,
  ]);
  t.equal(run.code, 0, `exit 0 (stderr: ${run.stderr.slice(-800)})`);
  t.match(run.stderr, /driver: wrk .*open-loop scenarios, preload, fan-out and in-process benches keep their own drivers/, 'says which runs wrk drives');
  t.match(run.stdout, /closed loop driven by wrk/);
  const json = readdirSync(out).find((f) => f.endsWith('.json'))!;
  const results = JSON.parse(readFileSync(join(out, json), 'utf8')) as BenchResults;
  t.equal(results.driver?.closedLoop, 'wrk');
  t.match(results.driver?.version, /^wrk /, 'the wrk version is recorded');
  const byName = new Map(results.scenarios.map((s) => [s.name, s]));
  t.same([...byName.keys()].sort(), ['ceiling', 'send']);
  const ceiling = byName.get('ceiling')!;
  const send = byName.get('send')!;
  t.equal(ceiling.path, '/api/v1/bench/ceiling', 'the parley ceiling route, found through --target');
  for (const s of [ceiling, send]) {
    t.equal(s.driver, 'wrk', `${s.name}: driven by wrk`);
    t.ok(s.result.responses > 0 && s.result.reqPerSec > 0, `${s.name}: ${s.result.responses} responses, ${Math.round(s.result.reqPerSec)} req/s`);
    t.equal(s.result.non2xx + s.result.errors + s.result.timeouts, 0, `${s.name}: no bad replies`);
    ordered(t, s.result, s.name);
  }
  t.ok(send.ratioToCeiling > 0 && send.ratioToCeiling < 1, `send's ratio is against the wrk ceiling (${send.ratioToCeiling})`);
  t.match(send.targets.map((x) => x.description), ['≥ 0.25 × ceiling (wrk)', 'p99 < 5 ms'], "the send targets are wrk's");
  t.match(readFileSync(join(out, json.replace(/\.json$/, '.html')), 'utf8'), /closed 4, wrk/, 'the HTML report names the driver');
  t.match(run.stdout, /^send \(empty\)\s+wrk\s+POST \/api\/v1\/messages/m, 'so does the table');

  // --compare of a wrk run with an autocannon one warns that the ceilings differ.
  const other = join(out, 'autocannon.json');
  writeFileSync(other, JSON.stringify({ ...results, driver: { closedLoop: 'autocannon' } }));
  const lines: string[] = [];
  runCompare(join(out, json), other, (l) => lines.push(l));
  t.match(lines.join('\n'), /NOTE: A was driven by wrk, B by autocannon/, 'compare: different drivers are pointed out');
  lines.length = 0;
  runCompare(join(out, json), join(out, json), (l) => lines.push(l));
  t.notMatch(lines.join('\n'), /NOTE/, 'compare: same driver, no note');

  // Every send (warm-up and measured run) stored, each with its own content.
  const auth = basicAuth('hamlet@zulip.com', key);
  const query = new URLSearchParams({ anchor: 'newest', num_before: '5000', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'wrk' }]) });
  const fetched = (await (await fetch(`${server.url}/api/v1/messages?${query}`, { headers: { authorization: auth } })).json()) as { messages: Array<{ content: string }> };
  const contents = fetched.messages.map((m) => m.content).filter((c) => /bench message \d+/.test(c));
  t.ok(contents.length >= Math.min(send.result.ok2xx, 5000), `the sends are stored (${contents.length} ≥ ${send.result.ok2xx} measured)`);
  t.equal(new Set(contents).size, contents.length, 'with unique contents');
});

t.test('--driver wrk without wrk on PATH stops before anything runs', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'parley-no-wrk-'));
  const out = join(empty, 'results');
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  const run = await runBench(['--driver', 'wrk', '--only', 'send', '--out', out], { env: { ...process.env, PATH: empty }, timeoutMs: 60_000 });
  t.equal(run.code, 1, 'exit 1');
  t.match(run.stderr, /wrk is not installed.*apt-get install wrk/, 'with the install hint');
  t.notMatch(run.stderr, /server pid/, 'no server was started');
  t.throws(() => readdirSync(out), 'no results were written');
});

t.test('per-driver targets and the --driver option', async (t) => {
  const send = loadScenarios(join(REPO_ROOT, 'bench', 'scenarios')).find((s) => s.name === 'send')!;
  const report = (driver: ScenarioReport['driver'], reqPerSec: number) =>
    ({ name: 'send', phase: 'empty', driver, targets: [], result: { reqPerSec, latencyMs: { p99: 4 } } }) as unknown as ScenarioReport;
  const wrk = report('wrk', 300);
  judge(wrk, send, 1000);
  t.same(wrk.targets, [{ description: '≥ 0.25 × ceiling (wrk)', met: true }, { description: 'p99 < 5 ms', met: true }], '0.3 × meets the wrk target');
  const ac = report('autocannon', 300);
  judge(ac, send, 1000);
  t.same(ac.targets[0], { description: '≥ 0.35 × ceiling', met: false }, 'but not the autocannon one');
  t.throws(
    () => parseScenario(JSON.stringify({ name: 'x', description: 'd', mode: 'closed', targets: { byDriver: { ab: { p99Ms: 1 } } }, requests: [{ method: 'GET', path: '/x' }] }), 'bad.json'),
    /bad\.json: invalid scenario: \/targets\/byDriver/,
    'unknown drivers in byDriver are refused',
  );
  t.equal(parseOptions([]).driver, 'autocannon', 'autocannon stays the default');
  t.equal(parseOptions(['--driver', 'wrk']).driver, 'wrk');
  t.throws(() => parseOptions(['--driver', 'ab']), /--driver must be one of autocannon, wrk, got 'ab'/);
});
