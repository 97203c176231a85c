/**
 * The scheduled message delivery job (Zulip's `deliver_scheduled_messages` worker, which loops on
 * `try_deliver_one_scheduled_message`): every `intervalSeconds`, each realm's due scheduled
 * messages and reminders (`dueScheduledMessageIds`, oldest first) get one
 * `deliver_scheduled_message` command each (`handlers/scheduled-delivery.ts`) with the job's
 * clock, so the send goes through the actor and the normal send path. At most
 * `MAX_DELIVERIES_PER_TICK` per realm per tick (bounded work; the rest waits for the next tick).
 *
 * Scheduled messages are records, so they survive a restart: the job runs a pass as soon as it
 * starts, sending what fell due while the server was down (more than 10 minutes late fails, as
 * in Zulip).
 */
import type { RealmHandle } from './realm-handle.js';
import { startPeriodicJob, type PeriodicJob } from './periodic-job.js';
import { dueScheduledMessageIds, findScheduledMessage } from '../domain/scheduled-messages.js';
import { isDamagedBody } from './damaged-body.js';
import { log } from '../log.js';

/** Default period of the job, seconds (Zulip's worker wakes about once a minute; sooner is kinder). */
export const DELIVERY_INTERVAL_SECONDS = 5;
/** Deliveries per realm per tick at most. */
export const MAX_DELIVERIES_PER_TICK = 100;

/** What one pass did, per realm subdomain (realms with nothing due are left out). */
export type DeliveryPass = Record<string, { delivered: number; failed: number }>;

/** The raw content of a reminder's target message, when it is stored and readable. */
function targetContent(realm: RealmHandle, id: number): string | undefined {
  const target = findScheduledMessage(realm.state, id)?.reminderTargetMessageId;
  if (target === undefined || !realm.state.messages.exists(target)) return undefined;
  const body = realm.messageBody(target);
  return body === undefined || isDamagedBody(body) ? undefined : body.content;
}

/**
 * One pass over `realms` at `nowSeconds` (UNIX seconds). Command failures (storage, shutdown) are
 * logged, never thrown.
 */
export async function runDeliveryPass(realms: readonly RealmHandle[], nowSeconds: number): Promise<DeliveryPass> {
  const out: DeliveryPass = {};
  for (const realm of realms) {
    const due = dueScheduledMessageIds(realm.state, nowSeconds, MAX_DELIVERIES_PER_TICK);
    if (due.length === 0) continue;
    const counts = { delivered: 0, failed: 0 };
    for (const id of due) {
      const content = targetContent(realm, id);
      const result = await realm.execute({ type: 'deliver_scheduled_message', scheduledMessageId: id, nowSeconds, ...(content !== undefined && { targetContent: content }) });
      if (!result.ok) {
        log.warn({ event: 'scheduled_delivery', realm: realm.state.subdomain, id, error: result.error.message }, 'scheduled delivery failed');
        continue;
      }
      if (result.value.outcome === 'delivered') counts.delivered++;
      if (result.value.outcome === 'failed') counts.failed++;
    }
    out[realm.state.subdomain] = counts;
  }
  return out;
}

/**
 * Starts the job over `realms()` with the clock `now` (UNIX seconds; injectable for tests): a pass
 * right away, then every `intervalSeconds`. Returns `stop`, which waits for a pass in progress.
 */
export function startDeliveryJob(
  realms: () => readonly RealmHandle[],
  opts: { intervalSeconds?: number; now?: () => number } = {},
): PeriodicJob {
  const now = opts.now ?? (() => Date.now() / 1000);
  return startPeriodicJob({
    event: 'scheduled_delivery',
    intervalSeconds: opts.intervalSeconds ?? DELIVERY_INTERVAL_SECONDS,
    runAtStart: true,
    pass: () => runDeliveryPass(realms(), now()),
  });
}
