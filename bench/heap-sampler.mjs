/**
 * Preload for the server under `bench/profile.ts --heap-prof` (`node --import=THIS dist/cli.js ...`):
 * samples allocations of the measured window only, including objects that the garbage collector has
 * already freed (V8's sampling heap profiler drops them by default, so short-lived garbage would not
 * show), and counts garbage collections by kind.
 *
 * SIGUSR2 the first time: start `HeapProfiler.startSampling` (interval HEAP_SAMPLER_INTERVAL bytes,
 * default 4096) and the GC counters. SIGUSR2 the second time: stop, write
 * `HEAP_SAMPLER_OUT/heap.heapprofile` (Chrome DevTools format) and `HEAP_SAMPLER_OUT/gc.json`
 * (`{minor, major, minorMs, majorMs}`), then print `heap-sampler: written` on stderr.
 * HEAP_SAMPLER_MODE=promoted keeps only objects that outlived a scavenge (collected by a major GC
 * or still alive at the end): what the young generation promoted.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const out = process.env.HEAP_SAMPLER_OUT;
const interval = Number(process.env.HEAP_SAMPLER_INTERVAL ?? 4096);
const promotedOnly = process.env.HEAP_SAMPLER_MODE === 'promoted';
const session = new Session();
session.connect();
let running = false;
const gc = { minor: 0, major: 0, minorMs: 0, majorMs: 0 };
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = entry.detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.minor++;
      gc.minorMs += entry.duration;
    } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      gc.major++;
      gc.majorMs += entry.duration;
    }
  }
});

const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

process.on('SIGUSR2', () => {
  void (async () => {
    if (!running) {
      running = true;
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
    if (out !== undefined) {
      writeFileSync(join(out, 'heap.heapprofile'), JSON.stringify(profile));
      writeFileSync(join(out, 'gc.json'), JSON.stringify(gc));
    }
    process.stderr.write('heap-sampler: written\n');
  })();
});
