/**
 * Zulip's `verify_action` (zerver/tests/test_events.py) for parley: every feature test that
 * changes state proves that its events are correct by
 *
 * 1. registering an event queue (`POST /register`) and keeping the initial state,
 * 2. performing the action,
 * 3. polling `GET /events?dont_block=true` for the events it caused,
 * 4. checking each event against its typebox schema (`checkEvent`),
 * 5. folding the events into the initial state with `applyEvent` (a client-side model of
 *    Zulip's `apply_events`), and
 * 6. registering again and asserting that the folded state equals the fresh one, ignoring the
 *    keys that legitimately differ (`queue_id`, `last_event_id`, `server_timestamp`).
 *
 * A new event type needs a schema in `src/events/schemas.ts` and a case in `applyEvent`
 * (`event-folds.ts`); an event without either fails the test, which is the point.
 */
import type { Caller, TestServer } from './test-server.js';
import { checkEvent, checkRegisterState } from '../../src/events/schemas.js';
import { applyEvent, type FoldContext } from './event-folds.js';

export { applyEvent, type FoldContext } from './event-folds.js';

type Json = Record<string, any>;

/** The assertions `verifyAction` needs (a tap `Test` has them). */
export interface Asserts {
  same(found: unknown, wanted: unknown, ...message: any[]): boolean;
  notSame(found: unknown, wanted: unknown, ...message: any[]): boolean;
  equal(found: unknown, wanted: unknown, ...message: any[]): boolean;
  fail(...message: any[]): boolean;
}

export interface VerifyActionOptions<R> {
  /** The register's `event_types`; omitted = every type. */
  eventTypes?: string[];
  /** The register's `fetch_event_types`; omitted = the event types. Events of other types are not folded. */
  fetchEventTypes?: string[];
  /** Other register parameters: `apply_markdown`, `client_gravatar`, `slim_presence`, `include_subscribers`, `client_capabilities`, `narrow`, `all_public_streams`. */
  registerParams?: Record<string, unknown>;
  /** The action under test (usually calls as another user). */
  action: () => Promise<R>;
  /** Exactly this many events must arrive; omitted = collect until the queue stays quiet. */
  numEvents?: number;
  /** Assert that the state did (true) or did not (false) change; omitted = not checked. */
  stateChangeExpected?: boolean;
}

export interface VerifyActionResult<R> {
  /** The events received, in order, with their queue ids. */
  events: Json[];
  /** What `action` returned. */
  actionResult: R;
  /** Initial state, folded state (= the fresh one when the test passed). */
  before: Json;
  after: Json;
}

/** Keys that differ between two registrations without any state change. */
const VOLATILE_KEYS = ['queue_id', 'last_event_id', 'server_timestamp', 'result', 'msg'];

function withoutVolatile(state: Json): Json {
  const copy: Json = structuredClone(state);
  for (const key of VOLATILE_KEYS) delete copy[key];
  return copy;
}

/** Removes `first_message_id` from the unsubscribed (or all) channel objects of a register state, in place; returns it. */
function dropFirstMessageIds(state: Json, allChannels: boolean): Json {
  for (const key of allChannels ? ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams'] : ['unsubscribed', 'never_subscribed', 'streams']) {
    for (const stream of (state[key] as Json[] | undefined) ?? []) delete stream.first_message_id;
  }
  return state;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Register parameters as the HTTP helper sends them (non-strings JSON-encoded). */
function registerParams<R>(opts: VerifyActionOptions<R>): Record<string, unknown> {
  const params: Record<string, unknown> = { ...opts.registerParams };
  if (opts.eventTypes !== undefined) params.event_types = opts.eventTypes;
  if (opts.fetchEventTypes !== undefined) params.fetch_event_types = opts.fetchEventTypes;
  return params;
}

async function registerQueue(t: Asserts, caller: Caller, params: Record<string, unknown>, label: string): Promise<Json> {
  const reply = await caller.call('POST', '/register', params);
  if (reply.status !== 200) {
    t.fail(`${label}: POST /register answered ${reply.status} ${JSON.stringify(reply.body)}`);
    throw new Error('register failed');
  }
  t.same(checkRegisterState(reply.body), [], `${label}: register response matches its schema`);
  return reply.body;
}

/**
 * Polls the queue with `dont_block=true` until `numEvents` (> 0) arrived (then one more poll to
 * catch extras), or otherwise until two polls in a row 30 ms apart bring nothing. Gives up after
 * 3 s. Events are acknowledged as they are read (`last_event_id`).
 */
async function collectEvents(caller: Caller, queueId: string, lastEventId: number, numEvents?: number): Promise<Json[]> {
  const events: Json[] = [];
  let last = lastEventId;
  let quiet = 0;
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const reply = await caller.call('GET', '/events', { queue_id: queueId, last_event_id: last, dont_block: true });
    if (reply.status !== 200) throw new Error(`GET /events answered ${reply.status} ${JSON.stringify(reply.body)}`);
    const batch: Json[] = reply.body.events;
    for (const event of batch) {
      events.push(event);
      last = Math.max(last, event.id);
    }
    if (batch.length > 0) quiet = 0;
    else quiet++;
    // Expected events all in and one quiet poll after them; expecting none (or an unknown
    // number) takes two quiet polls, so a late event still gets caught.
    if (numEvents !== undefined && numEvents > 0 ? events.length >= numEvents && quiet >= 1 : quiet >= 2) break;
    await sleep(30);
  }
  return events;
}

