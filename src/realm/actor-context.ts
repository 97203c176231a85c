/**
 * The realm actor's types (realm-actor.ts): what it needs from the outside (`RealmActorDeps`), the
 * inputs of its xstate machine and the context the machine's actions share.
 */
import type { FileStore } from '../storage/file-store.js';
import type { Result } from '../errors.js';
import type { RealmState } from '../domain/realm-state.js';
import type { BodyCache } from './body-cache.js';
import type { CoreEncoder } from './core-encoder.js';
import type { PendingBodies } from './pending-bodies.js';
import type { AppendLog } from '../storage/append-log.js';
import type { SnapshotStore } from '../storage/snapshot-store.js';
import type { Command } from './commands.js';
import type { CommandContext, RealmEvent } from './decision.js';

/**
 * When to write a snapshot: after `everyRecords` records, `everySeconds` seconds with any record,
 * or once `everyDirtyBytes` bytes of column chunks wait to be written. The last one bounds a
 * snapshot's size (and the pause its LMDB transaction costs) where one record writes much: a
 * send to a channel with 1,000 subscribers appends to 1,000 message lists.
 */
export interface SnapshotPolicy {
  everyRecords: number;
  everySeconds: number;
  /** Bytes of dirty column chunks (whole chunks, what the snapshot writes); omitted = no limit. */
  everyDirtyBytes?: number;
}

/** What a realm actor needs from the outside. */
export interface RealmActorDeps {
  log: AppendLog;
  snapshots: SnapshotStore;
  ctx: CommandContext;
  snapshotPolicy: SnapshotPolicy;
  /**
   * Delivers client events after durability, in command order. `commandSeq` is the command's
   * sequence number in the realm (see `RealmHandle.commandSeq`).
   */
  dispatch(realmId: number, commandSeq: number, events: readonly RealmEvent[]): void;
  /** Called once when the actor can no longer guarantee durability. */
  onFatal(realmId: number, error: unknown): void;
  /**
   * Test hook: awaited after each append is durable, before the actor acts on it (reply, events,
   * durable watermark), so a test can hold a write "applied in memory, not yet durable".
   */
  afterAppend?: () => Promise<void>;
  /** The realm's state rebuilt from the durable log (after writes failed on a full disk). */
  recover(): RealmState;
  /** The server's file store (see `RealmHandle.files`). */
  files: FileStore;
}

export type Reply = (result: Result<unknown>) => void;
export type Reject = (error: unknown) => void;

/** One queued command with its caller's promise callbacks. */
export interface QueuedCommand {
  command: Command;
  resolve: Reply;
  reject: Reject;
}

/** Inputs of the xstate machine: batches of commands plus lifecycle signals. */
export type ActorInput =
  | { type: 'COMMANDS'; commands: readonly QueuedCommand[] }
  | { type: 'STOP'; done: () => void }
  | { type: 'FAILED'; error: unknown }
  | { type: 'DISK_FULL' }
  | { type: 'RELOADED' };

export interface ActorContext {
  state: RealmState;
  deps: RealmActorDeps;
  /** Resolves when every record appended so far is durable. */
  durable: Promise<unknown>;
  /** Commands processed so far; the current command's sequence number once incremented. */
  commandSeq: number;
  /** Highest message id whose records are durable (`RealmHandle.durableMessageId`). */
  durableMessageId: number;
  /**
   * Durability of the latest append that changes more than new messages (true: durable, false:
   * failed and taken back), while it is pending; null when none is (`RealmHandle.readBarrier`).
   */
  readBarrier: Promise<boolean> | null;
  /** Bodies appended but not yet durable, readable before LMDB has them (pending-bodies.ts). */
  pendingBodies: PendingBodies;
  /** Durable bodies recently read from LMDB (realm/body-cache.ts). */
  bodyCache: BodyCache;
  /** Set when a command of the current batch sent `FAILED`: the batch's later commands are refused. */
  halted: boolean;
  recordsSinceSnapshot: number;
  /** Packs snapshot cores, keeping the packing of parts the records since did not change. */
  coreEncoder: CoreEncoder;
  /** Records since the dirty column bytes were last summed (`maybeSnapshot`). */
  recordsSinceDirtyCheck: number;
  lastSnapshotAt: number;
  snapshotting: Promise<unknown> | null;
}
