/**
 * `npm run bench`: load-tests a real parley process with autocannon (see bench/README.md).
 *
 * Starts `dist/cli.js serve --bench --port 0` on a temporary data directory with the demo
 * organization, logs hamlet in, then measures, each for `--duration` seconds at `--connections`
 * connections (after a short warm-up):
 *   ceiling  GET  /api/v1/bench/ceiling   fixed reply straight from uWS: the HTTP throughput ceiling
 *   send     POST /api/v1/messages        durable channel sends to Verona (form-urlencoded, Basic auth)
 *   fetch    GET  /api/v1/messages/{id}   one existing message
 *   list     GET  /api/v1/messages?anchor=newest&num_before=50   the latest 50 messages: no narrow,
 *            a channel narrow, a channel+topic narrow, and a sparse topic (few old messages)
 * and, with `--preload N`, loads up to N messages (bounded by `--preload-time-limit`) and measures
 * send and fetch again on the bigger store. Prints a table, writes bench/results/<timestamp>.json.
 * Exit code 1 if any scenario saw connection errors, timeouts or non-2xx replies.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, basicAuth, fetchApiKey, processMemory, REPO_ROOT, startServer, type ProcessMemory, type ServerProcess } from '../test/support/server-process.js';
import { runLoad, stopCurrentLoad, type LoadRequest, type LoadResult } from './load.js';
import { formatTable, type Row } from './report.js';
import { runFanout, type FanoutReport } from './fanout.js';
import { runServerFanout, type ServerFanoutReport } from './fanout-server.js';
import { formatRenderBench, runRenderBench, type RenderBenchReport } from './render.js';
import { formatRateLimitBench, runRateLimitBench, type RateLimitBenchReport } from './rate-limit.js';
import { formatAdversarialBench, runAdversarialBench, type AdversarialRow } from './render-adversarial.js';
import { formatUploadBench, runUploadBench, type UploadBenchRow } from './upload.js';
import { formatWebappBench, runWebappBench, WEBAPP_BUDGETS, type WebappBenchReport } from './webapp.js';

const USAGE = `usage: npm run bench -- [--duration S] [--connections N] [--warmup S]
                       [--preload N] [--preload-time-limit S] [--preload-connections N]
  --duration S             seconds per measured scenario (default 10)
  --connections N          concurrent connections (default 50)
  --warmup S               unmeasured warm-up seconds before each scenario (default 2; 0 = none)
  --preload N              load N messages, then re-measure send and fetch (default 0 = skip)
  --preload-time-limit S   stop preloading after S seconds whatever was loaded (default 300)
  --preload-connections N  connections used for preloading (default 200)
  --fanout N               fan-out scenario: N long-polling queues in Verona, one sender (default 1000; 0 = skip)
  --fanout-messages K      messages sent in the fan-out scenario (default 50)
  --only a,b               run only these scenarios of ceiling,send,fetch,list,fanout,render,render-adversarial,
                           rate-limit,upload,webapp (the ceiling is always run)`;

/** Targets printed next to the results. */
const TARGETS = {
  sendRatio: 0.15,
  fetchRatio: 0.5,
  p99Ms: 10,
  /** A message reaches every one of 1,000 long-polling queues within this (p99). */
  fanoutP99Ms: 50,
};

/** Demo users subscribed to Verona whose queues receive the fan-out messages. */
const FANOUT_RECEIVERS = ['hamlet', 'othello', 'cordelia', 'prospero', 'aaron', 'desdemona', 'shiva', 'polonius'].map((n) => `${n}@zulip.com`);

const PASSWORD = 'bench-password';
const EMAIL = 'hamlet@zulip.com';

