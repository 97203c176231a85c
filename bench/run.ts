/**
 * `npm run bench`: load-tests a Zulip-compatible server with the scenario files of
 * bench/scenarios/ (see bench/README.md).
 *
 * Without `--target` it starts `dist/cli.js serve --bench --port 0` on a temporary data directory
 * with the demo organization and logs hamlet in; with `--target URL --email E --api-key K` it
 * uses that server and account instead (public Zulip API only; the parley-only ceiling route is
 * replaced by the scenario's fallback, and in-process benches of parley's own code are skipped).
 * Each scenario runs closed loop (autocannon) or open loop (constant arrival rate), in the
 * `empty` phase and, with `--preload N`, again in the `preloaded` phase. Prints a table and
 * writes bench/results/<timestamp>.json and .html. Exit code 1 if a scenario saw connection
 * errors, timeouts or non-2xx replies. `--compare A.json B.json` compares two results files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { api, fetchApiKey, processMemory, REPO_ROOT, startServer, type ProcessMemory, type ServerProcess } from '../test/support/server-process.js';
import { stopCurrentLoad } from './load.js';
import { stopCurrentWrk, wrkVersion } from './wrk.js';
import { stopOpenLoop } from './open-loop.js';
import { formatTable, type Row } from './report.js';
import { runFanout, type FanoutReport } from './fanout.js';
import { fanoutReceivers, type ApiCall } from './fanout-accounts.js';
import { WideChannels } from './wide-channel.js';
import { runServerFanout, type ServerFanoutReport } from './fanout-server.js';
import { formatRenderBench, runRenderBench, type RenderBenchReport } from './render.js';
import { formatRateLimitBench, runRateLimitBench, type RateLimitBenchReport } from './rate-limit.js';
import { formatAdversarialBench, runAdversarialBench, type AdversarialRow } from './render-adversarial.js';
import { formatUploadBench, runUploadBench, type UploadBenchRow } from './upload.js';
import { formatWebappBench, runWebappBench, WEBAPP_BUDGETS, type WebappBenchReport } from './webapp.js';
import { formatSearchBench, runSearchBench, type SearchBenchReport } from './search.js';
import { IN_PROCESS, parseOptions, USAGE, type Options } from './options.js';
import { loadScenarios, type Scenario } from './scenario-file.js';
import { judge, measureScenario } from './scenario-run.js';
import { fanoutScenario, preload, type PreloadReport } from './extra-scenarios.js';
import { inspectTarget, type Target } from './target.js';
import { resultsHtml } from './html-report.js';
import { runCompare } from './compare.js';

const MIB = 1024 * 1024;
/** Issue 17: the server's RSS right after start-up (fresh demo organization, hamlet logged in), bytes (80 MB, not MiB). */
const IDLE_RSS_TARGET_BYTES = 80e6;
import type { BenchResults, ScenarioReport } from './results.js';

/** A message reaches every one of 1,000 long-polling queues within this (p99). */
const FANOUT_P99_MS = 50;
/** Demo users subscribed to Verona whose queues receive the fan-out messages. */
const FANOUT_RECEIVERS = ['hamlet', 'othello', 'cordelia', 'prospero', 'aaron', 'desdemona', 'shiva', 'polonius'].map((n) => `${n}@zulip.com`);
const PASSWORD = 'bench-password';
const EMAIL = 'hamlet@zulip.com';

/** Whether `--only` selects a scenario (by name or group); everything without `--only`. */
function selected(opts: Options, name: string, group?: string): boolean {
  return opts.only === null || opts.only.has(name) || (group !== undefined && opts.only.has(group));
}

function checkOnly(opts: Options, scenarios: readonly Scenario[]): void {
  if (opts.only === null) return;
  const known = new Set<string>([...IN_PROCESS, ...scenarios.map((s) => s.name), ...scenarios.flatMap((s) => (s.group ? [s.group] : []))]);
  for (const name of opts.only) if (!known.has(name)) throw new Error(`unknown scenario '${name}' (known: ${[...known].join(', ')})`);
}

