/**
 * Preload for the server under `bench/profile.ts --heap-prof` (`node --import=THIS dist/cli.js ...`):
 * samples allocations of the measured window only, including objects that the garbage collector has
 * already freed (V8's sampling heap profiler drops them by default, so short-lived garbage would not
 * show), and counts garbage collections by kind.
 *
 * SIGUSR2 the first time: start `HeapProfiler.startSampling` (interval HEAP_SAMPLER_INTERVAL bytes,
 * default 4096) and the GC counters. SIGUSR2 the second time: stop, write
 * `HEAP_SAMPLER_OUT/heap.heapprofile` (Chrome DevTools format) and `HEAP_SAMPLER_OUT/gc.json`
 * (`{minor, major, minorMs, majorMs, promotedBytes, liveGrowthBytes}`: collections by kind, bytes
 * the scavenges promoted, growth of the heap in use after a full collection between start and stop,
 * which needs `--expose-gc`), then print `heap-sampler: written` on stderr.
 * HEAP_SAMPLER_MODE=promoted drops the samples of objects freed by scavenges: what is left was
 * freed by a mark-compact or is still alive, i.e. mostly what the young generation promoted. Caveat:
 * a mark-compact also frees the young garbage of the moment, so every site keeps a few percent
 * (about mark-compacts × half a semi-space / bytes allocated) of its `all` figure; compare the
 * two profiles per site.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const out = process.env.HEAP_SAMPLER_OUT;
const interval = Number(process.env.HEAP_SAMPLER_INTERVAL ?? 4096);
const promotedOnly = process.env.HEAP_SAMPLER_MODE === 'promoted';
const session = new Session();
session.connect();
let running = false;
const gc = { minor: 0, major: 0, minorMs: 0, majorMs: 0, promotedBytes: 0, liveGrowthBytes: NaN };
/** Bytes used in the old generation (old space + large objects), read after each collection. */
const oldBytes = () => {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'old_space' || space.space_name === 'large_object_space') used += space.space_used_size;
  return used;
};
let lastOld = 0;
let liveAtStart = 0;
// The observer runs shortly after each collection: the old generation's growth across a scavenge
// is what it promoted (plus the little allocated directly in old space meanwhile).
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = entry.detail?.kind;
    const old = oldBytes();
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.minor++;
      gc.minorMs += entry.duration;
      if (old > lastOld) gc.promotedBytes += old - lastOld;
    } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      gc.major++;
      gc.majorMs += entry.duration;
    }
    lastOld = old;
  }
});
/** Heap in use after a full collection (needs `--expose-gc`), or NaN. */
const liveBytes = () => {
  if (typeof globalThis.gc !== 'function') return NaN;
  globalThis.gc();
  return getHeapStatistics().used_heap_size;
};

const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

process.on('SIGUSR2', () => {
  void (async () => {
    if (!running) {
      running = true;
      liveAtStart = liveBytes();
      lastOld = oldBytes();
      observer.observe({ entryTypes: ['gc'] });
      await post('HeapProfiler.enable');
      await post('HeapProfiler.startSampling', {
        samplingInterval: interval,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !promotedOnly,
      });
      process.stderr.write('heap-sampler: started\n');
      return;
    }
    const { profile } = await post('HeapProfiler.stopSampling');
    observer.disconnect();
    gc.liveGrowthBytes = liveBytes() - liveAtStart;
    if (out !== undefined) {
      writeFileSync(join(out, 'heap.heapprofile'), JSON.stringify(profile));
      writeFileSync(join(out, 'gc.json'), JSON.stringify(gc));
    }
    process.stderr.write('heap-sampler: written\n');
  })();
});
