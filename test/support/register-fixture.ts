/**
 * Helpers of the `buildRegisterState` tests (test/events/register-state*.test.ts): registering a
 * user of the small realm with default options, sending a channel message, setting flag bits.
 */
import { run, type SmallRealm } from './realm-fixture.js';
import { buildRegisterState, type RegisterStateOptions } from '../../src/events/register-state.js';
import type { SendMessage } from '../../src/realm/commands.js';

/** A register response, as JSON. */
export type State = Record<string, any>;

/** Default `POST /register` options (every fetch type, markdown, legacy presence). */
export const baseOpts: RegisterStateOptions = {
  fetchEventTypes: null,
  applyMarkdown: true,
  clientGravatar: true,
  slimPresence: false,
  includeSubscribers: true,
  allPublicStreams: false,
  narrow: [],
  clientCapabilities: {},
  realmUrl: 'http://127.0.0.1:9991',
  now: 1_700_000_500.25,
};

/** The register state of user `userId` with {@link baseOpts} overridden by `over`. */
export function register(r: SmallRealm, userId: number, over: Partial<RegisterStateOptions> = {}): State {
  return buildRegisterState(r.state, r.state.users.get(userId)!, { ...baseOpts, ...over });
}

/** Sends a channel message (default: "general", topic "t") and returns its id. */
export function send(r: SmallRealm, cmd: Partial<SendMessage> & { senderId: number }): number {
  return run(
    r.state,
    { type: 'send_message', messageType: 'stream', to: 'general', topic: 't', content: 'x', client: 'test', ...cmd },
    r.ctx,
  ).id;
}

/** Sets extra UserMessage flag bits on an existing row. */
export function addFlags(r: SmallRealm, userId: number, messageId: number, bits: number): void {
  const rows = r.state.messages.users.get(userId)!;
  const i = rows.indexOf(messageId);
  rows.flags.set(i, rows.flags.get(i) | bits);
}
