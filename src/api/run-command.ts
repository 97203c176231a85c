/**
 * The step every write endpoint ends with: run a command in the realm actor (src/README.md: request path) and
 * turn its outcome into the endpoint's answer — the handler's error value as is, or a success
 * body. By default the body is empty (`{"result":"success","msg":""}`): a handler's reply may hold
 * internal values (e.g. a new user's API key) and is exposed only through an explicit `toBody`.
 */
import type { Command, CommandReply } from '../realm/commands.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { EndpointOutcome } from './define-endpoint.js';

/** Resolves once the command is durable (or rejected); rejects only on storage failure/shutdown. */
export async function runCommand<C extends Command>(
  realm: RealmHandle,
  command: C,
  toBody: (reply: CommandReply<C>) => Record<string, unknown> = () => ({}),
): Promise<EndpointOutcome> {
  const result = await realm.execute(command);
  return result.ok ? toBody(result.value) : result.error;
}
