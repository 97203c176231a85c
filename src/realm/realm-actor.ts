/**
 * The realm actor (src/README.md: request path): one xstate v5 actor per organization that owns the
 * realm's state and processes commands one at a time.
 *
 * Vocabulary: xstate calls every input an "event"; here those inputs are **commands** (and a few
 * lifecycle signals). "Event" in parley means only a Zulip client event (`RealmEvent`).
 *
 * Commands reach the machine in batches: `execute` queues a command and one `setImmediate` per
 * event-loop turn hands every realm's queued commands to its machine as one `COMMANDS` input (the
 * per-input cost of xstate's macrostep is then paid once per turn, not once per request), then
 * issues the LMDB write at once (see command-batch.ts). Within a batch commands are processed one
 * at a time, in arrival order, exactly as single inputs were.
 *
 * For each command: `decide` (pure handler) → `evolve` each record into the live state at once
 * (so the next command sees it) → append the records to the LMDB log → when the log reports them
 * durable, reply and dispatch the client events. Appends issued in one event-loop turn share one
 * LMDB commit (group commit), and durability promises resolve in order, so replies and events
 * leave in command order. An error decision is also answered only after every earlier command is
 * durable: it may have been decided on their effects. The durable-message watermark
 * (`durableMessageId`) advances with each durable append, so reads never show a message that a
 * crash could still take back Every other change (edits, moves, deletions, flags, reactions, settings...)
 * sets the read barrier (`readBarrier`): a read computed while it is pending is answered only
 * once that append is durable (api/durable-read.ts).
 *
 * A storage failure or a throw inside `evolve` (a bug) leaves memory ahead of disk; the actor then
 * goes to `failed`, rejects everything, and reports through `onFatal` so the process can exit and
 * recover from the durable log — nothing unacknowledged was acknowledged.
 *
 * A full data disk is not fatal: while the disk is below its reserve, commands are
 * answered `Errors.diskFull()` (HTTP 507) before they are decided, so memory stays equal to the
 * log; reads and event queues are untouched. If space vanishes between that check and the write,
 * the failed appends are answered 507 too, and the actor reloads the realm from the durable log
 * (`deps.recover`, state `reloading`) before taking commands again. Writes resume by themselves
 * once there is space.
 */
import type { FileStore } from '../storage/file-store.js';
import { createActor, setup } from 'xstate';
import type { ActorContext, ActorInput, QueuedCommand, RealmActorDeps, Reply } from './actor-context.js';
import { maybeSnapshot } from './actor-snapshot.js';
import { Errors, ok, type Result } from '../errors.js';
import type { RealmState } from '../domain/realm-state.js';
import type { MessageBody, RealmRecord } from '../domain/records.js';
import { BodyCache } from './body-cache.js';
import { PendingBodies } from './pending-bodies.js';
import { DAMAGED_BODY, reportDamagedBody } from './damaged-body.js';
import { StorageCorruptionError } from '../storage/codec.js';
import { isDiskFull } from '../storage/disk-space.js';
import type { Command, CommandReply } from './commands.js';
import type { RealmHandle } from './realm-handle.js';
import { log } from '../log.js';
import { bodiesOf, execute, EvolveError } from './apply-command.js';

export type { RealmActorDeps, SnapshotPolicy } from './actor-context.js';
import { commandBatches } from './command-batch.js';
import { CoreEncoder } from './core-encoder.js';


/**
 * Processes a batch in order. A command that finds the realm failed (an earlier one of the batch
 * hit an `evolve` bug and sent `FAILED`, which the machine takes only after this batch) is
 * refused like the `failed` state refuses it.
 */
function processBatch(self: { send(input: ActorInput): void }, c: ActorContext, commands: readonly QueuedCommand[]): void {
  for (const queued of commands) {
    if (c.halted) refuseNotReady(queued);
    else process(self, c, queued);
  }
}

