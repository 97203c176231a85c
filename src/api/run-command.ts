/**
 * The step every write endpoint ends with: run a command in the realm actor (`realm/realm-actor.ts`) and
 * turn its outcome into the endpoint's answer — the handler's error value as is, or a success
 * body. By default the body is empty (`{"result":"success","msg":""}`): a handler's reply may hold
 * internal values (e.g. a new user's API key) and is exposed only through an explicit `toBody`,
 * or, for replies that are exactly their wire fields, `runCommandForReply`.
 *
 * Plain `then`s rather than `async` functions: an async wrapper that only forwards the actor's
 * promise costs a generator object and a promise per write (issue 17).
 */
import type { Command, CommandReply } from '../realm/commands.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { Result } from '../errors.js';
import type { EndpointOutcome } from './define-endpoint.js';

/** The default outcome: an empty success body, or the handler's error. */
function emptyBodyOrError(result: Result<unknown>): EndpointOutcome {
  return result.ok ? {} : result.error;
}

/** The reply itself as the success body, or the handler's error. */
function replyOrError(result: Result<Record<string, unknown>>): EndpointOutcome {
  return result.ok ? result.value : result.error;
}

/** Resolves once the command is durable (or rejected); rejects only on storage failure/shutdown. */
export function runCommand<C extends Command>(
  realm: RealmHandle,
  command: C,
  toBody?: (reply: CommandReply<C>) => Record<string, unknown>,
): Promise<EndpointOutcome> {
  const result = realm.execute(command);
  if (toBody === undefined) return result.then(emptyBodyOrError);
  return result.then((outcome) => (outcome.ok ? toBody(outcome.value) : outcome.error));
}

/**
 * `runCommand` whose success body is the handler's reply as is, for commands whose reply holds
 * only wire fields (`send_message`: `id`, `automatic_new_visibility_policy`). The registry's
 * envelope copies those fields into the answer, so the reply is not copied here.
 */
export function runCommandForReply<C extends Command>(
  realm: RealmHandle,
  command: C,
): Promise<EndpointOutcome> {
  return (realm.execute(command) as Promise<Result<Record<string, unknown>>>).then(replyOrError);
}
