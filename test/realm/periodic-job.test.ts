/**
 * The background jobs' timer (src/realm/periodic-job.ts): a pass at start when asked, passes never
 * overlap (ticks during a pass are skipped), a failing pass does not stop the job, `stop()` waits for the pass in progress and no
 * pass starts after it.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPeriodicJob } from '../../src/realm/periodic-job.js';

/** Waits (bounded: 10 s) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await sleep(10);
  if (!done()) throw new Error('condition not reached within 10 s');
}

t.test('runAtStart, no overlap, failures survived, stop waits', async (t) => {
  let started = 0;
  let running = 0;
  let maxRunning = 0;
  let finished = 0;
  const job = startPeriodicJob({
    event: 'test_job',
    intervalSeconds: 0.01,
    runAtStart: true,
    pass: async () => {
      started++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      await sleep(30); // longer than the interval: the ticks meanwhile are skipped, not overlapped
      running--;
      finished++;
      if (started === 2) throw new Error('a failing pass');
    },
  });
  t.equal(started, 1, 'the first pass starts at once');
  await until(() => finished >= 4);
  t.equal(maxRunning, 1, 'never two passes at once');
  t.ok(finished >= 4, 'the job went on after the failing second pass');
  await job.stop();
  t.equal(running, 0, 'stop() waited for the pass in progress');
  const after = started;
  await sleep(50);
  t.equal(started, after, 'no pass after stop()');
});

t.test('without runAtStart the first pass waits for the interval', async (t) => {
  let started = 0;
  const job = startPeriodicJob({ event: 'test_job', intervalSeconds: 60, pass: async () => void started++ });
  await sleep(20);
  t.equal(started, 0);
  await job.stop();
});