/** Returns after deciding, evolving and appending one command (its reply waits for durability). */
function process(self: { send(input: ActorInput): void }, c: ActorContext, input: QueuedCommand): void {
  const { command, resolve, reject } = input;
  const seq = ++c.commandSeq;
  if (c.deps.log.diskFull()) {
    refuseDiskFull(c, input);
    return;
  }
  let decision;
  try {
    decision = execute(c.state, command, c.deps.ctx);
  } catch (error) {
    if (error instanceof EvolveError) {
      c.halted = true;
      self.send({ type: 'FAILED', error });
      reject(error);
      return;
    }
    log.error({ err: error, realm_id: c.state.id, command: command.type }, 'command handler threw');
    c.durable.then(() => resolve({ ok: false, error: Errors.internal() }), reject);
    return;
  }
  if (!decision.ok || decision.value.records.length === 0) {
    const result: Result<unknown> = decision.ok ? ok(decision.value.reply) : decision;
    const events = decision.ok ? decision.value.events : [];
    c.durable.then(() => {
      resolve(result);
      if (events.length) c.deps.dispatch(c.state.id, seq, events);
    }, reject);
    // Record-less presence changes are persisted only by snapshots (domain/presence.ts).
    if (c.state.presence.dirty) maybeSnapshot(c, false);
    return;
  }
  const { records, events, reply } = decision.value;
  const bodies = bodiesOf(records);
  c.pendingBodies.add(bodies);
  for (const [id] of bodies) c.bodyCache.forget(id);
  const append = c.deps.log.append(c.state.id, records, bodies);
  const hook = c.deps.afterAppend;
  const appended = hook === undefined ? append : append.then(hook);
  // Every message id allocated so far, this command's included, is durable with this append.
  const messagesUpTo = c.state.nextIds.message - 1;
  c.durable = appended.then(
    () => {
      if (messagesUpTo > c.durableMessageId) c.durableMessageId = messagesUpTo;
      // A later in-flight command may have replaced a body (message edits): that one stays pending.
      c.pendingBodies.settle(bodies);
      resolve(ok(reply));
      if (events.length) c.deps.dispatch(c.state.id, seq, events);
    },
    (error) => {
      if (isDiskFull(error)) {
        // Nothing of this command is on disk: memory is reloaded from the log (state `reloading`).
        self.send({ type: 'DISK_FULL' });
        resolve({ ok: false, error: Errors.diskFull() });
        return;
      }
      self.send({ type: 'FAILED', error });
      reject(error);
    },
  );
  if (changesMoreThanNewMessages(records)) raiseReadBarrier(c, appended);
  c.recordsSinceSnapshot += records.length;
  c.recordsSinceDirtyCheck += records.length;
  c.coreEncoder.noteRecords(records);
  maybeSnapshot(c, false);
}

/**
 * Whether an append needs the read barrier: anything but a plain send. A send's automatic
 * follow/unmute of the topic (Zulip's `visibility_policy_for_send_message`, a `user_topic_set`
 * beside the `message_sent`) counts as part of the send, so sends, the hot path, never hold
 * reads; only the sender's own followed/muted-topic views can show that follow before it is durable.
 */
function changesMoreThanNewMessages(records: readonly RealmRecord[]): boolean {
  const sends = records.some((r) => r.type === 'message_sent');
  return records.some((r) => r.type !== 'message_sent' && !(sends && r.type === 'user_topic_set'));
}

/**
 * A new message is hidden from readers by the durable-message watermark until it is durable; any
 * other change (an edit, a move, flags, a reaction, a setting) is already in the state readers
 * query, so reads answered meanwhile must wait for this append (api/durable-read.ts).
 */
function raiseReadBarrier(c: ActorContext, appended: Promise<unknown>): void {
  const barrier = appended.then(
    () => true,
    () => false,
  );
  c.readBarrier = barrier;
  void barrier.then(() => {
    if (c.readBarrier === barrier) c.readBarrier = null;
  });
}

/** Answers a command 503 SERVER_NOT_READY (the realm failed or stopped). */
function refuseNotReady(input: QueuedCommand): void {
  input.resolve({ ok: false, error: Errors.serverNotReady() });
}