function intOption(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new Error(`--${name} must be an integer ≥ ${min}, got '${value}'`);
  return Number(value);
}

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      preload: { type: 'string' },
      'preload-time-limit': { type: 'string' },
      'preload-connections': { type: 'string' },
      only: { type: 'string' },
      fanout: { type: 'string' },
      'fanout-messages': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const only = new Set((values.only ?? 'ceiling,send,fetch,list,fanout,render,render-adversarial,rate-limit,upload,webapp').split(',').map((s) => s.trim()));
  for (const name of only) {
    if (!['ceiling', 'send', 'fetch', 'list', 'fanout', 'render', 'render-adversarial', 'rate-limit', 'upload', 'webapp'].includes(name)) throw new Error(`unknown scenario '${name}'`);
  }
  only.add('ceiling');
  return {
    duration: intOption(values.duration, 'duration', 10, 1),
    connections: intOption(values.connections, 'connections', 50, 1),
    warmup: intOption(values.warmup, 'warmup', 2),
    preload: intOption(values.preload, 'preload', 0),
    preloadTimeLimit: intOption(values['preload-time-limit'], 'preload-time-limit', 300, 1),
    preloadConnections: intOption(values['preload-connections'], 'preload-connections', 200, 1),
    fanout: intOption(values.fanout, 'fanout', 1000),
    fanoutMessages: intOption(values['fanout-messages'], 'fanout-messages', 50, 1),
    only,
  };
}
type Options = ReturnType<typeof parseOptions>;

/** One measured scenario as reported (table row + JSON entry). */
interface ScenarioReport {
  name: string;
  phase: 'empty' | 'preloaded';
  method: string;
  path: string;
  connections: number;
  durationSec: number;
  result: LoadResult;
  /** reqPerSec / ceiling reqPerSec. */
  ratioToCeiling: number;
  /** Server memory right after the scenario (VmRSS, RssAnon, RssFile), MiB. */
  memory: ProcessMemory | undefined;
  /** The target this scenario is held to, and whether it was met. */
  targets: { description: string; met: boolean }[];
  /** Set when the run had errors, timeouts or non-2xx replies. */
  flagged: string | null;
  /** One reply of the same request, fetched after a flagged run to show what went wrong. */
  sampleErrorReply?: string;
}

/** A request template for each scenario. */
function scenarioRequests(auth: string, messageId: number) {
  let seq = 0;
  const sendBodyPrefix = 'type=stream&to=Verona&topic=bench&content=bench+message+';
  return {
    ceiling: { method: 'GET', path: '/api/v1/bench/ceiling', headers: { authorization: auth } } satisfies LoadRequest,
    send: {
      method: 'POST',
      path: '/api/v1/messages',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: `${sendBodyPrefix}0`,
      // A counter makes every content unique at the cost of one string concat.
      setupRequest: (req: LoadRequest) => ({ ...req, body: sendBodyPrefix + ++seq }),
    } satisfies LoadRequest,
    fetch: (id: number = messageId) =>
      ({ method: 'GET', path: `/api/v1/messages/${id}`, headers: { authorization: auth } }) satisfies LoadRequest,
    list: (narrow: unknown[] | null) => {
      const query = new URLSearchParams({ anchor: 'newest', num_before: '50', num_after: '0' });
      if (narrow !== null) query.set('narrow', JSON.stringify(narrow));
      return { method: 'GET', path: `/api/v1/messages?${query}`, headers: { authorization: auth } } satisfies LoadRequest;
    },
  };
}

/**
 * The `GET /messages` scenarios (anchor=newest, num_before=50, num_after=0): no narrow; the
 * channel every bench send goes to (Verona); that channel and the bench topic; and a sparse topic
 * (Denmark > castle: one demo message, far below a preload), where the planner must walk the
 * topic's list rather than the channel's or the user's rows.
 */
const LIST_SCENARIOS: Array<[name: string, narrow: unknown[] | null]> = [
  ['list', null],
  ['list-channel', [{ operator: 'channel', operand: 'Verona' }]],
  ['list-topic', [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'bench' }]],
  ['list-sparse-topic', [{ operator: 'channel', operand: 'Denmark' }, { operator: 'topic', operand: 'castle' }]],
];

