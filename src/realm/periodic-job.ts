/**
 * The timer shared by the realms' background jobs (message retention, scheduled delivery, expiry
 * of unclaimed uploads): `pass()` every `intervalSeconds` (and once right away with `runAtStart`),
 * one pass at a time — a tick that comes while a pass runs is skipped (a slow pass never lets
 * ticks pile up behind it). A failed pass is logged under `event`, never thrown. The timer is unref'd: it never keeps the
 * process alive.
 */
import { log } from '../log.js';

/** A running job; `stop()` cancels later ticks and waits for a pass in progress. */
export interface PeriodicJob {
  stop(): Promise<void>;
}

/** What {@link startPeriodicJob} runs, and how often. */
export interface PeriodicJobOptions {
  /** The log `event` field of failures (e.g. `retention`). */
  event: string;
  /** Seconds between passes. */
  intervalSeconds: number;
  /** Run a pass at once, before the first interval (jobs catching up after a restart). */
  runAtStart?: boolean;
  /** One pass. */
  pass: () => Promise<unknown>;
}

/** Starts the job; see the module comment. */
export function startPeriodicJob(opts: PeriodicJobOptions): PeriodicJob {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const tick = () => {
    if (stopped || busy) return;
    busy = true;
    running = opts.pass()
      .catch((error: unknown) => log.error({ event: opts.event, err: error }, `${opts.event} pass failed`))
      .finally(() => { busy = false; });
  };
  if (opts.runAtStart) tick();
  const timer = setInterval(tick, opts.intervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
