/**
 * The message retention job (Zulip's `archive_messages`, run by cron in Zulip): every
 * `intervalSeconds`, each realm with a retention policy gets `delete_expired_messages` commands
 * (`handlers/message-retention.ts`) with the job's clock, repeated while the reply says more
 * expired messages remain, at most `MAX_RUNS_PER_TICK` times per realm per tick (bounded work;
 * the rest waits for the next tick).
 */
import type { RealmHandle } from './realm-handle.js';
import { startPeriodicJob, type PeriodicJob } from './periodic-job.js';
import { hasRetentionPolicy } from './handlers/message-retention.js';
import { log } from '../log.js';

/** Default period of the job: 15 minutes. */
export const RETENTION_INTERVAL_SECONDS = 15 * 60;
/** Commands per realm per tick at most (each deletes at most `MAX_RETENTION_DELETIONS`). */
export const MAX_RUNS_PER_TICK = 10;

/** What one pass deleted, per realm subdomain. */
export type RetentionPass = Record<string, number>;

/**
 * One pass over `realms` at `nowSeconds` (UNIX seconds): the number of messages deleted per
 * realm (realms without a policy are skipped). Command failures are logged, never thrown.
 */
export async function runRetentionPass(realms: readonly RealmHandle[], nowSeconds: number): Promise<RetentionPass> {
  const out: RetentionPass = {};
  for (const realm of realms) {
    if (!hasRetentionPolicy(realm.state)) continue;
    let total = 0;
    for (let run = 0; run < MAX_RUNS_PER_TICK; run++) {
      const result = await realm.execute({ type: 'delete_expired_messages', nowSeconds });
      if (!result.ok) {
        log.warn({ event: 'retention', realm: realm.state.subdomain, error: result.error.message }, 'retention pass failed');
        break;
      }
      total += result.value.deleted;
      if (result.value.complete) break;
    }
    out[realm.state.subdomain] = total;
  }
  return out;
}

/**
 * Starts the periodic job over `realms()` with the clock `now` (UNIX seconds; injectable for
 * tests). Returns `stop`, which waits for a pass in progress.
 */
export function startRetentionJob(
  realms: () => readonly RealmHandle[],
  opts: { intervalSeconds?: number; now?: () => number } = {},
): PeriodicJob {
  const now = opts.now ?? (() => Date.now() / 1000);
  return startPeriodicJob({
    event: 'retention',
    intervalSeconds: opts.intervalSeconds ?? RETENTION_INTERVAL_SECONDS,
    pass: () => runRetentionPass(realms(), now()),
  });
}
