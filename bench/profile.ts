/**
 * Profiles one server-side scenario (bench/PROFILE.md): starts `node --cpu-prof dist/cli.js serve
 * --bench` on a fresh data directory, drives `send`, `fetch` or `list` with autocannon for a bounded
 * time, scrapes the group-commit histograms from `/metrics`, stops the server (SIGTERM writes the
 * .cpuprofile) and prints the top self-time functions and the idle share of the main thread.
 *
 *   node --import=tsx bench/profile.ts [--scenario send|fetch|list] [--seconds 8] [--connections 50] [--out DIR]
 *
 * `--heap-prof all|promoted` samples allocations of the load window instead (bench/heap-sampler.mjs,
 * every 4 KiB allocated, freed objects included) and prints bytes per request by allocation site and
 * garbage collections per 10,000 requests and the old generation's growth; `promoted` keeps only
 * objects that outlived a scavenge (see heap-sampler.mjs for the caveat).
 */
import { existsSync, readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, basicAuth, fetchApiKey, startServer } from '../test/support/server-process.js';
import { runLoad, type LoadRequest } from './load.js';
import { summarizeHeap, summarizeHeapByFile, type SamplingHeapProfile } from './heap-summary.js';
import { cpuBetween, sampleCpu } from './server-cpu.js';

