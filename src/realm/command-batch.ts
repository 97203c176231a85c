/**
 * Batching of realm commands per event-loop turn (issue 17: the realm actor's per-input cost).
 *
 * `RealmActor.execute` queues a command; the first command queued in a turn schedules one
 * `setImmediate`, which (in the check phase, right after uWS has read every request of this poll
 * phase) hands each realm's queue to its xstate machine as one input and then issues the LMDB
 * write of everything those commands appended, without waiting for another turn. So N concurrent
 * requests cost one xstate macrostep and one LMDB transaction instead of N of each, and a command
 * waits at most until the end of the turn it arrived in.
 */

/** A realm actor as the batcher sees it. */
export interface BatchedActor {
  /** Hands the commands queued since the last call to the machine (synchronously processed). */
  runQueued(): void;
  /** Issues the appends queued so far to storage now (the commit pipeline permitting). */
  issueWrites(): void;
}

/** Actors with queued commands, run together once per event-loop turn. */
class CommandBatches {
  private ready: BatchedActor[] = [];

  /** Runs `actor.runQueued()` at the end of this turn (called on an actor's first queued command). */
  schedule(actor: BatchedActor): void {
    if (this.ready.push(actor) === 1) setImmediate(this.runAll);
  }

  private readonly runAll = (): void => {
    const actors = this.ready;
    this.ready = [];
    for (const actor of actors) actor.runQueued();
    // Every realm of a server shares one append log: its first call issues all their appends.
    for (const actor of actors) actor.issueWrites();
  };
}

/** The process-wide batcher. */
export const commandBatches = new CommandBatches();
