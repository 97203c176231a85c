/**
 * Image benchmark: latency of Zulip's image work on a 5 MB JPEG through sharp (libvips), as
 * `storage/images.ts` does it for uploads, avatars and emoji:
 *   thumbnail  840×560 WebP (Zulip's upload thumbnail format)
 *   avatar     100 px and 500 px PNGs
 *   emoji      64 px still
 *
 *     node --import=tsx bench/thumbnail.ts [--runs N] [--seconds S]
 *
 * The input is a generated 4000×3000 noise JPEG of about 5 MB (noise does not compress, like a
 * photo). Each operation runs at most `runs` times (default 20) and at most `seconds` (default
 * 30) after one warm-up run, so the run always ends. Reports p50 / p99 / mean milliseconds;
 * nothing is asserted.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { resizeAvatar, resizeEmoji, thumbnailWebp } from '../src/storage/images.js';

/** One operation's figures, milliseconds. */
export interface ImageBenchRow {
  name: string;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

/** A noise JPEG of about `targetBytes` (4000×3000, quality tuned down until it fits). */
export async function noiseJpeg(targetBytes = 5_000_000): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const raw = randomBytes(width * height * 3);
  for (const quality of [90, 80, 70, 60, 50]) {
    const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
    if (jpeg.byteLength <= targetBytes * 1.2) return jpeg;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 40 }).toBuffer();
}

async function measure(name: string, runs: number, seconds: number, work: () => Promise<unknown>): Promise<ImageBenchRow> {
  await work();
  const times: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  while (times.length < runs && performance.now() < deadline) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { name, runs: times.length, p50Ms: at(0.5), p99Ms: at(0.99), meanMs: times.reduce((a, b) => a + b, 0) / times.length };
}

/** Runs every operation on one generated JPEG. */
export async function runImageBench(runs = 20, seconds = 30): Promise<{ inputBytes: number; rows: ImageBenchRow[] }> {
  const jpeg = await noiseJpeg();
  const rows = [
    await measure('thumbnail 840x560.webp', runs, seconds, () => thumbnailWebp(jpeg, 840, 560)),
    await measure('avatar 100 px + 500 px', runs, seconds, async () => [await resizeAvatar(jpeg, 100), await resizeAvatar(jpeg, 500)]),
    await measure('emoji 64 px', runs, seconds, () => resizeEmoji(jpeg, 'image/jpeg', 64)),
  ];
  return { inputBytes: jpeg.byteLength, rows };
}

/** The table printed by the standalone run. */
export function formatImageBench(report: { inputBytes: number; rows: ImageBenchRow[] }): string {
  const lines = [`input: ${(report.inputBytes / 1e6).toFixed(2)} MB JPEG, 4000×3000`, 'operation                 runs    p50 ms    p99 ms   mean ms'];
  for (const r of report.rows) {
    lines.push(`${r.name.padEnd(24)} ${String(r.runs).padStart(5)} ${r.p50Ms.toFixed(1).padStart(9)} ${r.p99Ms.toFixed(1).padStart(9)} ${r.meanMs.toFixed(1).padStart(9)}`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, seconds: { type: 'string' } }, strict: true });
  const report = await runImageBench(Number(values.runs ?? 20), Number(values.seconds ?? 30));
  console.log(formatImageBench(report));
}