/** Runs the `list*` scenarios in `phase`, after checking each request answers 200 with messages. */
async function measureLists(
  server: ServerProcess,
  opts: Options,
  phase: ScenarioReport['phase'],
  requests: ReturnType<typeof scenarioRequests>,
  interrupted: () => boolean,
) {
  const out: ScenarioReport[] = [];
  for (const [name, narrow] of LIST_SCENARIOS) {
    if (interrupted()) break;
    const request = requests.list(narrow);
    const check = await sampleReply(server, request);
    if (!check.startsWith('HTTP 200') || !check.includes('"messages":[{')) throw new Error(`${name}: unexpected reply ${check}`);
    out.push(await measure(server, opts, name, phase, request));
  }
  return out;
}

async function sampleReply(server: ServerProcess, request: LoadRequest): Promise<string> {
  try {
    const res = await fetch(server.url + request.path, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.method === 'POST' && { body: request.body ?? '' }),
    });
    return `HTTP ${res.status} ${(await res.text()).slice(0, 300)}`;
  } catch (error) {
    return `request failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function measure(
  server: ServerProcess,
  opts: Options,
  name: string,
  phase: ScenarioReport['phase'],
  request: LoadRequest,
): Promise<ScenarioReport> {
  if (opts.warmup > 0) {
    process.stderr.write(`  ${name} (${phase}): warm-up ${opts.warmup} s… `);
    await runLoad({ url: server.url, request, connections: opts.connections, duration: opts.warmup, timeLimitMs: (opts.warmup + 30) * 1000 });
  } else {
    process.stderr.write(`  ${name} (${phase}): `);
  }
  process.stderr.write(`measuring ${opts.duration} s… `);
  const result = await runLoad({
    url: server.url,
    request,
    connections: opts.connections,
    duration: opts.duration,
    timeLimitMs: (opts.duration + 30) * 1000,
  });
  const memory = processMemory(server.pid);
  process.stderr.write(`${Math.round(result.reqPerSec)} req/s\n`);
  const problems: string[] = [];
  if (result.errors > 0) problems.push(`${result.errors} connection errors`);
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`);
  if (result.non2xx > 0) problems.push(`${result.non2xx} non-2xx (${JSON.stringify(result.statusCodes)})`);
  if (result.stoppedByTimeLimit) problems.push('stopped by the time limit');
  const report: ScenarioReport = {
    name,
    phase,
    method: request.method,
    path: request.path,
    connections: opts.connections,
    durationSec: opts.duration,
    result,
    ratioToCeiling: NaN,
    memory,
    targets: [],
    flagged: problems.length > 0 ? problems.join(', ') : null,
  };
  if (report.flagged) report.sampleErrorReply = await sampleReply(server, request);
  return report;
}

/** Fills ratio and targets of `r` against the ceiling's req/s. */
function judge(r: ScenarioReport, ceiling: number): void {
  r.ratioToCeiling = r.result.reqPerSec / ceiling;
  if (r.name === 'send') r.targets.push({ description: `≥ ${TARGETS.sendRatio} × ceiling`, met: r.ratioToCeiling >= TARGETS.sendRatio });
  if (r.name.startsWith('fetch')) r.targets.push({ description: `≥ ${TARGETS.fetchRatio} × ceiling`, met: r.ratioToCeiling >= TARGETS.fetchRatio });
  if (r.name !== 'ceiling') r.targets.push({ description: `p99 < ${TARGETS.p99Ms} ms`, met: r.result.latencyMs.p99 < TARGETS.p99Ms });
}

