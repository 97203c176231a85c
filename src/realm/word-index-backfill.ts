/**
 * Fills a restored realm's search word index (`domain/message-word-index.ts`) from the stored
 * message bodies, in the background: the index is not persisted, and reading a million bodies
 * from LMDB takes seconds, which a restart must not wait for. The work runs on the realm's thread
 * in slices of at most `sliceMs` between other callbacks (`setImmediate`), so requests keep being
 * served; until it completes, `search:` narrows scan as they did without an index.
 */
import type { RealmState } from '../domain/realm-state.js';
import type { MessageBody } from '../domain/records.js';
import { MessageBit } from '../domain/message-index.js';
import { log } from '../log.js';

/** What the backfill needs from a running realm. */
export interface BackfillSource {
  /** The realm's current state (a recovery may replace it: the backfill then stops). */
  state(): RealmState;
  /** False once the realm stopped. */
  running(): boolean;
  /** A stored body straight from LMDB (undefined when absent or unreadable). */
  readBody(messageId: number): MessageBody | undefined;
}

/** Backfill progress, for logs and benches. */
export interface BackfillResult {
  /** Messages fed to the index (ids walked, deleted ones included). */
  ids: number;
  /** Wall-clock ms from start to completion (includes time serving other work). */
  elapsedMs: number;
  /** CPU-side ms spent inside slices. */
  busyMs: number;
}

/**
 * Starts backfilling `source`'s word index; resolves when it is complete, or with null when the
 * realm stopped or its state was replaced first. `sliceMs`: longest slice in milliseconds.
 */
export function startWordIndexBackfill(source: BackfillSource, sliceMs = 4): Promise<BackfillResult | null> {
  const state = source.state();
  const index = state.wordIndex;
  const started = performance.now();
  let busyMs = 0;
  const first = index?.backfillCursor ?? 0;
  return new Promise((resolve) => {
    if (index === undefined || index.complete) {
      resolve({ ids: 0, elapsedMs: 0, busyMs: 0 });
      return;
    }
    const slice = (): void => {
      if (!source.running() || source.state() !== state || state.wordIndex !== index) {
        resolve(null);
        return;
      }
      const sliceStart = performance.now();
      const m = state.messages;
      let id = index.backfillCursor;
      while (id < index.backfillBelow) {
        const exists = (m.bits.get(id) & MessageBit.exists) !== 0;
        const body = exists ? source.readBody(id) : undefined;
        index.backfill(id, body?.content, exists ? state.topics.value(m.topic.get(id)) : '');
        id++;
        if ((id & 63) === 0 && performance.now() - sliceStart >= sliceMs) break;
      }
      busyMs += performance.now() - sliceStart;
      if (!index.complete) {
        setImmediate(slice);
        return;
      }
      const result = { ids: index.backfillBelow - first, elapsedMs: performance.now() - started, busyMs };
      const stats = index.stats();
      log.info(
        {
          realm_id: state.id,
          messages: result.ids,
          elapsed_ms: Math.round(result.elapsedMs),
          busy_ms: Math.round(result.busyMs),
          words: stats.words,
          postings: stats.postings,
          estimated_bytes: stats.estimatedBytes,
        },
        'search word index built',
      );
      resolve(result);
    };
    setImmediate(slice);
  });
}
