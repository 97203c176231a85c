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
 * A new event type needs a schema in `src/events/schemas.ts` and a case in `applyEvent` here;
 * an event without either fails the test, which is the point.
 */
import type { Caller, TestServer } from './test-server.js';
import { checkEvent, checkRegisterState } from '../../src/events/schemas.js';
import { applySubscriptionEvent } from './subscription-folds.js';
import { applyStreamEvent } from './stream-folds.js';

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

/** What a fold may need beyond the event (Zulip's apply_event queries the database for some). */
export interface FoldContext {
  /** `max_message_id` and `recent_private_conversations` read after the events (delete_message). */
  refetched?: Json;
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

/**
 * Zulip's `remove_message_id_from_unread_mgs` on an aggregated `unread_msgs`: the id leaves its
 * bucket (an emptied bucket goes) and `mentions`; `count` drops for direct messages and unmuted
 * channels, as the aggregation counts them.
 */
function removeUnreadMessage(unread: Json, state: Json, id: number): void {
  for (const key of ['pms', 'huddles', 'streams'] as const) {
    const buckets = unread[key] as Json[];
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      const at = (bucket.unread_message_ids as number[]).indexOf(id);
      if (at < 0) continue;
      bucket.unread_message_ids.splice(at, 1);
      if (key !== 'streams' || !isStreamMuted(state, bucket.stream_id)) unread.count -= 1;
      if (bucket.unread_message_ids.length === 0) buckets.splice(i, 1);
      break;
    }
  }
  unread.mentions = (unread.mentions as number[]).filter((m) => m !== id);
}

/** Python-style string order (by code point), as Zulip sorts topic buckets. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

const ascending = (a: number, b: number) => a - b;

/** Whether the user muted the channel, as far as the state shows (no subscriptions fetched = no). */
function isStreamMuted(state: Json, streamId: number): boolean {
  const sub = (state.subscriptions as Json[] | undefined)?.find((s) => s.stream_id === streamId);
  return sub?.is_muted === true;
}

/** Adds a new unread message to an aggregated `unread_msgs` (Zulip's `apply_unread_message_event`). */
function applyUnreadMessage(unread: Json, state: Json, message: Json, flags: string[], user: { id: number }): void {
  const id: number = message.id;
  let counted = true;
  let wildcardCounts = true;
  if (message.type === 'stream') {
    const topic: string = message.subject;
    const lower = topic.toLowerCase();
    const buckets: Json[] = unread.streams;
    let bucket = buckets.find((b) => b.stream_id === message.stream_id && b.topic.toLowerCase() === lower);
    if (bucket === undefined) {
      bucket = { stream_id: message.stream_id, topic, unread_message_ids: [] };
      buckets.push(bucket);
      buckets.sort((a, b) => a.stream_id - b.stream_id || compareCodePoints(a.topic.toLowerCase(), b.topic.toLowerCase()));
    }
    bucket.unread_message_ids.push(id);
    bucket.unread_message_ids.sort(ascending);
    counted = !isStreamMuted(state, message.stream_id);
    wildcardCounts = counted;
  } else {
    const recipients: Json[] = message.display_recipient;
    const others = recipients.filter((r) => r.id !== user.id);
    if (others.length <= 1) {
      const other = others.length === 1 ? others[0]!.id : user.id;
      let bucket = (unread.pms as Json[]).find((b) => b.other_user_id === other);
      if (bucket === undefined) {
        bucket = { other_user_id: other, sender_id: other, unread_message_ids: [] };
        unread.pms.push(bucket);
        unread.pms.sort((a: Json, b: Json) => a.other_user_id - b.other_user_id);
      }
      bucket.unread_message_ids.push(id);
      bucket.unread_message_ids.sort(ascending);
    } else {
      const key = recipients.map((r) => r.id as number).sort(ascending).join(',');
      let bucket = (unread.huddles as Json[]).find((b) => b.user_ids_string === key);
      if (bucket === undefined) {
        bucket = { user_ids_string: key, unread_message_ids: [] };
        unread.huddles.push(bucket);
        unread.huddles.sort((a: Json, b: Json) => compareCodePoints(a.user_ids_string, b.user_ids_string));
      }
      bucket.unread_message_ids.push(id);
      bucket.unread_message_ids.sort(ascending);
    }
  }
  if (counted) unread.count += 1;
  const wildcard = flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned');
  if (flags.includes('mentioned') || (wildcard && wildcardCounts)) {
    if (!unread.mentions.includes(id)) {
      unread.mentions.push(id);
      unread.mentions.sort(ascending);
    }
  }
}

