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
import type { CommandContext, Decision } from './decision.js';
import { handlers } from './handlers/index.js';

/** `decide` only, typed by command. */
export function decide<C extends Command>(state: RealmState, command: C, ctx: CommandContext): Result<Decision<CommandReply<C>>> {
  const handler = handlers[command.type] as unknown as (s: RealmState, c: C, x: CommandContext) => Result<Decision<CommandReply<C>>>;
  return handler(state, command, ctx);
}

/**
 * `decide` + `evolve`; appends the records to `into` when given. Returns the reply or the
 * handler's error value (the state is untouched then).
 */
export function applyCommand<C extends Command>(
  state: RealmState,
  command: C,
  ctx: CommandContext,
  into?: RealmRecord[],
): Result<CommandReply<C>> {
  const decision = decide(state, command, ctx);
  if (!decision.ok) return decision;
  for (const record of decision.value.records) {
    evolve(state, record);
    into?.push(record);
  }
  return ok(decision.value.reply);
}

/** Message bodies carried by records, for the LMDB bodies table. */
export function bodiesOf(records: readonly RealmRecord[]): Array<[number, MessageBody]> {
  const out: Array<[number, MessageBody]> = [];
  for (const r of records) if (r.type === 'message_sent') out.push([r.id, { content: r.content, rendered: r.rendered }]);
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
