/**
 * What a large render costs everyone else (issue 12): the built server (`dist/`, a child process)
 * receives a steady stream of 10 KB hostile messages from one client while another client sends
 * small messages one after the other; the small sends' latency shows how long the realm's actor
 * is held by the large ones. Run it on two builds to compare (e.g. before/after moving renders to
 * a worker thread).
 *
 *     npm run build && node --import=tsx bench/render-offload-latency.ts [--seconds 8] [--pattern '* a\n']
 *
 * Bounded: `--seconds` of load (at most 60), each client sends one request at a time. Nothing is
 * asserted; figures depend on the machine (wall-clock ms, client and server share the CPUs).
 */
import { parseArgs } from 'node:util';
import { api, fetchApiKey, startServer, DEFAULT_DEMO_PASSWORD } from '../test/support/server-process.js';

const { values } = parseArgs({ options: { seconds: { type: 'string' }, pattern: { type: 'string' } } });
const seconds = Math.min(60, Math.max(1, Number(values.seconds ?? 8)));
const unit = (values.pattern ?? '* a\n').replace(/\\n/g, '\n');
const bigContent = unit.repeat(Math.floor(9_990 / unit.length));

const server = await startServer({ args: ['--rate-limits', 'off'] });
try {
  const email = 'hamlet@zulip.com';
  const { api_key: key } = await fetchApiKey(server.url, email, DEFAULT_DEMO_PASSWORD);
  const send = (content: string) => api(server.url, email, key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'bench', content });
  for (let i = 0; i < 20; i++) await send(i % 2 === 0 ? 'warm up' : bigContent);
  const deadline = performance.now() + seconds * 1000;
  let bigSends = 0;
  const bigLoop = (async () => {
    while (performance.now() < deadline) {
      await send(bigContent);
      bigSends++;
    }
  })();
  const smallMs: number[] = [];
  while (performance.now() < deadline) {
    const t0 = performance.now();
    const r = await send(`small ${smallMs.length}`);
    if (r.status !== 200) throw new Error(`small send: ${r.status}`);
    smallMs.push(performance.now() - t0);
  }
  await bigLoop;
  smallMs.sort((a, b) => a - b);
  const q = (p: number) => smallMs[Math.min(smallMs.length - 1, Math.floor(p * smallMs.length))]!.toFixed(2);
  console.log(
    `${seconds} s, large ${JSON.stringify(unit)} × ${Math.floor(9_990 / unit.length)}: ${bigSends} large sends (${(bigSends / seconds).toFixed(1)}/s); ` +
      `${smallMs.length} small sends: p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms, max ${smallMs.at(-1)!.toFixed(2)} ms`,
  );
} finally {
  await server.stop();
}
