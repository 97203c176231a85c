/**
 * Reads answer only with durable state (issue: "reads see only durable messages", extended to every
 * change). The realm actor applies a command to memory before its log record is flushed, so a read
 * may run on state a crash could still take back. New messages are hidden by the durable-message
 * watermark (`RealmHandle.durableMessageId`); for every other change (edit, move, deletion, flags,
 * reactions...) the read is computed at once, on the state as it is, and its answer is held until
 * the realm's read barrier (`RealmHandle.readBarrier`, the latest such append in flight when the
 * read ran) is durable. Flushes take milliseconds; the wait is bounded.
 *
 * Computing first and waiting after is what makes it sound: appends become durable in order, so
 * once the barrier taken with the read is durable, everything the read saw is. Reading again after
 * the wait instead could see commands that arrived meanwhile and are not durable yet.
 *
 * If the write behind the barrier failed (a full disk: the realm reloads its durable state), the
 * read is computed again on the reloaded state, at most `MAX_ATTEMPTS` times.
 */
import { Errors, ZulipError } from '../errors.js';
import type { RealmHandle } from '../realm/realm-handle.js';

/** Longest a read waits for the change it saw to become durable (ms) before answering 503. */
export const DURABLE_READ_TIMEOUT_MS = 10_000;

/** Reads computed again after the barrier's write failed, at most. */
const MAX_ATTEMPTS = 3;

/**
 * Runs `read` on the realm's current state and returns its result once every change it may
 * reflect is durable: at once (no promise) when nothing is pending, else after the pending
 * barrier. Error: `Errors.changeNotSaved()` (503) when the barrier is not durable within
 * `timeoutMs` (ms) or its write keeps failing.
 */
export function durableRead<T>(realm: RealmHandle, read: () => T | ZulipError, timeoutMs = DURABLE_READ_TIMEOUT_MS): T | ZulipError | Promise<T | ZulipError> {
  const result = read();
  const barrier = realm.readBarrier();
  // Error answers wait too: "Invalid message(s)" for a message whose deletion is in flight is state.
  if (barrier === null) return result;
  return waitAndRetry(realm, read, result, barrier, timeoutMs);
}

async function waitAndRetry<T>(
  realm: RealmHandle,
  read: () => T | ZulipError,
  first: T | ZulipError,
  firstBarrier: Promise<boolean>,
  timeoutMs: number,
): Promise<T | ZulipError> {
  const deadline = Date.now() + timeoutMs;
  let result = first;
  let barrier: Promise<boolean> | null = firstBarrier;
  for (let attempt = 1; ; attempt++) {
    const outcome = await within(barrier, deadline - Date.now());
    if (outcome === 'timeout') return Errors.changeNotSaved();
    if (outcome) return result;
    // The write failed and the realm took it back: read again from the reloaded state.
    if (attempt >= MAX_ATTEMPTS) return Errors.changeNotSaved();
    await realm.whenDurable();
    result = read();
    barrier = realm.readBarrier();
    if (barrier === null) return result;
  }
}

/** The barrier's outcome, or 'timeout' after `ms`. */
function within(barrier: Promise<boolean>, ms: number): Promise<boolean | 'timeout'> {
  if (ms <= 0) return Promise.resolve('timeout');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, ms, 'timeout')));
  return Promise.race([barrier, timeout]).finally(() => clearTimeout(timer));
}