/** Answers a command 507 (in command order: after every earlier command's reply). */
function refuseDiskFull(c: ActorContext, input: QueuedCommand): void {
  c.durable.then(() => input.resolve({ ok: false, error: Errors.diskFull() }), input.reject);
}

/**
 * Replaces the live state with the durable one once every append in flight has settled; then
 * `RELOADED` (or `FAILED` if the log cannot be read back).
 */
function reload(self: { send(input: ActorInput): void }, c: ActorContext): void {
  const settled = c.durable.then(
    () => undefined,
    () => undefined,
  );
  c.durable = settled.then(() => {
    try {
      const before = c.state;
      const state = c.deps.recover();
      state.subdomain = before.subdomain;
      state.host = before.host;
      c.state = state;
      c.pendingBodies.clear();
      c.bodyCache = new BodyCache();
      c.recordsSinceSnapshot = 0;
      c.coreEncoder.clear();
      console.error(`realm ${state.id}: the data disk is full; writes failed and the realm was reloaded from its log`);
      self.send({ type: 'RELOADED' });
    } catch (error) {
      self.send({ type: 'FAILED', error });
    }
  });
}

const realmMachine = setup({
  types: {
    context: {} as ActorContext,
    events: {} as ActorInput,
    input: {} as ActorContext,
  },
  actions: {
    process: ({ context, event, self }) => {
      if (event.type === 'COMMANDS') processBatch(self, context, event.commands);
    },
    refuse: ({ event }) => {
      if (event.type === 'COMMANDS') for (const queued of event.commands) refuseNotReady(queued);
    },
    refuseDiskFull: ({ context, event }) => {
      if (event.type !== 'COMMANDS') return;
      for (const queued of event.commands) {
        context.commandSeq++;
        refuseDiskFull(context, queued);
      }
    },
    reload: ({ context, self }) => reload(self, context),
    fail: ({ context, event }) => {
      if (event.type === 'FAILED') context.deps.onFatal(context.state.id, event.error);
    },
    alreadyStopped: ({ event }) => {
      if (event.type === 'STOP') event.done();
    },
    drain: ({ context, event }) => {
      if (event.type !== 'STOP') return;
      context.durable.then(
        () => maybeSnapshot(context, true).then(event.done),
        () => event.done(),
      );
    },
  },
}).createMachine({
  id: 'realm',
  context: ({ input }) => input,
  initial: 'running',
  states: {
    running: {
      on: {
        COMMANDS: { actions: 'process' },
        STOP: { target: 'stopped', actions: 'drain' },
        FAILED: { target: 'failed', actions: 'fail' },
        DISK_FULL: { target: 'reloading', actions: 'reload' },
      },
    },
    reloading: {
      on: {
        COMMANDS: { actions: 'refuseDiskFull' },
        RELOADED: { target: 'running' },
        STOP: { target: 'stopped', actions: 'drain' },
        FAILED: { target: 'failed', actions: 'fail' },
      },
    },
    failed: {
      on: { COMMANDS: { actions: 'refuse' }, STOP: { actions: 'drain' } },
    },
    stopped: {
      // A second stop (e.g. server close after an operator stopped the realm) has nothing to do.
      on: { COMMANDS: { actions: 'refuse' }, STOP: { actions: 'alreadyStopped' } },
    },
  },
});

/**
 * The actor and command `execute` is queueing, for `enqueue`: the Promise executor runs
 * synchronously inside `new Promise`, so one shared executor replaces a closure per command.
 */
let enqueueing: RealmActor | null = null;
let enqueuedCommand: Command | null = null;

/** `execute`'s Promise executor (see `enqueueing`). */
function enqueue(resolve: Reply, reject: (error: unknown) => void): void {
  enqueueing!.enqueue(enqueuedCommand!, resolve, reject);
}

/** A running realm: the `RealmHandle` the API layer uses, backed by the xstate actor. */
export class RealmActor implements RealmHandle {
  private readonly actor;
  /** Commands `execute` received since the last batch. */
  private queued: QueuedCommand[] = [];

