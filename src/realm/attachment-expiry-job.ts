/**
 * The unclaimed-upload expiry job (Zulip's `delete_old_unclaimed_attachments` management command,
 * run daily by cron): every `intervalSeconds` (default 1 hour), each realm holding uploads gets
 * `delete_unclaimed_attachments` commands (`handlers/attachment-expiry.ts`) with the job's clock,
 * repeated while the reply says more remain, at most `MAX_RUNS_PER_TICK` per realm per tick. The
 * digests each command freed go to `forget` (the file store removes bytes no record names any
 * more).
 */
import type { RealmHandle } from './realm-handle.js';
import { startPeriodicJob, type PeriodicJob } from './periodic-job.js';
import { DELETE_UNCLAIMED_ATTACHMENTS_AFTER_SECONDS } from './handlers/attachment-expiry.js';
import { log } from '../log.js';

/** Default period of the job: 1 hour. */
export const ATTACHMENT_EXPIRY_INTERVAL_SECONDS = 3600;
/** Commands per realm per tick at most. */
const MAX_RUNS_PER_TICK = 10;

/** Options of the job; all optional (tests inject a clock and a short period). */
export interface AttachmentExpiryOptions {
  intervalSeconds?: number;
  /** UNIX seconds. */
  now?: () => number;
  /** Uploads unclaimed for longer than this are deleted; default 21 days. */
  maxAgeSeconds?: number;
}

/**
 * One pass over `realms` at `nowSeconds`: deletes expired unclaimed uploads, hands their digests
 * to `forget`, and returns how many uploads each realm lost. Failures are logged, never thrown.
 */
export async function runAttachmentExpiryPass(
  realms: readonly RealmHandle[], nowSeconds: number, maxAgeSeconds: number, forget: (sha256: string) => void,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const realm of realms) {
    if (realm.state.attachments === undefined || realm.state.attachments.byId.size === 0) continue;
    let total = 0;
    for (let run = 0; run < MAX_RUNS_PER_TICK; run++) {
      const result = await realm.execute({ type: 'delete_unclaimed_attachments', nowSeconds, maxAgeSeconds });
      if (!result.ok) {
        log.warn({ event: 'attachment_expiry', realm: realm.state.subdomain, error: result.error.message }, 'attachment expiry failed');
        break;
      }
      for (const sha256 of result.value.digests) forget(sha256);
      total += result.value.deleted;
      if (result.value.complete) break;
    }
    if (total > 0) log.info({ event: 'attachment_expiry', realm: realm.state.subdomain, deleted: total }, 'deleted unclaimed uploads');
    out[realm.state.subdomain] = total;
  }
  return out;
}

/** Starts the periodic job over `realms()`. Returns `stop`, which waits for a pass in progress. */
export function startAttachmentExpiryJob(
  realms: () => readonly RealmHandle[], forget: (sha256: string) => void, opts: AttachmentExpiryOptions = {},
): PeriodicJob {
  const now = opts.now ?? (() => Date.now() / 1000);
  const maxAge = opts.maxAgeSeconds ?? DELETE_UNCLAIMED_ATTACHMENTS_AFTER_SECONDS;
  return startPeriodicJob({
    event: 'attachment_expiry',
    intervalSeconds: opts.intervalSeconds ?? ATTACHMENT_EXPIRY_INTERVAL_SECONDS,
    pass: () => runAttachmentExpiryPass(realms(), now(), maxAge, forget),
  });
}
