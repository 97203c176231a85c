/**
 * `npm run bench -- --target URL --email E --api-key K` against a real parley process started
 * without `--bench` (so, like a real Zulip, it has no ceiling route): the harness discovers the
 * channel, runs the selected scenarios (closed and open loop, fan-out) through the public API and
 * writes a results JSON and an HTML report; the comparison then tabulates two results files.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DEMO_PASSWORD, fetchApiKey, startServer } from '../support/server-process.js';
import type { BenchResults } from '../../bench/results.js';
import { parseOptions } from '../../bench/options.js';
import { runCompare } from '../../bench/compare.js';
import { runBench } from '../support/bench-process.js';

// Two child processes with tsx start-up and ~10 s of load on a shared machine.
t.test('--target runs the scenarios against a running server, then --compare', { timeout: 600_000 }, async (t) => {
  const server = await startServer({ t, args: ['--rate-limits', 'off'] });
  const { api_key: key } = await fetchApiKey(server.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  const out = mkdtempSync(join(tmpdir(), 'parley-bench-results-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));

  const run = await runBench([
    '--target', server.url, '--email', 'hamlet@zulip.com', '--api-key', key,
    '--only', 'send,fetch,list-channel,search,mix-open,fanout',
    '--duration', '1', '--warmup', '0', '--connections', '4', '--fanout', '4', '--fanout-messages', '3', '--out', out,
  ]);
  t.equal(run.code, 0, `exit 0 (stderr: ${run.stderr.slice(-800)})`);
  const subs = (await (await fetch(`${server.url}/api/v1/users/me/subscriptions`, { headers: { authorization: `Basic ${Buffer.from(`hamlet@zulip.com:${key}`).toString('base64')}` } })).json()) as { subscriptions: Array<{ name: string }> };
  t.match(run.stderr, `channel ${subs.subscriptions[0]!.name} > bench (no ceiling route: fallback request)`, 'the first subscribed channel is used; the ceiling falls back');
  const files = readdirSync(out);
  const json = files.find((f) => f.endsWith('.json'))!;
  t.ok(json, 'a results JSON is written');
  t.ok(files.includes(json.replace(/\.json$/, '.html')), 'and an HTML report next to it');
  const results = JSON.parse(readFileSync(join(out, json), 'utf8')) as BenchResults;
  t.same(results.target, { url: server.url, external: true });
  const byName = new Map(results.scenarios.map((s) => [s.name, s]));
  t.same([...byName.keys()].sort(), ['ceiling', 'fanout', 'fetch', 'list-channel', 'mix-open', 'search', 'send'], 'the selected scenarios ran (plus the ceiling)');
  t.equal(byName.get('ceiling')!.path, '/api/v1/server_settings', 'the ceiling is the public fallback request');
  for (const s of results.scenarios) {
    t.ok(s.result.ok2xx > 0, `${s.name}: answered (${s.result.ok2xx} 2xx)`);
    t.equal(s.result.non2xx + s.result.errors + s.result.timeouts, 0, `${s.name}: no bad replies`);
    t.ok(Number.isFinite(s.result.latencyMs.p99) && s.result.latencyMs.p99 > 0, `${s.name}: p99 measured`);
    t.ok((s.result.timeline?.length ?? 0) > 0, `${s.name}: latency over time recorded`);
    t.equal(s.serverCpu, undefined, `${s.name}: no server CPU figures for a server the harness did not start`);
  }
  t.equal(byName.get('mix-open')!.result.mode?.kind, 'open');
  t.ok(Number.isFinite(byName.get('send')!.ratioToCeiling), 'ratios use the fallback ceiling');
  t.equal(byName.get('fanout')!.result.responses, 3, 'fan-out: three measured messages, delivery latency as the result');
  const html = readFileSync(join(out, json.replace(/\.json$/, '.html')), 'utf8');
  t.match(html, /<svg[^>]*aria-label="Throughput"/, 'the report has a throughput plot');
  t.match(html, /aria-label="Latency percentiles"/, 'latency percentiles');
  t.match(html, /aria-label="send \(empty\)"/, 'and latency over time per scenario');
  t.notMatch(html, /<script|\s(?:src|href)=/i, 'no scripts, no external resources');

  // --compare: B is A with the send throughput doubled and its p99 halved.
  const b = structuredClone(results);
  const send = b.scenarios.find((s) => s.name === 'send')!;
  send.result.reqPerSec *= 2;
  send.result.latencyMs.p99 /= 2;
  const bFile = join(out, 'b.json');
  writeFileSync(bFile, JSON.stringify(b));
  const lines: string[] = [];
  const htmlFile = runCompare(join(out, json), bFile, (line) => lines.push(...line.split('\n')));
  const sendLine = lines.find((l) => l.startsWith('send (empty)'))!;
  t.match(sendLine, /\+100\.0%\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+-50\.0%$/, `send: +100% req/s, -50% p99 (${sendLine})`);
  t.match(lines.find((l) => l.startsWith('fetch (empty)')) ?? '', /\+0\.0%/, 'unchanged scenarios show +0.0%');
  t.equal(htmlFile, join(out, 'b.compare.html'));
  t.match(readFileSync(htmlFile, 'utf8'), /aria-label="Throughput, A vs B"/, 'with plots');
  t.ok(readdirSync(out).includes('b.compare.html'), 'the comparison is written as HTML');
});

t.test('command-line errors', async (t) => {
  t.throws(() => parseOptions(['--compare', 'a.json']), /--compare needs two files/);
  t.throws(() => parseOptions(['--target', 'http://127.0.0.1:1']), /--target needs --email and --api-key/);
  t.throws(() => parseOptions(['--target', 'ftp://x', '--email', 'e', '--api-key', 'k']), /must be an http\(s\) URL/);
  t.throws(() => parseOptions(['--duration', '0']), /--duration must be an integer ≥ 1/);
  t.throws(() => parseOptions(['stray']), /unexpected argument 'stray'/);
  t.same(parseOptions(['--only', 'send, list']).only, new Set(['send', 'list']));
});