/** Runs the verify-action protocol (see the module comment) for `caller`'s queue. */
export async function verifyAction<R>(
  t: Asserts,
  server: TestServer,
  caller: Caller,
  opts: VerifyActionOptions<R>,
): Promise<VerifyActionResult<R>> {
  void server;
  const params = registerParams(opts);
  const initial = await registerQueue(t, caller, params, 'initial');
  const actionResult = await opts.action();
  const events = await collectEvents(caller, initial.queue_id, initial.last_event_id, opts.numEvents);
  if (opts.numEvents !== undefined) {
    t.equal(events.length, opts.numEvents, `number of events (${events.map((e) => e.type).join(', ') || 'none'})`);
  }
  for (const event of events) t.same(checkEvent(event), [], `event ${event.id} (${event.type}) matches its schema`);

  const before = withoutVolatile(initial);
  const folded = structuredClone(before);
  const fetchTypes = opts.fetchEventTypes ?? opts.eventTypes;
  const user = { id: caller.userId };
  const ctx: FoldContext = { refetched: await deletionRefetch(caller, events) };
  for (const event of events) {
    // As Zulip's apply_events: events of types outside fetch_event_types are not folded.
    if (fetchTypes !== undefined && !fetchTypes.includes(event.type)) continue;
    applyEvent(folded, event, user, ctx);
  }
  const fresh = await registerQueue(t, caller, params, 'fresh');
  const after = withoutVolatile(fresh);
  // Zulip sets a channel's first_message_id on send without a `stream` event (clients take it
  // from the `message` event), so it is not foldable without message events, nor for channels
  // the user is not subscribed to (no message events for those).
  const allChannels = fetchTypes !== undefined && !fetchTypes.includes('message');
  const [b, f, a] = [before, folded, after].map((state) => dropFirstMessageIds(structuredClone(state), allChannels));
  t.same(f, a, 'initial state + events = fresh state');
  if (opts.stateChangeExpected === true) t.notSame(b, a, 'the action changed the state');
  if (opts.stateChangeExpected === false) t.same(b, a, 'the action did not change the state');

  await caller.call('DELETE', '/events', { queue_id: initial.queue_id });
  await caller.call('DELETE', '/events', { queue_id: fresh.queue_id });
  return { events, actionResult, before, after: folded };
}



/**
 * Zulip's apply_event for `delete_message` recomputes `max_message_id` and
 * `recent_private_conversations` from the database; the harness reads them the same way, with a
 * register fetching only those (its queue deleted at once). Undefined when no deletion arrived.
 */
async function deletionRefetch(caller: Caller, events: readonly Json[]): Promise<Json | undefined> {
  if (!events.some((e) => e.type === 'delete_message')) return undefined;
  const reply = await caller.call('POST', '/register', { fetch_event_types: ['message', 'recent_private_conversations'], event_types: ['heartbeat'] });
  if (reply.status !== 200) throw new Error(`refetch register answered ${reply.status} ${JSON.stringify(reply.body)}`);
  await caller.call('DELETE', '/events', { queue_id: reply.body.queue_id });
  return reply.body;
}