  constructor(
    state: RealmState,
    private readonly deps: RealmActorDeps,
  ) {
    const input: ActorContext = {
      state,
      deps,
      durable: Promise.resolve(),
      commandSeq: 0,
      // Recovered state is all durable.
      durableMessageId: state.nextIds.message - 1,
      readBarrier: null,
      pendingBodies: new PendingBodies(),
      bodyCache: new BodyCache(),
      halted: false,
      recordsSinceSnapshot: 0,
      coreEncoder: new CoreEncoder(),
      recordsSinceDirtyCheck: 0,
      lastSnapshotAt: Date.now(),
      snapshotting: null,
    };
    this.actor = createActor(realmMachine, { input });
    this.actor.start();
  }

  /**
   * The machine's live context. xstate copies the input object, so the one passed in is NOT the
   * one the actions mutate; the machine never `assign`s, so this object stays the same for life.
   */
  private get context(): ActorContext {
    return this.actor.getSnapshot().context;
  }

  get id(): number {
    return this.context.state.id;
  }

  get subdomain(): string {
    return this.context.state.subdomain;
  }

  get host(): string {
    return this.context.state.host;
  }

  get url(): string {
    return this.context.state.url;
  }

  get state(): RealmState {
    return this.context.state;
  }

  get files(): FileStore {
    return this.deps.files;
  }

  /** False once the realm stopped (shutdown) or failed (it can no longer guarantee durability). */
  get running(): boolean {
    return this.actor.getSnapshot().value === 'running';
  }

  get commandSeq(): number {
    return this.context.commandSeq;
  }

  get durableMessageId(): number {
    return this.context.durableMessageId;
  }

  readBarrier(): Promise<boolean> | null {
    return this.context.readBarrier;
  }

  whenDurable(): Promise<void> {
    return this.context.durable.then(
      () => undefined,
      () => undefined,
    );
  }

  execute<C extends Command>(command: C): Promise<Result<CommandReply<C>>> {
    enqueueing = this;
    enqueuedCommand = command;
    try {
      return new Promise(enqueue) as Promise<Result<CommandReply<C>>>;
    } finally {
      enqueueing = null;
      enqueuedCommand = null;
    }
  }

  /**
   * Queues `command` with its caller's promise callbacks; the first of a turn schedules the batch.
   * Only for `execute` (through its shared executor); other callers use `execute`.
   */
  enqueue(command: Command, resolve: Reply, reject: (error: unknown) => void): void {
    this.queued.push({ command, resolve, reject });
    if (this.queued.length === 1) commandBatches.schedule(this);
  }

  /** Hands the queued commands to the machine as one input (command-batch.ts calls it). */
  runQueued(): void {
    if (this.queued.length === 0) return;
    const commands = this.queued;
    this.queued = [];
    this.actor.send({ type: 'COMMANDS', commands });
  }

  /** Issues the appends of the commands just run (one LMDB transaction for every realm's). */
  issueWrites(): void {
    this.deps.log.issueNow();
  }

  /**
   * A message's stored body (raw Markdown and HTML), including not-yet-durable ones; the
   * `DAMAGED_BODY` marker (logged once) when the stored body fails its checksum (damaged-body.ts).
   */
  messageBody(messageId: number): MessageBody | undefined {
    const c = this.context;
    const body = c.pendingBodies.get(messageId) ?? c.bodyCache.get(messageId);
    if (body !== undefined) return body;
    let stored: MessageBody | undefined;
    try {
      stored = this.deps.log.getBody(c.state.id, messageId) as MessageBody | undefined;
    } catch (error) {
      if (!(error instanceof StorageCorruptionError)) throw error;
      reportDamagedBody(c.state.id, messageId, error);
      return DAMAGED_BODY;
    }
    if (stored !== undefined) c.bodyCache.put(messageId, stored);
    return stored;
  }

  /** Finishes in-flight commands, writes a final snapshot, and refuses further commands. */
  stop(): Promise<void> {
    this.runQueued(); // commands queued before the stop are processed before it
    return new Promise((done) => this.actor.send({ type: 'STOP', done }));
  }
}
