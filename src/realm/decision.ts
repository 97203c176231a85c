/**
 * What a handler decides and what it may use to decide (src/README.md: request path). Handlers are pure
 * functions of (state, command, ctx): time and randomness come from `ctx`, so tests can pin them
 * and replay never needs them (the records carry their results).
 */
import type { RealmRecord } from '../domain/records.js';
import type { RealmState } from '../domain/realm-state.js';
import type { Result } from '../errors.js';

/** Injected clock and randomness. */
export interface CommandContext {
  /** Current time in UNIX seconds (fractional). */
  now(): number;
  /** A random string of `length` characters from [A-Za-z0-9]. */
  randomToken(length: number): string;
}

import type { RealmEvent } from '../events/realm-event.js';
export type { RealmEvent };

/**
 * A successful decision: records to persist (in order), events to deliver, and the reply.
 * `followUps` are commands decided right after this decision's records are applied, in the same
 * actor step and the same log commit (e.g. the Notification Bot's message announcing a new
 * channel, which needs the channel to exist). A follow-up that fails is skipped (logged): it
 * never undoes the primary command.
 */
export interface Decision<R> {
  records: RealmRecord[];
  events: RealmEvent[];
  reply: R;
  followUps?: import('./commands.js').Command[];
}

/**
 * The state as `decide` sees it: its fields cannot be reassigned (`evolve` is the only mutator).
 * Shallow on purpose: domain read functions take `RealmState`, and a deeper view (ReadonlyMap /
 * ReadonlySet / ReadonlyArray for the collections) is refused wherever a handler passes the state
 * to one of them (221 places, none of them a mutation), so every read function (about 300
 * signatures; the `evolve` steps excepted) would have to accept the view first.
 */
export type RealmView = Readonly<RealmState>;

/**
 * A handler: `decide`. Returns an error value for expected failures; never throws for them.
 * Reads `state` only (the presence store is the documented exception, see handlers/presence.ts).
 */
export type Handler<C, R> = (state: RealmView, command: C, ctx: CommandContext) => Result<Decision<R>>;
