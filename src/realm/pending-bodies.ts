/**
 * Message bodies appended to the log but not yet durable (sends and content edits), readable
 * before LMDB has them: `RealmHandle.messageBody` asks here first, then the body cache, then LMDB.
 *
 * Kept per append, as the `[messageId, body]` list the actor already holds for it (`bodiesOf`),
 * in a ring of appends oldest first that grows only when full. A `Map` from message id to body
 * did a set and a delete per send; under that churn V8 rebuilt its hash table, and the new table
 * was promoted at once because the Map is old (issue 17: ~140 B promoted per send).
 *
 * A read answers what the Map answered: the body of the newest append that has one for the id, as
 * long as that append is not durable (a content edit in flight shadows the earlier send or edit of
 * the same message; once the newest is durable, LMDB has the body). Appends become durable in order
 * (storage/commit-pipeline.ts), so `settle` drops the oldest; should a newer one settle first, its
 * ids are marked as no longer pending in the older appends. A read scans the pending appends only
 * for ids at or above the smallest pending id: the usual read (older, durable messages) costs one
 * comparison.
 */
import type { MessageBody } from '../domain/records.js';

/** The bodies one append carries: `[messageId, body]`, a later pair for an id replacing an earlier one. */
export type AppendBodies = readonly (readonly [number, MessageBody])[];

const INITIAL_CAPACITY = 16;

/** One realm's not-yet-durable bodies (see the module header); owned by its actor. */
export class PendingBodies {
  /** Appends not yet durable, oldest at `first`; capacity a power of two. */
  private ring: (AppendBodies | undefined)[] = new Array<AppendBodies | undefined>(INITIAL_CAPACITY).fill(undefined);
  /** Per slot, ids whose newer append settled first (out of order): no longer pending here. */
  private settledIds: (Set<number> | undefined)[] = new Array<Set<number> | undefined>(INITIAL_CAPACITY).fill(undefined);
  private first = 0;
  private count = 0;
  /** The smallest message id of any pending body (Infinity when none). */
  private lowestId = Infinity;

  /** Appends whose bodies are pending (for tests and metrics). */
  get size(): number {
    return this.count;
  }

  /** Adds the bodies of an append just issued (nothing for an empty list). */
  add(bodies: AppendBodies): void {
    if (bodies.length === 0) return;
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.first + this.count) & (this.ring.length - 1)] = bodies;
    this.count++;
    for (let j = 0; j < bodies.length; j++) if (bodies[j]![0] < this.lowestId) this.lowestId = bodies[j]![0];
  }

  /** The newest pending body of `messageId`, or undefined when none is pending. */
  get(messageId: number): MessageBody | undefined {
    if (messageId < this.lowestId) return undefined;
    const mask = this.ring.length - 1;
    for (let i = this.count - 1; i >= 0; i--) {
      const slot = (this.first + i) & mask;
      const bodies = this.ring[slot]!;
      for (let j = bodies.length - 1; j >= 0; j--) {
        const pair = bodies[j]!;
        if (pair[0] !== messageId) continue;
        // The newest append with this id settled already: LMDB has its body.
        return this.settledIds[slot]?.has(messageId) ? undefined : pair[1];
      }
    }
    return undefined;
  }

  /** The append of `bodies` (the same list given to `add`) is durable: LMDB answers for it now. */
  settle(bodies: AppendBodies): void {
    if (bodies.length === 0 || this.count === 0) return;
    const mask = this.ring.length - 1;
    let index = 0;
    while (index < this.count && this.ring[(this.first + index) & mask] !== bodies) index++;
    if (index === this.count) return;
    if (index === 0) {
      this.ring[this.first] = undefined;
      this.settledIds[this.first] = undefined;
      this.first = (this.first + 1) & mask;
    } else {
      this.settleOutOfOrder(index, bodies);
    }
    this.count--;
    this.lowestId = this.lowestPendingId();
  }

  /**
   * A newer append settled before older ones (not in production: only a test hook can reorder):
   * its ids stop being pending in the older appends, as the Map's delete did, and the appends
   * after it move down one slot.
   */
  private settleOutOfOrder(index: number, bodies: AppendBodies): void {
    const mask = this.ring.length - 1;
    for (let i = 0; i < index; i++) {
      const slot = (this.first + i) & mask;
      for (const [id] of bodies) if (this.ring[slot]!.some((pair) => pair[0] === id)) (this.settledIds[slot] ??= new Set()).add(id);
    }
    for (let i = index; i < this.count - 1; i++) {
      const slot = (this.first + i) & mask;
      const next = (slot + 1) & mask;
      this.ring[slot] = this.ring[next];
      this.settledIds[slot] = this.settledIds[next];
    }
    const last = (this.first + this.count - 1) & mask;
    this.ring[last] = undefined;
    this.settledIds[last] = undefined;
  }

  /** Forgets every pending body (the realm was reloaded from its log). */
  clear(): void {
    this.settledIds.fill(undefined);
    this.ring.fill(undefined);
    this.first = 0;
    this.count = 0;
    this.lowestId = Infinity;
  }

  /** The smallest message id of the pending bodies (O(pending bodies): a few dozen under load). */
  private lowestPendingId(): number {
    let lowest = Infinity;
    const mask = this.ring.length - 1;
    for (let i = 0; i < this.count; i++) {
      const bodies = this.ring[(this.first + i) & mask]!;
      for (let j = 0; j < bodies.length; j++) if (bodies[j]![0] < lowest) lowest = bodies[j]![0];
    }
    return lowest;
  }

  /** Doubles the ring, oldest first at index 0. */
  private grow(): void {
    const mask = this.ring.length - 1;
    const ring = new Array<AppendBodies | undefined>(this.ring.length * 2).fill(undefined);
    const settledIds = new Array<Set<number> | undefined>(this.ring.length * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) {
      ring[i] = this.ring[(this.first + i) & mask];
      settledIds[i] = this.settledIds[(this.first + i) & mask];
    }
    this.ring = ring;
    this.settledIds = settledIds;
    this.first = 0;
  }
}