/** Loads up to `opts.preload` messages with many concurrent sends, bounded by the time limit. */
async function preload(server: ServerProcess, opts: Options, request: LoadRequest) {
  const before = processMemory(server.pid);
  process.stderr.write(`preloading ${opts.preload} messages (${opts.preloadConnections} connections, limit ${opts.preloadTimeLimit} s)\n`);
  let lastReport = 0;
  const result = await runLoad({
    url: server.url,
    request,
    connections: Math.min(opts.preloadConnections, opts.preload),
    duration: opts.preloadTimeLimit,
    amount: opts.preload,
    timeLimitMs: opts.preloadTimeLimit * 1000,
    timeout: 30,
    onProgress: (n, ms) => {
      if (ms - lastReport < 5000) return;
      lastReport = ms;
      process.stderr.write(`  ${n} sends answered in ${(ms / 1000).toFixed(0)} s (RSS ${processMemory(server.pid)?.rssMiB.toFixed(0)} MiB)\n`);
    },
  });
  const after = processMemory(server.pid);
  const loaded = result.ok2xx;
  process.stderr.write(
    `  loaded ${loaded} of ${opts.preload} in ${result.elapsedSec.toFixed(1)} s` +
      `${result.stoppedByTimeLimit ? ' (time limit reached)' : ''}, RSS ${before?.rssMiB.toFixed(0)} → ${after?.rssMiB.toFixed(0)} MiB\n`,
  );
  return {
    requested: opts.preload,
    loaded,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    elapsedSec: result.elapsedSec,
    sendsPerSec: loaded / result.elapsedSec,
    stoppedByTimeLimit: result.stoppedByTimeLimit,
    memoryBefore: before,
    memoryAfter: after,
  };
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
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
    process.stderr.write(`\n${signal}: stopping the load, then the server\n`);
    stopCurrentLoad();
    setTimeout(() => server?.child.kill('SIGKILL'), 10_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
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
    const auth = basicAuth(EMAIL, key);
    const first = await api<{ id: number }>(server.url, EMAIL, key, 'POST', 'messages', {
      type: 'stream', to: 'Verona', topic: 'bench', content: 'The message **fetched** by the fetch scenario.',
    });
    if (first.status !== 200) throw new Error(`cannot send the fetch target: HTTP ${first.status} ${JSON.stringify(first.body)}`);
    const requests = scenarioRequests(auth, first.body.id);
    const memoryStart = processMemory(server.pid);

    const reports: ScenarioReport[] = [];
    process.stderr.write(`scenarios: ${opts.duration} s each, ${opts.connections} connections\n`);
    const ceiling = await measure(server, opts, 'ceiling', 'empty', requests.ceiling);
    reports.push(ceiling);
    if (!interrupted && opts.only.has('send')) reports.push(await measure(server, opts, 'send', 'empty', requests.send));
    if (!interrupted && opts.only.has('fetch')) reports.push(await measure(server, opts, 'fetch', 'empty', requests.fetch()));
    if (!interrupted && opts.only.has('list')) reports.push(...(await measureLists(server, opts, 'empty', requests, () => interrupted)));

    let fanout: FanoutReport | undefined;
    let serverFanout: ServerFanoutReport | undefined;
    if (!interrupted && opts.only.has('fanout') && opts.fanout > 0) {
      process.stderr.write(`  fanout: ${opts.fanout} long-polling queues, ${opts.fanoutMessages} messages… `);
      const receivers = [];
      for (const email of FANOUT_RECEIVERS) receivers.push({ email, key: (await fetchApiKey(server.url, email, PASSWORD)).api_key });
      fanout = await runFanout(server.url, receivers, { email: 'iago@zulip.com', key: (await fetchApiKey(server.url, 'iago@zulip.com', PASSWORD)).api_key }, {
        queues: opts.fanout,
        messages: opts.fanoutMessages,
        warmupMessages: 5,
        workers: 2,
        timeoutMs: 5000,
        timeLimitSec: 120,
      });
      process.stderr.write(`p99 ${fanout.latencyMs.p99.toFixed(1)} ms\n`);
      process.stderr.write(`  fanout (server side, in-process): … `);
      serverFanout = await runServerFanout(opts.fanout, opts.fanoutMessages);
      process.stderr.write(`p99 ${serverFanout.latencyMs.p99.toFixed(1)} ms\n`);
    }

    let preloadReport: Awaited<ReturnType<typeof preload>> | undefined;
    if (!interrupted && opts.preload > 0) {
      preloadReport = await preload(server, opts, requests.send);
      if (!interrupted && opts.only.has('send')) reports.push(await measure(server, opts, 'send', 'preloaded', requests.send));
      if (!interrupted && opts.only.has('fetch')) {
        reports.push(await measure(server, opts, 'fetch', 'preloaded', requests.fetch()));
        // An old message deep in the store (the first one sent by this harness, before the preload).
        const latest = await api<{ max_message_id: number }>(server.url, EMAIL, key, 'GET', 'users/me');
        const mid = Math.max(first.body.id, Math.floor((first.body.id + latest.body.max_message_id) / 2));
        reports.push(await measure(server, opts, 'fetch-mid', 'preloaded', requests.fetch(mid)));
      }
      if (!interrupted && opts.only.has('list')) reports.push(...(await measureLists(server, opts, 'preloaded', requests, () => interrupted)));
    }
    for (const r of reports) judge(r, ceiling.result.reqPerSec);

    const missedExtra: string[] = [];
    const rows: Row[] = reports.map((r) => ({
      scenario: `${r.name} (${r.phase})`,
      request: `${r.method} ${r.path}`,
      reqPerSec: r.result.reqPerSec,
      ratio: r.ratioToCeiling,
      p50: r.result.latencyMs.p50,
      p99: r.result.latencyMs.p99,
      max: r.result.latencyMs.max,
      ok2xx: r.result.ok2xx,
      bad: r.result.non2xx + r.result.errors + r.result.timeouts,
      rss: r.memory?.rssMiB,
      anon: r.memory?.anonMiB,
      targets: r.targets.map((x) => `${x.met ? 'OK  ' : 'MISS'} ${x.description}`).join('; '),
    }));
    console.log('');
    console.log(`parley bench — ${opts.connections} connections, ${opts.duration} s per scenario, ${cpus().length} CPUs (client and server share them)`);
    console.log(formatTable(rows));
    console.log(`server memory after start-up: RSS ${memoryStart?.rssMiB.toFixed(1)} MiB (anon ${memoryStart?.anonMiB.toFixed(1)}, file ${memoryStart?.fileMiB.toFixed(1)})`);
    if (preloadReport) {
      console.log(
        `preload: ${preloadReport.loaded} of ${preloadReport.requested} messages in ${preloadReport.elapsedSec.toFixed(1)} s ` +
          `(${Math.round(preloadReport.sendsPerSec)} sends/s${preloadReport.stoppedByTimeLimit ? ', stopped by the time limit' : ''}), ` +
          `RSS ${preloadReport.memoryBefore?.rssMiB.toFixed(1)} → ${preloadReport.memoryAfter?.rssMiB.toFixed(1)} MiB ` +
          `(anon ${preloadReport.memoryBefore?.anonMiB.toFixed(1)} → ${preloadReport.memoryAfter?.anonMiB.toFixed(1)}, ` +
          `file ${preloadReport.memoryBefore?.fileMiB.toFixed(1)} → ${preloadReport.memoryAfter?.fileMiB.toFixed(1)})` +
          `${preloadReport.non2xx + preloadReport.errors + preloadReport.timeouts > 0 ? `, FLAGGED: ${preloadReport.non2xx} non-2xx, ${preloadReport.errors} errors, ${preloadReport.timeouts} timeouts` : ''}`,
      );
    }
    if (fanout) {
      const met = fanout.incomplete === 0 && fanout.latencyMs.p99 < TARGETS.fanoutP99Ms;
      console.log(
        `fanout: ${fanout.queues} long-polling queues, ${fanout.messagesSent} messages: send → last delivery ` +
          `p50 ${fanout.latencyMs.p50.toFixed(1)} ms, p99 ${fanout.latencyMs.p99.toFixed(1)} ms, max ${fanout.latencyMs.max.toFixed(1)} ms; ` +
          `${Math.round(fanout.eventsPerSec)} events/s delivered; ${fanout.incomplete} incomplete ` +
          `— ${met ? 'OK  ' : 'MISS'} p99 < ${TARGETS.fanoutP99Ms} ms`,
      );
      if (!met) missedExtra.push(`fanout p99 < ${TARGETS.fanoutP99Ms} ms`);
    }
    if (serverFanout) {
      console.log(
        `fanout, server side only (in-process dispatcher, no HTTP clients): send → ${serverFanout.queues}th reply serialized ` +
          `p50 ${serverFanout.latencyMs.p50.toFixed(1)} ms, p99 ${serverFanout.latencyMs.p99.toFixed(1)} ms, max ${serverFanout.latencyMs.max.toFixed(1)} ms`,
      );
    }
    // In-process Markdown rendering (bench/render.ts): no server involved, bounded loops.
    let render: RenderBenchReport | undefined;
    if (!interrupted && opts.only.has('render')) {
      render = runRenderBench();
      console.log(`Markdown rendering (in-process, full message renderer):\n${formatRenderBench(render)}`);
    }
    // In-process cost of the API rate limit per request (bench/rate-limit.ts).
    let rateLimit: RateLimitBenchReport | undefined;
    if (!interrupted && opts.only.has('rate-limit')) {
      rateLimit = runRateLimitBench();
      console.log(formatRateLimitBench(rateLimit));
    }
    // Upload throughput (bench/upload.ts): streamed multipart bodies, fsynced files, durable records.
    let upload: UploadBenchRow[] | undefined;
    if (!interrupted && opts.only.has('upload')) {
      upload = await runUploadBench(server.url, auth);
      console.log(`upload throughput (concurrency 4, fsync per file):\n${formatUploadBench(upload)}`);
    }
    // Hostile inputs at 10 KB and 100 KB (bench/render-adversarial.ts): ms/KB must not grow with size.
    let renderAdversarial: AdversarialRow[] | undefined;
    if (!interrupted && opts.only.has('render-adversarial')) {
      renderAdversarial = runAdversarialBench();
      console.log(`Markdown rendering of hostile inputs (in-process, CPU time of one render):\n${formatAdversarialBench(renderAdversarial)}`);
    }
    // The browser app in headless Chromium (bench/webapp.ts): bundle size, first messages, 10,000-message narrow.
    let webapp: WebappBenchReport | string | undefined;
    if (!interrupted && opts.only.has('webapp')) {
      webapp = await runWebappBench(server.url, PASSWORD);
      console.log(typeof webapp === 'string' ? `web app: skipped, ${webapp}` : `web app (headless Chromium):\n${formatWebappBench(webapp)}`);
      if (typeof webapp !== 'string') {
        if (webapp.gzipBytes >= WEBAPP_BUDGETS.gzipBytes) missedExtra.push(`web app JS+CSS < ${WEBAPP_BUDGETS.gzipBytes} B gzip`);
        if (webapp.medianFirstMessagesMs >= WEBAPP_BUDGETS.firstMessagesMs) missedExtra.push(`web app first messages < ${WEBAPP_BUDGETS.firstMessagesMs} ms`);
      }
    }
    const flagged = reports.filter((r) => r.flagged);
    for (const r of flagged) console.log(`FLAGGED ${r.name} (${r.phase}): ${r.flagged}; sample reply: ${r.sampleErrorReply}`);
    const missed = [...reports.flatMap((r) => r.targets.filter((x) => !x.met).map((x) => `${r.name} (${r.phase}) ${x.description}`)), ...missedExtra];
    if (interrupted) console.log('INTERRUPTED: the last scenario was cut short and later ones skipped');
    console.log(missed.length === 0 ? 'all targets met' : `targets missed: ${missed.join('; ')}`);

    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const dir = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${stamp}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        {
          timestamp: new Date().toISOString(),
          machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemMiB: Math.round(totalmem() / 2 ** 20), node: process.version },
          options: { ...opts, only: [...opts.only] },
          targets: TARGETS,
          server: { url: server.url, pid: server.pid, memoryStart },
          scenarios: reports,
          preload: preloadReport ?? null,
          fanout: fanout ?? null,
          serverFanout: serverFanout ?? null,
          render: render ?? null,
          rateLimit: rateLimit ?? null,
          upload: upload ?? null,
          renderAdversarial: renderAdversarial ?? null,
          webapp: webapp ?? null,
          interrupted,
        },
        null,
        2,
      ) + '\n',
    );
    console.log(`results: ${file}`);
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