const PASSWORD = 'bench-password';
const EMAIL = 'hamlet@zulip.com';
const METRICS_TOKEN = 'profile-token';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (ms and share of all samples), heaviest first. */
function summarize(profile: CpuProfile, top: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!)!;
    const dt = profile.timeDeltas[i] ?? 0;
    const f = node.callFrame;
    const where = f.url === '' ? '' : ` ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
    const key = `${f.functionName || '(anonymous)'}${where}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
    total += dt;
  }
  const rows = [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [`total ${(total / 1000).toFixed(0)} ms sampled`, ...rows.map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`)];
}

function histogram(metrics: string, name: string): string {
  const sum = Number(/^NAME_sum (\S+)$/m.exec(metrics.replace(/NAME/g, name))?.[1] ?? NaN);
  const re = new RegExp(`^${name}_sum (\\S+)$`, 'm');
  const count = Number(new RegExp(`^${name}_count (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const s = Number(re.exec(metrics)?.[1] ?? sum);
  return `${name}: count ${count}, mean ${(s / count).toPrecision(4)}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { scenario: { type: 'string', default: 'send' }, seconds: { type: 'string', default: '8' }, connections: { type: 'string', default: '50' }, out: { type: 'string' }, cli: { type: 'string' }, 'no-prof': { type: 'boolean' }, 'heap-prof': { type: 'string' } },
  });
  const seconds = Math.min(60, Number(values.seconds));
  const out = values.out ?? mkdtempSync(join(tmpdir(), 'parley-prof-'));
  const heapMode = values['heap-prof'];
  if (heapMode !== undefined && heapMode !== 'all' && heapMode !== 'promoted') throw new Error('--heap-prof takes all or promoted');
  const server = await startServer({
    demoPassword: PASSWORD,
    bench: true,
    args: ['--rate-limits', 'off', '--metrics-token', METRICS_TOKEN],
    nodeArgs: heapMode !== undefined ? ['--expose-gc', `--import=${new URL('./heap-sampler.mjs', import.meta.url).pathname}`] : values['no-prof'] ? [] : ['--cpu-prof', `--cpu-prof-dir=${out}`],
    ...(heapMode === undefined ? {} : { env: { HEAP_SAMPLER_OUT: out, HEAP_SAMPLER_MODE: heapMode } }),
    ...(values.cli === undefined ? {} : { cliPath: values.cli }),
    timeoutMs: 30_000,
  });
  try {
    const { api_key: key } = await fetchApiKey(server.url, EMAIL, PASSWORD);
    const auth = basicAuth(EMAIL, key);
    const first = await api<{ id: number }>(server.url, EMAIL, key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'bench', content: 'fetched' });
    let n = 0;
    const prefix = 'type=stream&to=Verona&topic=bench&content=bench+message+';
    const requests: Record<string, LoadRequest> = {
      send: { method: 'POST', path: '/api/v1/messages', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: `${prefix}0`, setupRequest: (r) => ({ ...r, body: prefix + ++n }) },
      fetch: { method: 'GET', path: `/api/v1/messages/${first.body.id}`, headers: { authorization: auth } },
      list: { method: 'GET', path: `/api/v1/messages?anchor=newest&num_before=50&num_after=0&narrow=${encodeURIComponent('[{"operator":"channel","operand":"Verona"}]')}`, headers: { authorization: auth } },
    };
    const request = requests[values.scenario!];
    if (request === undefined) throw new Error(`unknown scenario ${values.scenario}`);
    if (values.scenario === 'list') await runLoad({ url: server.url, request: requests.send!, connections: 50, duration: 2, timeLimitMs: 10_000 });
    if (heapMode !== undefined) process.kill(server.pid, 'SIGUSR2'); // start sampling (heap-sampler.mjs)
    const cpuBefore = sampleCpu(server.pid);
    const result = await runLoad({ url: server.url, request, connections: Number(values.connections), duration: seconds, timeLimitMs: (seconds + 10) * 1000 });
    const cpu = cpuBetween(cpuBefore, sampleCpu(server.pid), result.responses);
    if (heapMode !== undefined) {
      process.kill(server.pid, 'SIGUSR2'); // stop and write
      const deadline = Date.now() + 30_000;
      while (!existsSync(join(out, 'gc.json')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const gc = JSON.parse(readFileSync(join(out, 'gc.json'), 'utf8')) as { minor: number; major: number; minorMs: number; majorMs: number; promotedBytes: number; liveGrowthBytes: number };
      const per10k = (n: number) => ((10_000 * n) / result.responses).toFixed(1);
      console.log(`heap profile (${heapMode}): ${join(out, 'heap.heapprofile')}, ${result.responses} responses`);
      console.log(`GC per 10,000 requests: ${per10k(gc.minor)} scavenges (${(gc.minorMs / Math.max(1, gc.minor)).toFixed(2)} ms each), ${per10k(gc.major)} mark-compacts`);
      const perRequest = (bytes: number) => (bytes / result.responses).toFixed(0);
      // Promoted minus what stayed alive: bytes that reached the old generation only to die there.
      console.log(`old generation per request: ${perRequest(gc.promotedBytes)} B promoted, ${perRequest(gc.liveGrowthBytes)} B still alive after a full GC`);
      const profile = JSON.parse(readFileSync(join(out, 'heap.heapprofile'), 'utf8')) as SamplingHeapProfile;
      for (const line of summarizeHeap(profile, result.responses, 40)) console.log(line);
      console.log('by file:');
      for (const line of summarizeHeapByFile(profile, result.responses, 20)) console.log(line);
    }
    // CPU per request is the figure that survives a shared, overloaded machine; req/s does not.
    console.log(`${values.scenario}: ${result.reqPerSec.toFixed(0)} req/s, p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms, non2xx ${result.non2xx}, server CPU ${cpu?.processUsPerRequest.toFixed(1) ?? '-'} µs/request (main thread ${cpu?.mainUsPerRequest.toFixed(1) ?? '-'} µs, busy ${cpu === undefined ? '-' : (100 * cpu.mainThreadBusy).toFixed(0)} %)`);
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    console.log(histogram(metrics, 'parley_commit_batch_appends'));
    console.log(histogram(metrics, 'parley_commit_durable_seconds'));
    console.log(histogram(metrics, 'parley_snapshot_duration_seconds'));
    // Cumulative buckets of the commit latency: how often a durable commit is slow (the p99 tail).
    console.log('parley_commit_durable_seconds buckets: ' + [...metrics.matchAll(/^parley_commit_durable_seconds_bucket\{le="([^"]+)"\} (\S+)$/gm)].map((m) => `≤${m[1]}: ${m[2]}`).join(', '));
  } finally {
    await server.stop('SIGTERM', 20_000);
  }
  if (values['no-prof'] || heapMode !== undefined) return;
  const file = readdirSync(out).filter((f) => f.endsWith('.cpuprofile'))[0];
  if (file === undefined) throw new Error(`no .cpuprofile in ${out}`);
  console.log(`profile: ${join(out, file)}`);
  for (const line of summarize(JSON.parse(readFileSync(join(out, file), 'utf8')) as CpuProfile, 30)) console.log(line);
}

await main();
