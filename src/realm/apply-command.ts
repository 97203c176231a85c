/**
 * Runs a command synchronously against a state that no actor owns yet: `decide`, then `evolve`
 * each record. Used to build a new realm's initial records (creation, the demo) so they can be
 * committed in one transaction, and by handler tests.
 */
import { Errors, ok, type Result } from '../errors.js';
import { evolve } from '../domain/evolve.js';
import type { RealmState } from '../domain/realm-state.js';
import type { MessageBody, RealmRecord } from '../domain/records.js';
import type { Command, CommandReply } from './commands.js';
import type { CommandContext, Decision, RealmEvent } from './decision.js';
import { handlers } from './handlers/index.js';

/** `decide` only, typed by command. */
export function decide<C extends Command>(state: RealmState, command: C, ctx: CommandContext): Result<Decision<CommandReply<C>>> {
  const handler = handlers[command.type] as unknown as (s: RealmState, c: C, x: CommandContext) => Result<Decision<CommandReply<C>>>;
  return handler(state, command, ctx);
}

/** Thrown when `evolve` fails on a decided record: memory may now be ahead of the log. */
export class EvolveError extends Error {
  constructor(override readonly cause: unknown) {
    super(`evolve failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** What {@link execute} did: every record applied (primary first, then follow-ups) and their events. */
export interface Execution<R> {
  records: RealmRecord[];
  events: RealmEvent[];
  reply: R;
}

/**
 * `decide` + `evolve`, then the decision's follow-up commands the same way (recursively).
 * Returns the handler's error value with the state untouched, or everything applied. Throws
 * {@link EvolveError} when `evolve` throws (a bug; the caller must stop trusting the state); a
 * handler that throws propagates as is (nothing was applied yet for that command).
 */
export function execute<C extends Command>(state: RealmState, command: C, ctx: CommandContext): Result<Execution<CommandReply<C>>> {
  const decision = decide(state, command, ctx);
  if (!decision.ok) return decision;
  const { records, events, reply, followUps } = decision.value;
  evolveAll(state, records);
  // The decision is its own execution when nothing follows (no re-wrapping on the send path).
  if (followUps === undefined || followUps.length === 0) return decision;
  const allRecords = [...records];
  const allEvents = [...events];
  for (const next of followUps) {
    let result;
    try {
      result = execute(state, next, ctx);
    } catch (error) {
      if (error instanceof EvolveError) throw error;
      console.error(`follow-up ${next.type} threw`, error);
      continue;
    }
    if (!result.ok) {
      console.error(`follow-up ${next.type} rejected: ${result.error.message}`);
      continue;
    }
    allRecords.push(...result.value.records);
    allEvents.push(...result.value.events);
  }
  return ok({ records: allRecords, events: allEvents, reply });
}

function evolveAll(state: RealmState, records: readonly RealmRecord[]): void {
  try {
    for (const record of records) evolve(state, record);
  } catch (error) {
    throw new EvolveError(error);
  }
}

/**
 * {@link execute}, appending the records to `into` when given. Returns the reply or the
 * handler's error value (the state is untouched then).
 */
export function applyCommand<C extends Command>(
  state: RealmState,
  command: C,
  ctx: CommandContext,
  into?: RealmRecord[],
): Result<CommandReply<C>> {
  const result = execute(state, command, ctx);
  if (!result.ok) return result;
  into?.push(...result.value.records);
  return ok(result.value.reply);
}

/** Message bodies carried by records, for the LMDB bodies table. */
export function bodiesOf(records: readonly RealmRecord[]): Array<[number, MessageBody]> {
  const out: Array<[number, MessageBody]> = [];
  for (const r of records) if (r.type === 'message_sent') out.push([r.id, { content: r.content, rendered: r.rendered }]);
  // Content edits replace the body (message-edits.ts).
  for (const r of records) if (r.type === 'message_edited' && r.content !== undefined) out.push([r.messageId, { content: r.content.content, rendered: r.content.rendered }]);
  return out;
}

/** A function that runs one setup command and returns its reply, throwing on rejection. */
export type SetupRunner = <C extends Command>(command: C) => CommandReply<C>;

/** A `SetupRunner` over `state` that collects records into `into`. */
export function setupRunner(state: RealmState, ctx: CommandContext, into: RealmRecord[]): SetupRunner {
  return (command) => {
    const result = applyCommand(state, command, ctx, into);
    if (!result.ok) throw Errors.badRequest(`${command.type}: ${result.error.message}`);
    return result.value;
  };
}
