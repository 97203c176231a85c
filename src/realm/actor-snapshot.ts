/**
 * Realm snapshots from the actor (realm-actor.ts): when the policy says one is due, the state is
 * captured synchronously (as of the last appended record) and written behind those records.
 */
import { dirtyColumnBytes, toSnapshot } from '../domain/realm-snapshot.js';
import { log } from '../log.js';
import { snapshotSeconds } from '../metrics.js';
import type { ActorContext } from './actor-context.js';

/**
 * Writes a snapshot when the policy says so (or `force`). The snapshot captures the state as of
 * the last appended record synchronously; its LMDB write commits after those records.
 */
export function maybeSnapshot(c: ActorContext, force: boolean): Promise<unknown> {
  if (c.snapshotting) return c.snapshotting;
  if (c.recordsSinceSnapshot === 0 && !c.state.presence.dirty) return Promise.resolve();
  const now = Date.now();
  const due =
    force ||
    c.recordsSinceSnapshot >= c.deps.snapshotPolicy.everyRecords ||
    now - c.lastSnapshotAt >= c.deps.snapshotPolicy.everySeconds * 1000 ||
    tooMuchDirty(c);
  if (!due) return Promise.resolve();
  const started = performance.now();
  const seq = c.deps.log.lastSeq(c.state.id);
  const { core, columns } = toSnapshot(c.state);
  const coreBytes = c.coreEncoder.encode(c.state, core);
  const capturedMs = performance.now() - started;
  c.recordsSinceSnapshot = 0;
  c.recordsSinceDirtyCheck = 0;
  c.state.presence.dirty = false;
  c.lastSnapshotAt = now;
  const writing = c.deps.snapshots
    .writeSnapshot(c.state.id, seq, coreBytes, columns)
    .then((stats) => {
      const seconds = (performance.now() - started) / 1000;
      snapshotSeconds.observe(seconds);
      // sync_ms: how long the realm's thread was held to capture it (toSnapshot + the store's synchronous part).
      const syncMs = Math.round((capturedMs + stats.syncMs) * 100) / 100;
      log.info(
        { event: 'snapshot', realm_id: c.state.id, seq, ms: Math.round(seconds * 1e5) / 100, sync_ms: syncMs, chunks: stats.chunksWritten, bytes: stats.bytesWritten },
        'snapshot written',
      );
    })
    .catch((error: unknown) => log.error({ event: 'snapshot_failed', realm_id: c.state.id, err: error }, 'snapshot failed (the log still has everything)'))
    .finally(() => {
      c.snapshotting = null;
    });
  c.snapshotting = writing;
  return writing;
}

/** Fewest records between two sums of the dirty column bytes. */
const DIRTY_CHECK_MIN_RECORDS = 64;

/**
 * Whether `everyDirtyBytes` of column chunks wait to be written. The sum walks two columns per
 * user, so it runs every 64 records, or every users/16 records in larger realms: well under a
 * microsecond per record either way.
 */
function tooMuchDirty(c: ActorContext): boolean {
  const limit = c.deps.snapshotPolicy.everyDirtyBytes;
  if (limit === undefined) return false;
  if (c.recordsSinceDirtyCheck < Math.max(DIRTY_CHECK_MIN_RECORDS, c.state.messages.users.size >>> 4)) return false;
  c.recordsSinceDirtyCheck = 0;
  return dirtyColumnBytes(c.state) >= limit;
}