function rowsOf(reports: readonly ScenarioReport[]): Row[] {
  return reports.map((r) => ({
    scenario: `${r.name} (${r.phase})${r.result.mode?.kind === 'open' ? ' open' : ''}`,
    driver: r.driver ?? '-',
    request: r.mix && r.mix.length > 1 ? `mix of ${r.mix.length}: ${r.method} ${r.path}…` : `${r.method} ${r.path}`,
    reqPerSec: r.result.reqPerSec,
    ratio: r.ratioToCeiling,
    p50: r.result.latencyMs.p50,
    p99: r.result.latencyMs.p99,
    max: r.result.latencyMs.max,
    ok2xx: r.result.ok2xx,
    bad: r.result.non2xx + r.result.errors + r.result.timeouts,
    rss: r.memory?.rssMiB,
    anon: r.memory?.anonMiB,
    mainBusy: r.serverCpu?.mainThreadBusy,
    mainUs: r.serverCpu?.mainUsPerRequest,
    targets: r.targets.map((x) => `${x.met ? 'OK  ' : 'MISS'} ${x.description}`).join('; '),
  }));
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  if (opts.compare !== null) {
    runCompare(resolve(opts.compare[0]), resolve(opts.compare[1]));
    return 0;
  }
  const scenarios = loadScenarios(opts.scenarios ?? join(REPO_ROOT, 'bench', 'scenarios'));
  checkOnly(opts, scenarios);
  // Checked before anything starts: the closed-loop scenarios, the ceiling first, need it.
  const wrk = opts.driver === 'wrk' ? wrkVersion() : null;
  if (opts.driver === 'wrk' && wrk === null) {
    console.error('--driver wrk: wrk is not installed or not on PATH (apt-get install wrk); nothing was run');
    return 1;
  }
  const external = opts.target !== null;
  const cleanups: Array<() => unknown> = [];
  let server: ServerProcess | undefined;
  let interrupted = false;
  // First Ctrl-C: stop the running scenario, skip the rest, report, stop the server normally
  // (killed anyway after 10 s). A second one kills the server at once and exits.
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) {
      server?.child.kill('SIGKILL');
      process.exit(130);
    }
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the load${server ? ', then the server' : ''}\n`);
    stopCurrentLoad();
    stopCurrentWrk();
    stopOpenLoop();
    setTimeout(() => server?.child.kill('SIGKILL'), 10_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const loadAverage = loadavg();
  try {
    let target: Target;
    if (external) {
      target = await inspectTarget({ url: opts.target!, email: opts.email!, apiKey: opts.apiKey!, ...(opts.channel && { channel: opts.channel }), ...(opts.topic && { topic: opts.topic }) });
      process.stderr.write(`target ${target.url} as ${target.email}: channel ${target.vars.channel} > ${target.vars.topic}${target.hasCeilingRoute ? '' : ' (no ceiling route: fallback request)'}\n`);
    } else {
      server = await startServer({
        t: { teardown: (fn) => cleanups.push(fn) },
        demoPassword: PASSWORD,
        bench: true,
        // One user fires thousands of requests per second: Zulip's 200/min would refuse them.
        args: ['--rate-limits', 'off'],
        timeoutMs: 30_000,
      });
      process.stderr.write(`server pid ${server.pid} at ${server.url} (data dir ${server.dataDir})\n`);
      const { api_key: key } = await fetchApiKey(server.url, EMAIL, PASSWORD);
      target = await inspectTarget({ url: server.url, email: EMAIL, apiKey: key, channel: opts.channel ?? 'Verona', topic: opts.topic ?? 'bench' });
      // The demo organization's sparse topic: one old message (Denmark > castle).
      target.vars.sparseChannel = 'Denmark';
      target.vars.sparseTopic = 'castle';
    }
    const pid = server?.pid;
    const defaults = { duration: opts.duration, connections: opts.connections, warmup: opts.warmup, driver: opts.driver, pid };
    const memoryStart: ProcessMemory | undefined = pid === undefined ? undefined : processMemory(pid);
    const reports: ScenarioReport[] = [];
    const byName = new Map(scenarios.map((s) => [s.name, s]));
    const call: ApiCall | undefined =
      server === undefined ? undefined : async (account, method, path, params) => (await api(server!.url, account?.email ?? null, account?.key ?? null, method, path, params)).body;
    const wide = call === undefined ? undefined : new WideChannels(call, 'desdemona@zulip.com', PASSWORD, EMAIL);
    const runPhase = async (phase: ScenarioReport['phase']) => {
      for (const s of scenarios) {
        if (interrupted) break;
        if (!(s.phases ?? ['empty', 'preloaded']).includes(phase)) continue;
        if (!s.ceiling && !selected(opts, s.name, s.group)) continue;
        let vars = target.vars;
        if (s.channelSubscribers !== undefined) {
          if (wide === undefined) {
            process.stderr.write(`  ${s.name}: skipped (it creates ${s.channelSubscribers} accounts: only on a parley the bench starts)\n`);
            continue;
          }
          process.stderr.write(`  ${s.name}: preparing a channel with ${s.channelSubscribers} subscribers… `);
          vars = { ...target.vars, channel: await wide.channel(s.channelSubscribers) };
          process.stderr.write('done\n');
        }
        const report = await measureScenario(target, s, phase, defaults, vars);
        if (report === null) process.stderr.write(`  ${s.name}: skipped (parley --bench only, no fallback)\n`);
        else reports.push(report);
      }
    };
    process.stderr.write(`scenarios: ${opts.duration} s each unless set, ${opts.connections} connections unless set\n`);
    if (wrk !== null) {
      process.stderr.write(`driver: ${wrk}, one thread, for the closed-loop scenarios (the ceiling too); open-loop scenarios, preload, fan-out and in-process benches keep their own drivers\n`);
    }
    await runPhase('empty');

    let fanout: FanoutReport | undefined;
    let serverFanout: ServerFanoutReport | undefined;
    if (!interrupted && selected(opts, 'fanout') && opts.fanout > 0) {
      process.stderr.write(`  fanout: ${opts.fanout} long-polling queues, ${opts.fanoutMessages} messages… `);
      const self = { email: target.email, key: target.apiKey };
      const receivers = [];
      if (external) receivers.push(self);
      else receivers.push(...(await fanoutReceivers(call!, FANOUT_RECEIVERS, PASSWORD, 'desdemona@zulip.com', opts.fanout, String(target.vars.channel))));
      const sender = external ? self : { email: 'iago@zulip.com', key: (await fetchApiKey(server!.url, 'iago@zulip.com', PASSWORD)).api_key };
      fanout = await runFanout(target.url, receivers, sender, {
        queues: opts.fanout, messages: opts.fanoutMessages, warmupMessages: 5, workers: 2, timeoutMs: 5000, timeLimitSec: 120, channel: String(target.vars.channel),
      });
      process.stderr.write(`p99 ${fanout.latencyMs.p99.toFixed(1)} ms\n`);
      reports.push(fanoutScenario(fanout, pid, FANOUT_P99_MS));
      if (!external) {
        process.stderr.write(`  fanout (server side, in-process): … `);
        serverFanout = await runServerFanout(opts.fanout, opts.fanoutMessages);
        process.stderr.write(`p99 ${serverFanout.latencyMs.p99.toFixed(1)} ms\n`);
      }
    }

    let preloadReport: PreloadReport | undefined;
    const send = byName.get('send');
    if (!interrupted && opts.preload > 0 && send !== undefined) {
      preloadReport = await preload(target, send, opts.preload, opts.preloadConnections, opts.preloadTimeLimit, pid);
      // An old message deep in the store: halfway between the harness's first message and the newest.
      const me = await fetch(`${target.url}/api/v1/users/me`, { headers: { authorization: target.auth } }).then((r) => r.json() as Promise<{ max_message_id?: number }>);
      const first = Number(target.vars.messageId);
      target.vars.midMessageId = Math.max(first, Math.floor((first + (me.max_message_id ?? first)) / 2));
      await runPhase('preloaded');
    }
    // Each phase is divided by its own ceiling run: on a shared machine the yardstick drifts.
    const ceilingOf = (phase: ScenarioReport['phase']) => reports.find((r) => r.phase === phase && byName.get(r.name)?.ceiling);
    const ceiling = ceilingOf('empty');
    for (const r of reports) if (r.name !== 'fanout') judge(r, byName.get(r.name), ceilingOf(r.phase)?.result.reqPerSec ?? NaN);

    console.log('');
    console.log(
      `parley bench — ${target.url}${external ? ' (external target)' : ''}, ${cpus().length} CPUs (client and server share them), load average at start ${loadAverage.map((x) => x.toFixed(1)).join(' ')}, closed loop driven by ${opts.driver}` +
        (ceiling && ceiling.path !== '/api/v1/bench/ceiling' ? `; ceiling = ${ceiling.method} ${ceiling.path} (no bench route on this server)` : ''),
    );
    console.log(formatTable(rowsOf(reports)));
    const idleRssMet = memoryStart === undefined ? undefined : memoryStart.rssMiB * MIB < IDLE_RSS_TARGET_BYTES;
    if (memoryStart) {
      console.log(
        `server memory after start-up: RSS ${memoryStart.rssMiB.toFixed(1)} MiB (anon ${memoryStart.anonMiB.toFixed(1)}, file ${memoryStart.fileMiB.toFixed(1)}); ` +
          `${idleRssMet ? 'OK' : 'MISS'} idle RSS < 80 MB (${(memoryStart.rssMiB * MIB / 1e6).toFixed(1)} MB)`,
      );
    }
    if (preloadReport) {
      const p = preloadReport;
      console.log(
        `preload: ${p.loaded} of ${p.requested} messages in ${p.elapsedSec.toFixed(1)} s (${Math.round(p.sendsPerSec)} sends/s${p.stoppedByTimeLimit ? ', stopped by the time limit' : ''})` +
          (p.memoryBefore && p.memoryAfter ? `, RSS ${p.memoryBefore.rssMiB.toFixed(1)} → ${p.memoryAfter.rssMiB.toFixed(1)} MiB` : '') +
          `${p.non2xx + p.errors + p.timeouts > 0 ? `, FLAGGED: ${p.non2xx} non-2xx, ${p.errors} errors, ${p.timeouts} timeouts` : ''}`,
      );
    }
    if (serverFanout) {
      console.log(
        `fanout, server side only (in-process dispatcher, no HTTP clients): send → ${serverFanout.queues}th reply serialized ` +
          `p50 ${serverFanout.latencyMs.p50.toFixed(1)} ms, p99 ${serverFanout.latencyMs.p99.toFixed(1)} ms, max ${serverFanout.latencyMs.max.toFixed(1)} ms`,
      );
    }
    const missedExtra: string[] = [];
    if (idleRssMet === false) missedExtra.push('idle RSS < 80 MB');
    const skipped = (name: string) => console.log(`${name}: skipped against an external target (it measures parley's own code or needs the demo organization)`);
    const inProcess = (name: string) => !interrupted && selected(opts, name);
    let render: RenderBenchReport | undefined;
    if (inProcess('render')) {
      if (external) skipped('render');
      else console.log(`Markdown rendering (in-process, full message renderer):\n${formatRenderBench((render = runRenderBench()))}`);
    }
    let rateLimit: RateLimitBenchReport | undefined;
    if (inProcess('rate-limit')) {
      if (external) skipped('rate-limit');
      else console.log(formatRateLimitBench((rateLimit = runRateLimitBench())));
    }
    let upload: UploadBenchRow[] | undefined;
    if (inProcess('upload')) console.log(`upload throughput (concurrency 4, fsync per file):\n${formatUploadBench((upload = await runUploadBench(target.url, target.auth)))}`);
    let renderAdversarial: AdversarialRow[] | undefined;
    if (inProcess('render-adversarial')) {
      if (external) skipped('render-adversarial');
      else console.log(`Markdown rendering of hostile inputs (in-process, CPU time of one render):\n${formatAdversarialBench((renderAdversarial = runAdversarialBench()))}`);
    }
    let webapp: WebappBenchReport | string | undefined;
    if (inProcess('webapp')) {
      if (external) skipped('webapp');
      else {
        webapp = await runWebappBench(target.url, PASSWORD);
        console.log(typeof webapp === 'string' ? `web app: skipped, ${webapp}` : `web app (headless Chromium):\n${formatWebappBench(webapp)}`);
        if (typeof webapp !== 'string') {
          if (webapp.gzipBytes >= WEBAPP_BUDGETS.gzipBytes) missedExtra.push(`web app JS+CSS < ${WEBAPP_BUDGETS.gzipBytes} B gzip`);
          if (webapp.medianFirstMessagesMs >= WEBAPP_BUDGETS.firstMessagesMs) missedExtra.push(`web app first messages < ${WEBAPP_BUDGETS.firstMessagesMs} ms`);
        }
      }
    }
    let searchIndex: SearchBenchReport | undefined;
    if (inProcess('search-index')) {
      if (external) skipped('search-index');
      else {
        process.stderr.write(`  search-index: ${opts.searchMessages} messages in-process… \n`);
        searchIndex = runSearchBench({ messages: opts.searchMessages });
        console.log(`Full-text search index (in-process, ${opts.searchMessages} messages, newest 50 per query):\n${formatSearchBench(searchIndex)}`);
        for (const q of searchIndex.queries) if (q.p99Ms >= 20) missedExtra.push(`search-index ${q.name} p99 < 20 ms`);
      }
    }
    const flagged = reports.filter((r) => r.flagged);
    for (const r of flagged) console.log(`FLAGGED ${r.name} (${r.phase}): ${r.flagged}; sample reply: ${r.sampleErrorReply}`);
    const missed = [...reports.flatMap((r) => r.targets.filter((x) => !x.met).map((x) => `${r.name} (${r.phase}) ${x.description}`)), ...missedExtra];
    if (interrupted) console.log('INTERRUPTED: the last scenario was cut short and later ones skipped');
    console.log(missed.length === 0 ? 'all targets met' : `targets missed: ${missed.join('; ')}`);

    const results: BenchResults = {
      timestamp: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemMiB: Math.round(totalmem() / 2 ** 20), node: process.version, loadAverage },
      target: { url: target.url, external },
      driver: { closedLoop: opts.driver, ...(wrk !== null && { version: wrk }) },
      options: { ...opts, only: opts.only === null ? null : [...opts.only], apiKey: opts.apiKey === null ? null : '(hidden)' },
      scenarioFiles: scenarios,
      server: pid === undefined ? null : { pid, memoryStart },
      scenarios: reports,
      preload: preloadReport ?? null,
      fanout: fanout ?? null,
      serverFanout: serverFanout ?? null,
      render: render ?? null,
      rateLimit: rateLimit ?? null,
      upload: upload ?? null,
      renderAdversarial: renderAdversarial ?? null,
      webapp: webapp ?? null,
      searchIndex: searchIndex ?? null,
      interrupted,
    };
    const dir = opts.out === null ? join(REPO_ROOT, 'bench', 'results') : resolve(opts.out);
    mkdirSync(dir, { recursive: true });
    const base = join(dir, results.timestamp.replace(/[:.]/g, '-'));
    writeFileSync(`${base}.json`, JSON.stringify(results, null, 2) + '\n');
    writeFileSync(`${base}.html`, resultsHtml(results));
    console.log(`results: ${base}.json\nreport: ${base}.html`);
    return flagged.length > 0 || interrupted ? 1 : 0;
  } finally {
    if (server) {
      await server.stop('SIGTERM', 20_000).catch((error: unknown) => {
        process.stderr.write(`server shutdown: ${error instanceof Error ? error.message : String(error)}\n`);
      });
    }
    for (const fn of cleanups) await fn();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
