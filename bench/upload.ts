/**
 * Upload throughput against a real server (`POST /api/v1/user_uploads`, streamed to the file
 * store, fsynced, recorded): for each file size, `concurrency` clients upload distinct random
 * files until `maxUploads` uploads or `seconds` have passed (both bounds), and the bench reports
 * MB/s of acknowledged file bytes and the per-upload latency. Nothing is asserted.
 *
 * Standalone, it also uploads a 5 MB JPEG (`runImageUploadBench`: upload + thumbnail latency).
 *
 *     node --import=tsx bench/upload.ts [--seconds S]     (standalone: starts its own server)
 *     npm run bench -- --only upload                      (inside the load bench)
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { basicAuth, fetchApiKey, startServer } from '../test/support/server-process.js';
import { noiseJpeg } from './thumbnail.js';

/** Figures for one file size. */
export interface UploadBenchRow {
  sizeMiB: number;
  uploads: number;
  failures: number;
  seconds: number;
  /** Acknowledged file bytes per second, in MB (10^6 bytes). */
  mbPerSec: number;
  p50Ms: number;
  maxMs: number;
}

const SIZES_MIB = [1, 8, 24];

/** Runs the upload scenario against `url` as the user with Basic `auth`. */
export async function runUploadBench(url: string, auth: string, options: { seconds?: number; concurrency?: number; maxUploads?: number } = {}): Promise<UploadBenchRow[]> {
  const seconds = options.seconds ?? 5;
  const concurrency = options.concurrency ?? 4;
  const maxUploads = options.maxUploads ?? 200;
  const rows: UploadBenchRow[] = [];
  for (const sizeMiB of SIZES_MIB) {
    // One random buffer per client; a per-upload prefix makes every file distinct (no dedupe).
    const payloads = Array.from({ length: concurrency }, () => randomBytes(sizeMiB * 1024 * 1024 - 16));
    const latencies: number[] = [];
    let started = 0;
    let failures = 0;
    const t0 = performance.now();
    const deadline = t0 + seconds * 1000;
    await Promise.all(
      payloads.map(async (payload) => {
        while (started < maxUploads && performance.now() < deadline) {
          const n = started++;
          const form = new FormData();
          form.append('file', new Blob([Buffer.from(String(n).padStart(16, '0')), payload], { type: 'application/octet-stream' }), `bench-${n}.bin`);
          const t1 = performance.now();
          const res = await fetch(`${url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: auth }, body: form });
          const body = (await res.json()) as { result: string };
          if (body.result === 'success') latencies.push(performance.now() - t1);
          else failures++;
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    rows.push({
      sizeMiB,
      uploads: latencies.length,
      failures,
      seconds: elapsed,
      mbPerSec: (latencies.length * sizeMiB * 1024 * 1024) / 1e6 / elapsed,
      p50Ms: latencies[Math.floor(latencies.length / 2)] ?? NaN,
      maxMs: latencies[latencies.length - 1] ?? NaN,
    });
  }
  return rows;
}

/** Figures of the image upload scenario (milliseconds per upload). */
export interface ImageUploadBenchRow {
  inputBytes: number;
  uploads: number;
  p50Ms: number;
  maxMs: number;
}

/**
 * A 5 MB photo-like JPEG uploaded as `image/jpeg`, one at a time, at most `runs` times and
 * `seconds`: each upload is stored, decoded and thumbnailed (840x560 WebP) before it is
 * acknowledged, so the latency is upload + thumbnail. Every upload differs (a counter appended
 * after the JPEG's end), so nothing is deduplicated.
 */
export async function runImageUploadBench(url: string, auth: string, options: { runs?: number; seconds?: number } = {}): Promise<ImageUploadBenchRow> {
  const jpeg = await noiseJpeg();
  const runs = options.runs ?? 10;
  const deadline = performance.now() + (options.seconds ?? 30) * 1000;
  const latencies: number[] = [];
  for (let n = 0; n < runs && performance.now() < deadline; n++) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(jpeg), Buffer.from(String(n).padStart(16, '0'))], { type: 'image/jpeg' }), `photo-${n}.jpg`);
    const t1 = performance.now();
    const res = await fetch(`${url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: auth }, body: form });
    if (((await res.json()) as { result: string }).result === 'success') latencies.push(performance.now() - t1);
  }
  latencies.sort((a, b) => a - b);
  return { inputBytes: jpeg.byteLength, uploads: latencies.length, p50Ms: latencies[Math.floor(latencies.length / 2)] ?? NaN, maxMs: latencies[latencies.length - 1] ?? NaN };
}

/** Lines for the bench output. */
export function formatUploadBench(rows: readonly UploadBenchRow[]): string {
  return rows
    .map((r) => `  ${String(r.sizeMiB).padStart(3)} MiB files: ${r.mbPerSec.toFixed(1)} MB/s (${r.uploads} uploads in ${r.seconds.toFixed(1)} s, p50 ${r.p50Ms.toFixed(0)} ms, max ${r.maxMs.toFixed(0)} ms, ${r.failures} failed)`)
    .join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { seconds: { type: 'string' } } });
  const seconds = values.seconds !== undefined ? Number(values.seconds) : 5;
  if (!(seconds > 0 && seconds <= 120)) {
    console.error('usage: node --import=tsx bench/upload.ts [--seconds S (0-120]]');
    process.exit(2);
  }
  const cleanups: Array<() => unknown> = [];
  const server = await startServer({ t: { teardown: (fn) => cleanups.push(fn) }, demoPassword: 'bench-password', args: ['--rate-limits', 'off'] });
  try {
    const { api_key: key } = await fetchApiKey(server.url, 'hamlet@zulip.com', 'bench-password');
    const auth = basicAuth('hamlet@zulip.com', key);
    console.log(`upload throughput (concurrency 4, real server, fsync per file):\n${formatUploadBench(await runUploadBench(server.url, auth, { seconds }))}`);
    const image = await runImageUploadBench(server.url, auth, { seconds: Math.max(seconds, 10) });
    console.log(
      `image upload + 840x560.webp thumbnail (${(image.inputBytes / 1e6).toFixed(1)} MB JPEG, sequential): ` +
        `p50 ${image.p50Ms.toFixed(0)} ms, max ${image.maxMs.toFixed(0)} ms (${image.uploads} uploads)`,
    );
  } finally {
    await server.stop('SIGTERM', 20_000).catch(() => undefined);
    for (const fn of cleanups) await fn();
  }
}