/**
 * Zulip's apply_event for `update_message_flags` (events.py, with `aggregate_unread_data` done on
 * the aggregated form): add/read removes the ids from every `unread_msgs` bucket and from
 * `mentions` (`count` drops for direct messages and channels the user has not muted);
 * `all: true` (mark all as read, sent with `messages: []`) empties `unread_msgs` (parley's
 * addition: Zulip's apply_event ignores `all`, its clients reload); remove/read adds each
 * `message_details` entry (`add_message_to_unread_msgs`); starred adds to / removes from
 * `starred_messages`.
 */
function applyUpdateMessageFlags(state: Json, event: Json, user: { id: number }): void {
  // Every listed id has a row now (starring creates "historical" rows), and `max_message_id` is
  // the user's highest row: a client model must raise it (Zulip's apply_event does not).
  if (typeof state.max_message_id === 'number') state.max_message_id = Math.max(state.max_message_id, ...event.messages);
  const unread = state.unread_msgs as Json | undefined;
  if (unread !== undefined && event.flag === 'read' && event.op === 'add') {
    if (event.all === true) {
      Object.assign(unread, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
    }
    const gone = new Set<number>(event.messages);
    for (const key of ['pms', 'streams', 'huddles']) {
      unread[key] = (unread[key] as Json[]).filter((bucket) => {
        const before = bucket.unread_message_ids.length;
        bucket.unread_message_ids = (bucket.unread_message_ids as number[]).filter((id) => !gone.has(id));
        const removed = before - bucket.unread_message_ids.length;
        if (key !== 'streams' || !isStreamMuted(state, bucket.stream_id)) unread.count -= removed;
        return bucket.unread_message_ids.length > 0;
      });
    }
    unread.mentions = (unread.mentions as number[]).filter((id) => !gone.has(id));
  }
  if (unread !== undefined && event.flag === 'read' && event.op === 'remove') {
    for (const [key, details] of Object.entries(event.message_details as Record<string, Json>)) {
      const id = Number(key);
      if (details.mentioned === true && !unread.mentions.includes(id)) {
        unread.mentions.push(id);
        unread.mentions.sort(ascending);
      }
      let bucket: Json | undefined;
      if (details.type === 'stream') {
        const lower = (details.topic as string).toLowerCase();
        bucket = (unread.streams as Json[]).find((b) => b.stream_id === details.stream_id && b.topic.toLowerCase() === lower);
        if (bucket === undefined) {
          bucket = { stream_id: details.stream_id, topic: details.topic, unread_message_ids: [] };
          unread.streams.push(bucket);
          unread.streams.sort((a: Json, b: Json) => a.stream_id - b.stream_id || compareCodePoints(a.topic.toLowerCase(), b.topic.toLowerCase()));
        } else if (id < Math.min(...(bucket.unread_message_ids as number[]))) {
          // The bucket is named after its oldest message's topic.
          bucket.topic = details.topic;
        }
        if (details.unmuted_stream_msg) unread.count += 1;
      } else {
        const others = (details.user_ids as number[]).filter((u) => u !== user.id);
        if (others.length <= 1) {
          const other = others.length === 1 ? others[0]! : user.id;
          bucket = (unread.pms as Json[]).find((b) => b.other_user_id === other);
          if (bucket === undefined) {
            bucket = { other_user_id: other, sender_id: other, unread_message_ids: [] };
            unread.pms.push(bucket);
            unread.pms.sort((a: Json, b: Json) => a.other_user_id - b.other_user_id);
          }
        } else {
          const key2 = [...others, user.id].sort(ascending).join(',');
          bucket = (unread.huddles as Json[]).find((b) => b.user_ids_string === key2);
          if (bucket === undefined) {
            bucket = { user_ids_string: key2, unread_message_ids: [] };
            unread.huddles.push(bucket);
            unread.huddles.sort((a: Json, b: Json) => compareCodePoints(a.user_ids_string, b.user_ids_string));
          }
        }
        unread.count += 1;
      }
      if (!bucket.unread_message_ids.includes(id)) {
        bucket.unread_message_ids.push(id);
        bucket.unread_message_ids.sort(ascending);
      }
    }
  }
  const starred = state.starred_messages as number[] | undefined;
  if (starred !== undefined && event.flag === 'starred') {
    // Zulip appends; register lists ascending ids, so the fold keeps them sorted.
    if (event.op === 'add') state.starred_messages = [...new Set([...starred, ...event.messages])].sort(ascending);
    else state.starred_messages = starred.filter((id) => !(event.messages as number[]).includes(id));
  }
}

/**
 * Zulip's apply_event for `realm_user` add: the person joins `realm_users` (sorted by id here, as
 * register sorts) without `is_active`; with `client_gravatar` (seen here as a null avatar_url on any
 * other user with a public email) a gravatar URL becomes null.
 */
function applyRealmUserAdd(state: Json, person: Json): void {
  const users = state.realm_users as Json[] | undefined;
  if (users === undefined) return;
  const added = structuredClone(person);
  delete added.is_active;
  const clientGravatar = users.some((u) => u.avatar_url === null);
  const publicEmail = added.delivery_email !== null && added.email === added.delivery_email;
  if (clientGravatar && publicEmail && typeof added.avatar_url === 'string' && added.avatar_url.startsWith('https://secure.gravatar.com/')) added.avatar_url = null;
  users.push(added);
  users.sort((a, b) => a.user_id - b.user_id);
}

/**
 * Zulip's apply_event for the `realm_user` update forms of user administration: `full_name`,
 * `role` (with `is_admin`/`is_owner`/`is_guest`), `timezone`, `delivery_email`, `new_email`
 * (the API `email`), `is_active` (moves the person between `realm_users` and
 * `realm_non_active_users`, kept sorted by id), and the current user's own keys.
 */
function applyRealmUserAdminUpdate(state: Json, person: Json, user: { id: number }): void {
  const roleKeys = (role: number) => ({ role, is_admin: role <= 200, is_owner: role === 100, is_guest: role === 600 });
  const lists = ['realm_users', 'realm_non_active_users'].filter((k) => Array.isArray(state[k]));
  for (const key of lists) {
    for (const p of state[key] as Json[]) {
      if (p.user_id !== person.user_id) continue;
      if ('full_name' in person) p.full_name = person.full_name;
      if ('role' in person) Object.assign(p, roleKeys(person.role));
      if ('timezone' in person) p.timezone = person.timezone;
      if ('delivery_email' in person) p.delivery_email = person.delivery_email;
      if ('new_email' in person) p.email = person.new_email;
      if ('avatar_version' in person) p.avatar_version = person.avatar_version;
      // Zulip's apply_event respects client_gravatar (seen here as a null avatar_url on any user):
      // a gravatar of a user whose email is public (not `user<id>@…`) becomes null.
      if ('avatar_url' in person) {
        const clientGravatar = lists.some((k) => (state[k] as Json[]).some((u) => u.avatar_url === null));
        const publicEmail = !String(p.email).startsWith(`user${p.user_id}@`);
        p.avatar_url = clientGravatar && publicEmail && String(person.avatar_url).startsWith('https://secure.gravatar.com/') ? null : person.avatar_url;
      }
    }
  }
  if ('is_active' in person && lists.length === 2) {
    const from = (person.is_active ? state.realm_non_active_users : state.realm_users) as Json[];
    const to = (person.is_active ? state.realm_users : state.realm_non_active_users) as Json[];
    const i = from.findIndex((p) => p.user_id === person.user_id);
    if (i >= 0) {
      to.push(...from.splice(i, 1));
      to.sort((a, b) => a.user_id - b.user_id);
    }
  }
  if (person.user_id === user.id && 'user_id' in state) {
    if ('full_name' in person) state.full_name = person.full_name;
    if ('delivery_email' in person) state.delivery_email = person.delivery_email;
    if ('new_email' in person) state.email = person.new_email;
    if ('avatar_url' in person && 'avatar_url' in state) Object.assign(state, { avatar_url: person.avatar_url, avatar_url_medium: person.avatar_url_medium });
    if ('avatar_source' in person && 'avatar_source' in state) state.avatar_source = person.avatar_source;
    if ('role' in person) {
      const { is_admin, is_owner, is_guest } = roleKeys(person.role);
      Object.assign(state, { is_admin, is_owner, is_guest, is_moderator: person.role <= 300 });
    }
  }
}

/** `unread_msgs` after an `update_message` move: the moved ids change bucket (and `count` follows muting). */
function moveUnreadMessages(unread: Json, state: Json, event: Json): void {
  const buckets: Json[] = unread.streams;
  const moved: number[] = [];
  for (const bucket of buckets) {
    const keep = (bucket.unread_message_ids as number[]).filter((id) => !event.message_ids.includes(id));
    for (const id of bucket.unread_message_ids as number[]) if (!keep.includes(id)) moved.push(id);
    bucket.unread_message_ids = keep;
  }
  unread.streams = buckets.filter((b) => b.unread_message_ids.length > 0);
  if (moved.length === 0) return;
  const streamId: number = event.new_stream_id ?? event.stream_id;
  const topic: string = event.subject ?? event.orig_subject;
  const oldCounted = !isStreamMuted(state, event.stream_id);
  const newCounted = !isStreamMuted(state, streamId);
  unread.count += moved.length * (Number(newCounted) - Number(oldCounted));
  let bucket = (unread.streams as Json[]).find((b) => b.stream_id === streamId && b.topic.toLowerCase() === topic.toLowerCase());
  if (bucket === undefined) {
    bucket = { stream_id: streamId, topic, unread_message_ids: [] };
    unread.streams.push(bucket);
    unread.streams.sort((a: Json, b: Json) => a.stream_id - b.stream_id || compareCodePoints(a.topic.toLowerCase(), b.topic.toLowerCase()));
  }
  bucket.unread_message_ids.push(...moved);
  bucket.unread_message_ids.sort(ascending);
}

/**
 * Folds one event into a register state, as a Zulip client (and Zulip's `apply_event`) would.
 * Throws on an event type it does not know: add the fold together with the event.
 */
export function applyEvent(state: Json, event: Json, user: { id: number }, ctx: FoldContext = {}): void {
  switch (event.type) {
    case 'delete_message': {
      // Zulip's apply_event: max_message_id re-read; the ids leave unread_msgs; a direct message
      // re-reads recent_private_conversations. (Clients also drop them from starred_messages.)
      const ids: number[] = event.message_ids ?? [event.message_id];
      if ('max_message_id' in state) {
        if (ctx.refetched === undefined) throw new Error('applyEvent: delete_message needs the refetched state');
        state.max_message_id = ctx.refetched.max_message_id;
      }
      if (state.unread_msgs !== undefined) for (const id of ids) removeUnreadMessage(state.unread_msgs, state, id);
      if (Array.isArray(state.starred_messages)) state.starred_messages = state.starred_messages.filter((id: number) => !ids.includes(id));
      if (event.message_type === 'private' && Array.isArray(state.recent_private_conversations)) {
        if (ctx.refetched === undefined) throw new Error('applyEvent: delete_message needs the refetched state');
        state.recent_private_conversations = structuredClone(ctx.refetched.recent_private_conversations);
      }
      return;
    }
    case 'update_message': {
      // Zulip's apply_event: unread messages follow a topic/channel change (content is not in
      // the register state).
      if (state.unread_msgs !== undefined && (event.subject !== undefined || event.new_stream_id !== undefined)) {
        moveUnreadMessages(state.unread_msgs, state, event);
      }
      return;
    }
    case 'message': {
      const message: Json = event.message;
      const flags: string[] = event.flags;
      if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, message.id);
      if (state.unread_msgs !== undefined && !flags.includes('read')) {
        applyUnreadMessage(state.unread_msgs, state, message, flags, user);
      }
      if (message.type === 'private') {
        const conversations = state.recent_private_conversations as Json[] | undefined;
        if (conversations !== undefined) {
          const userIds = (message.display_recipient as Json[]).map((r) => r.id as number).filter((id) => id !== user.id).sort(ascending);
          const key = userIds.join(',');
          let conversation = conversations.find((c) => (c.user_ids as number[]).join(',') === key);
          if (conversation === undefined) conversations.push((conversation = { user_ids: userIds, max_message_id: message.id }));
          conversation.max_message_id = Math.max(conversation.max_message_id, message.id);
          conversations.sort((a, b) => b.max_message_id - a.max_message_id);
        }
        return;
      }
      // first_message_id of the channel wherever the state lists it.
      for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
        for (const stream of (state[key] as Json[] | undefined) ?? []) {
          if (stream.stream_id === message.stream_id && stream.first_message_id === null) stream.first_message_id = message.id;
        }
      }
      return;
    }
    case 'user_topic': {
      // Zulip's apply_event: drop the row for 0, else update it in place (matched
      // case-insensitively, keeping its spelling) or append it.
      const rows = state.user_topics as Json[] | undefined;
      if (rows === undefined) return;
      const lower = (event.topic_name as string).toLowerCase();
      const i = rows.findIndex((r) => r.stream_id === event.stream_id && (r.topic_name as string).toLowerCase() === lower);
      if (event.visibility_policy === 0) {
        if (i >= 0) rows.splice(i, 1);
      } else if (i >= 0) {
        rows[i] = { ...rows[i], last_updated: event.last_updated, visibility_policy: event.visibility_policy };
      } else {
        rows.push({ stream_id: event.stream_id, topic_name: event.topic_name, last_updated: event.last_updated, visibility_policy: event.visibility_policy });
      }
      return;
    }
    case 'user_status': {
      // Zulip's apply_event: merge the supplied keys; '' / false remove them; an empty entry goes.
      const all = state.user_status as Json | undefined;
      if (all === undefined) return;
      const key = String(event.user_id);
      const entry: Json = all[key] ?? {};
      if (event.away !== undefined) {
        if (event.away) entry.away = true;
        else delete entry.away;
      }
      if (event.status_text !== undefined) {
        if (event.status_text === '') delete entry.status_text;
        else entry.status_text = event.status_text;
      }
      if (event.emoji_name !== undefined) {
        if (event.emoji_name === '') {
          delete entry.emoji_name;
          delete entry.emoji_code;
          delete entry.reaction_type;
        } else {
          Object.assign(entry, { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type });
        }
      }
      if (Object.keys(entry).length === 0) delete all[key];
      else all[key] = entry;
      return;
    }
    case 'realm_linkifiers':
      // Zulip's apply_event: replaces the list (it stays [] for clients without `linkifier_url_template`).
      if ('realm_linkifiers' in state) state.realm_linkifiers = structuredClone(event.realm_linkifiers);
      return;
    case 'muted_topics':
      if ('muted_topics' in state) state.muted_topics = event.muted_topics;
      return;
    case 'realm_emoji':
      // Zulip's apply_event: the event carries the whole dict, deactivated emoji included.
      if ('realm_emoji' in state) state.realm_emoji = structuredClone(event.realm_emoji);
      return;
    case 'user_group': {
      // Zulip's apply_event for realm_user_groups (kept sorted by id; member lists ascending).
      const groups = state.realm_user_groups as Json[] | undefined;
      if (groups === undefined) return;
      if (event.op === 'add') {
        groups.push(structuredClone(event.group));
        groups.sort((a, b) => a.id - b.id);
        return;
      }
      if (event.op === 'remove') {
        state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
        return;
      }
      const group = groups.find((g) => g.id === event.group_id);
      if (group === undefined) return;
      const merge = (key: string, ids: number[], add: boolean) => {
        const set = new Set<number>(group[key]);
        for (const id of ids) (add ? set.add(id) : set.delete(id));
        group[key] = [...set].sort(ascending);
      };
      if (event.op === 'update') Object.assign(group, event.data);
      else if (event.op === 'add_members') merge('members', event.user_ids, true);
      else if (event.op === 'remove_members') merge('members', event.user_ids, false);
      else if (event.op === 'add_subgroups') merge('direct_subgroup_ids', event.direct_subgroup_ids, true);
      else if (event.op === 'remove_subgroups') merge('direct_subgroup_ids', event.direct_subgroup_ids, false);
      return;
    }
    case 'stream':
      applyStreamEvent(state, event);
      return;
    case 'subscription':
      applySubscriptionEvent(state, event, user);
      return;
    case 'presence': {
      // Zulip's apply_event refetches the user's row; the event's `website` entry is that row's
      // legacy form. Slim: a presence event is only sent when the user became active, so both
      // timestamps are the event's. Every event follows exactly one change of the realm's
      // counter (FL 263 `presence_last_update_id`, not carried by the event).
      const all = state.presences as Json | undefined;
      if (all === undefined) return;
      const site = event.presence.website;
      if (event.email === undefined) {
        all[String(event.user_id)] = { active_timestamp: site.timestamp, idle_timestamp: site.timestamp };
      } else {
        all[event.email] = { aggregated: { client: 'website', status: site.status, timestamp: site.timestamp }, website: { ...site } };
      }
      if (typeof state.presence_last_update_id === 'number') state.presence_last_update_id += 1;
      return;
    }
    case 'custom_profile_fields':
      if ('custom_profile_fields' in state) state.custom_profile_fields = structuredClone(event.fields);
      return;
    case 'realm_user': {
      // Zulip's apply_event for realm_user update with custom_profile_field (null value removes it).
      const field = event.person?.custom_profile_field;
      if (event.op === 'update' && field === undefined) {
        applyRealmUserAdminUpdate(state, event.person, user);
        return;
      }
      if (event.op === 'add') {
        applyRealmUserAdd(state, event.person);
        return;
      }
      if (event.op !== 'update' || field === undefined) throw new Error(`applyEvent: no fold for realm_user ${JSON.stringify(event)}`);
      for (const person of (state.realm_users as Json[] | undefined) ?? []) {
        if (person.user_id !== event.person.user_id || person.profile_data === undefined) continue;
        if (field.value === null) delete person.profile_data[String(field.id)];
        else person.profile_data[String(field.id)] = field.rendered_value === undefined ? { value: field.value } : { value: field.value, rendered_value: field.rendered_value };
      }
      return;
    }
    case 'navigation_view': {
      // Zulip's apply_event: append, update the supplied keys in place, or drop by fragment.
      const views = state.navigation_views as Json[] | undefined;
      if (views === undefined) return;
      if (event.op === 'add') views.push(structuredClone(event.navigation_view));
      else if (event.op === 'update') {
        const view = views.find((v) => v.fragment === event.fragment);
        if (view !== undefined) Object.assign(view, event.data);
      } else if (event.op === 'remove') {
        const i = views.findIndex((v) => v.fragment === event.fragment);
        if (i >= 0) views.splice(i, 1);
      } else throw new Error(`applyEvent: no fold for navigation_view ${JSON.stringify(event)}`);
      return;
    }
    case 'channel_folder': {
      // Zulip's apply_event: append (Zulip then sorts by id; parley keeps the register order,
      // `order` then id — a new folder's order is its id, so it sorts last either way), update
      // the given keys in place, or set each folder's order to its (last) index and sort by it.
      const folders = state.channel_folders as Json[] | undefined;
      if (folders === undefined) return;
      const byOrder = (a: Json, b: Json) => a.order - b.order || a.id - b.id;
      if (event.op === 'add') {
        folders.push(structuredClone(event.channel_folder));
        folders.sort(byOrder);
      } else if (event.op === 'update') {
        const folder = folders.find((f) => f.id === event.channel_folder_id);
        if (folder !== undefined) Object.assign(folder, event.data);
      } else if (event.op === 'reorder') {
        const position = new Map<number, number>();
        (event.order as number[]).forEach((id, i) => position.set(id, i));
        for (const folder of folders) folder.order = position.get(folder.id);
        folders.sort(byOrder);
      } else throw new Error(`applyEvent: no fold for channel_folder ${JSON.stringify(event)}`);
      return;
    }
    case 'drafts': {
      // Zulip's apply_event adds, replaces or drops by id; /register lists drafts most recently
      // edited first, so an added or edited draft goes before every draft of the same (integer)
      // second: it is the latest edit of that second.
      const drafts = state.drafts as Json[] | undefined;
      if (drafts === undefined) return;
      const insert = (draft: Json) => {
        const i = drafts.findIndex((d) => d.timestamp <= draft.timestamp);
        drafts.splice(i < 0 ? drafts.length : i, 0, structuredClone(draft));
      };
      if (event.op === 'add') for (const draft of event.drafts) insert(draft);
      else if (event.op === 'update' || event.op === 'remove') {
        const id = event.op === 'update' ? event.draft.id : event.draft_id;
        const i = drafts.findIndex((d) => d.id === id);
        if (i < 0) throw new Error(`applyEvent: drafts ${event.op} of unknown draft ${id}`);
        drafts.splice(i, 1);
        if (event.op === 'update') insert(event.draft);
      } else throw new Error(`applyEvent: no fold for drafts ${JSON.stringify(event)}`);
      return;
    }
    case 'realm_bot': {
      // Zulip's apply_event for realm_bot add (kept sorted by id, as register sorts) and update.
      const bots = state.realm_bots as Json[] | undefined;
      if (bots === undefined) return;
      if (event.op === 'update') {
        const bot = bots.find((b) => b.user_id === event.bot.user_id);
        if (bot !== undefined) Object.assign(bot, event.bot);
        return;
      }
      if (event.op !== 'add') throw new Error(`applyEvent: no fold for realm_bot ${JSON.stringify(event)}`);
      bots.push(structuredClone(event.bot));
      bots.sort((a, b) => a.user_id - b.user_id);
      return;
    }
    case 'user_settings':
      // Zulip's apply_event: the property in `user_settings` (and, without user_settings_object,
      // its legacy top-level copy, which arrives as its own legacy event).
      if (event.op !== 'update') throw new Error(`applyEvent: no fold for user_settings ${JSON.stringify(event)}`);
      if (state.user_settings !== undefined) state.user_settings[event.property] = event.value;
      // Turning draft synchronisation off deletes the server's drafts without drafts events
      // (Zulip's do_change_user_setting; clients keep their local copies): /register lists none.
      if (event.property === 'enable_drafts_synchronization' && event.value === false && Array.isArray(state.drafts)) state.drafts = [];
      return;
    case 'update_display_settings':
      if (event.setting_name in state) state[event.setting_name] = event.setting;
      return;
    case 'update_global_notifications':
      if (event.notification_name in state) state[event.notification_name] = event.setting;
      return;
    case 'reaction':
      // Zulip's apply_event: no register state holds reactions (clients patch their messages).
      return;
    case 'update_message_flags':
      applyUpdateMessageFlags(state, event, user);
      return;
    case 'typing':
    case 'heartbeat':
    case 'invites_changed':
      // No state.
      return;
    case 'attachment':
      // No /register state (Zulip's apply_event ignores it: it feeds the uploads UI only).
      return;
    default:
      throw new Error(`applyEvent: no fold for event type ${JSON.stringify(event.type)} (add one with the event)`);
  }
}
