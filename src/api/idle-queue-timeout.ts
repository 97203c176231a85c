/**
 * `POST /register`'s `idle_queue_timeout` (https://zulip.com/api/register-queue; Zulip's
 * zerver/views/events_register.py and zerver/tornado/event_queue.py): how long an event queue
 * with no client attached lives before it is garbage-collected, answered in the response as
 * `idle_queue_timeout_secs`. A positive number of seconds (capped at `MAX_QUEUE_LIFESPAN_SECONDS`,
 * 7 days), or `"mobile"`: the longer lifetime Zulip gives mobile apps, whose queues must survive
 * the app being in the background (`MOBILE_EVENT_QUEUE_TIMEOUT_SECS`, 12 hours). Absent: the
 * legacy `queue_lifespan_secs` if given, else the server's default (600 s).
 */
import { Errors, type ZulipError } from '../errors.js';
import { MAX_QUEUE_LIFESPAN_SECONDS } from '../events/event-queues.js';

/** Zulip's `MOBILE_EVENT_QUEUE_TIMEOUT_SECS`: 12 hours. */
export const MOBILE_QUEUE_TIMEOUT_SECONDS = 12 * 3600;

/**
 * The idle timeout a register request asks for, in seconds (undefined = the server default), or
 * the error for a value that is neither a positive integer nor `"mobile"`.
 * `idleQueueTimeout` is the decoded parameter (JSON if it parsed, else the raw string).
 */
export function requestedIdleTimeout(idleQueueTimeout: unknown, queueLifespanSecs: number): number | undefined | ZulipError {
  if (idleQueueTimeout !== undefined) {
    if (idleQueueTimeout === 'mobile') return MOBILE_QUEUE_TIMEOUT_SECONDS;
    if (typeof idleQueueTimeout !== 'number' || !Number.isInteger(idleQueueTimeout) || idleQueueTimeout <= 0) {
      return Errors.badRequest('Invalid idle_queue_timeout');
    }
    return Math.min(idleQueueTimeout, MAX_QUEUE_LIFESPAN_SECONDS);
  }
  // Legacy `queue_lifespan_secs`: 0 = the default.
  return queueLifespanSecs > 0 ? Math.min(queueLifespanSecs, MAX_QUEUE_LIFESPAN_SECONDS) : undefined;
}
