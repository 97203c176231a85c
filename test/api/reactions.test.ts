/**
 * Emoji reactions (https://zulip.com/api/get-message; Zulip's `zerver/views/reactions.py`,
 * `zerver/actions/reactions.py`):
 * `POST` / `DELETE /messages/{message_id}/reactions`. Every error string with "reactions unchanged
 * afterwards", the add/remove round trip, duplicates, votes (same code, earlier name), each
 * reaction type, `reaction` events via verifyAction and who receives them (UserMessage rows,
 * channel subscribers, historical rows), `reactions` in GET /messages and GET /messages/{id},
 * automatic follow on participation; plus handler-level records and the snapshot round trip.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { pack, unpack } from 'msgpackr';
import { evolve } from '../../src/domain/evolve.js';
import { reactionsWire } from '../../src/domain/reactions.js';
import { decide } from '../../src/realm/apply-command.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const invalidMessage = bad('Invalid message(s)');
const alreadyExists = { result: 'error', msg: 'Reaction already exists.', code: 'REACTION_ALREADY_EXISTS' };
const doesNotExist = { result: 'error', msg: "Reaction doesn't exist.", code: 'REACTION_DOES_NOT_EXIST' };
const success = { result: 'success', msg: '' };
const OCTOPUS = '1f419';
const THUMBS = '1f44d';

const reaction = (user_id: number, emoji_name: string, emoji_code: string, reaction_type = 'unicode_emoji') => ({
  emoji_name,
  emoji_code,
  reaction_type,
  user_id,
});

/** The message's reactions as GET /messages/{id} reports them. */
async function reactionsOf(c: Caller, id: number): Promise<unknown> {
  const reply = await c.call('GET', `/messages/${id}`);
  return reply.body.message?.reactions ?? reply.body;
}

async function send(c: Caller, to: unknown, content: string, topic?: string): Promise<number> {
  const reply = await c.call('POST', '/messages', Array.isArray(to) ? { type: 'direct', to, content } : { type: 'stream', to, topic, content });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return reply.body.id;
}

t.test('add and remove over HTTP, events, errors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const at = (id: number) => `/messages/${id}/reactions`;
  const add = (who: Caller, id: number, params: Record<string, unknown>) => who.call('POST', at(id), params);
  const remove = (who: Caller, id: number, params: Record<string, unknown>) => who.call('DELETE', at(id), params);

  const verona = await send(othello, 'Verona', 'React to me', 'reactions');
  t.same(await reactionsOf(hamlet, verona), [], 'no reactions at first');

  // Name only: the code and type are looked up. Event to the channel's subscribers (othello).
  const first = await verifyAction(t, s, othello, { action: () => add(hamlet, verona, { emoji_name: 'octopus' }), numEvents: 1, stateChangeExpected: false });
  t.same(first.actionResult.body, success);
  t.same(first.events[0], {
    id: first.events[0]!.id,
    type: 'reaction',
    op: 'add',
    user_id: hamlet.userId,
    user: { user_id: hamlet.userId, email: 'hamlet@zulip.com', full_name: 'King Hamlet' },
    message_id: verona,
    emoji_name: 'octopus',
    emoji_code: OCTOPUS,
    reaction_type: 'unicode_emoji',
  });
  let expected: unknown[] = [reaction(hamlet.userId, 'octopus', OCTOPUS)];
  t.same(await reactionsOf(othello, verona), expected, 'GET /messages/{id} lists the reaction (no deprecated user object)');
  const fetched = await hamlet.call('GET', '/messages', {
    anchor: verona, num_before: 0, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }]),
  });
  t.same(fetched.body.messages.map((m: { reactions: unknown }) => m.reactions), [expected], 'GET /messages lists it too');
  const hasReaction = async (negated: boolean) => {
    const narrow = [{ operator: 'channel', operand: 'Verona' }, { operator: 'has', operand: 'reaction', negated }];
    const reply = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify(narrow) });
    return reply.body.messages.map((m: { id: number }) => m.id) as number[];
  };
  t.same(await hasReaction(false), [verona], 'has:reaction');
  t.ok((await hasReaction(true)).length > 0 && !(await hasReaction(true)).includes(verona), '-has:reaction');

  // An alias with its code and type given; a second user votes with another alias of the same
  // emoji, which takes the earlier name.
  t.same((await add(hamlet, verona, { emoji_name: 'thumbs_up', emoji_code: THUMBS, reaction_type: 'unicode_emoji' })).body, success);
  const vote = await verifyAction(t, s, hamlet, { action: () => add(othello, verona, { emoji_name: 'like' }), numEvents: 1 });
  t.match(vote.events[0], { type: 'reaction', op: 'add', user_id: othello.userId, emoji_name: 'thumbs_up', emoji_code: THUMBS });
  // A vote skips validation of the name: the existing reaction's name is used.
  t.same((await add(othello, verona, { emoji_name: 'not_an_emoji', emoji_code: OCTOPUS, reaction_type: 'unicode_emoji' })).body, success);
  // zulip_extra_emoji by name.
  t.same((await add(hamlet, verona, { emoji_name: 'zulip' })).body, success);
  expected = [
    reaction(hamlet.userId, 'octopus', OCTOPUS),
    reaction(hamlet.userId, 'thumbs_up', THUMBS),
    reaction(othello.userId, 'thumbs_up', THUMBS),
    reaction(othello.userId, 'octopus', OCTOPUS),
    reaction(hamlet.userId, 'zulip', 'zulip', 'zulip_extra_emoji'),
  ];
  t.same(await reactionsOf(hamlet, verona), expected, 'reactions in the order they were added');

  // Add errors: exact strings, no events, reactions unchanged.
  const denmark = await send(hamlet, 'Denmark', 'No reactions here', 'castle');
  const dm = await send(hamlet, [othello.userId], 'Private words');
  const secret = await send(iago, 'core team', 'Core secrets', 'plans');
  const veniceSub = await othello.call('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Venice' }]) });
  t.equal(veniceSub.status, 200);
  const venice = await send(othello, 'Venice', 'Canals', 'water');
  const oldId = (await iago.call('POST', '/channels/create', { name: 'Old', subscribers: JSON.stringify([iago.userId]) })).body.id;
  const archived = await send(iago, 'Old', 'Soon archived', 'end');
  t.same((await iago.call('DELETE', `/streams/${oldId}`)).body, success, 'channel archived');

  const addErrors: Array<[Caller, number, Record<string, unknown>, Record<string, unknown>]> = [
    [hamlet, verona, {}, { result: 'error', msg: "Missing 'emoji_name' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'emoji_name' }],
    [hamlet, 999999, { emoji_name: 'octopus' }, invalidMessage],
    [cordelia, dm, { emoji_name: 'octopus' }, invalidMessage],
    [othello, secret, { emoji_name: 'octopus' }, invalidMessage],
    [polonius, venice, { emoji_name: 'octopus' }, invalidMessage],
    [iago, archived, { emoji_name: 'octopus' }, invalidMessage],
    [hamlet, verona, { emoji_name: 'octopus' }, alreadyExists],
    [hamlet, verona, { emoji_name: 'octopus', emoji_code: OCTOPUS, reaction_type: 'unicode_emoji' }, alreadyExists],
    [hamlet, verona, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, alreadyExists],
    // Seed §2.1's `service_extra_emoji` is the same type as Zulip's `zulip_extra_emoji`.
    [hamlet, verona, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' }, alreadyExists],
    [hamlet, denmark, { emoji_name: 'nonexistent_emoji' }, bad("Emoji 'nonexistent_emoji' does not exist")],
    [hamlet, denmark, { emoji_name: 'nonexistent_emoji', emoji_code: OCTOPUS }, bad("Emoji 'nonexistent_emoji' does not exist")],
    [hamlet, denmark, { emoji_name: 'nonexistent_emoji', reaction_type: 'unicode_emoji' }, bad("Emoji 'nonexistent_emoji' does not exist")],
    [hamlet, denmark, { emoji_name: '' }, bad("Emoji '' does not exist")],
    [hamlet, denmark, { emoji_name: 'octopus', emoji_code: 'ffff', reaction_type: 'unicode_emoji' }, bad('Invalid emoji code.')],
    [hamlet, denmark, { emoji_name: 'smile', emoji_code: '1f600', reaction_type: 'unicode_emoji' }, bad('Invalid emoji name.')],
    [hamlet, denmark, { emoji_name: 'smile', emoji_code: '1f600' }, bad('Invalid emoji name.')],
    [hamlet, denmark, { emoji_name: 'zulip', emoji_code: 'zulip2', reaction_type: 'zulip_extra_emoji' }, bad('Invalid emoji code.')],
    [hamlet, denmark, { emoji_name: 'octopus', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, bad('Invalid emoji name.')],
    [hamlet, denmark, { emoji_name: 'parrot', emoji_code: '1', reaction_type: 'realm_emoji' }, bad('Invalid custom emoji.')],
    [hamlet, denmark, { emoji_name: 'octopus', emoji_code: OCTOPUS, reaction_type: 'service_extra_emoji' }, bad('Invalid emoji code.')],
    [hamlet, denmark, { emoji_name: 'octopus', reaction_type: 'nonsense' }, bad('Invalid emoji type.')],
  ];
  for (const [who, id, params, body] of addErrors) {
    const r = await verifyAction(t, s, othello, { action: () => add(who, id, params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, String(body.msg));
    t.same(r.actionResult.body, body, String(body.msg));
  }
  t.same(await reactionsOf(hamlet, verona), expected, 'reactions unchanged after add errors');
  t.same(await reactionsOf(hamlet, denmark), [], 'no reaction stored by a failed add');
  t.same(await reactionsOf(hamlet, dm), []);

  // Remove errors.
  const removeErrors: Array<[Caller, number, Record<string, unknown>, Record<string, unknown>]> = [
    [hamlet, verona, {}, bad('At least one of the following arguments must be present: emoji_name, emoji_code')],
    [hamlet, verona, { reaction_type: 'unicode_emoji' }, bad('At least one of the following arguments must be present: emoji_name, emoji_code')],
    [hamlet, 999999, { emoji_name: 'octopus' }, invalidMessage],
    [cordelia, dm, { emoji_name: 'octopus' }, invalidMessage],
    [othello, secret, { emoji_name: 'octopus' }, invalidMessage],
    [iago, archived, { emoji_name: 'octopus' }, invalidMessage],
    [hamlet, verona, { emoji_name: 'nonexistent_emoji' }, bad("Emoji 'nonexistent_emoji' does not exist")],
    [cordelia, verona, { emoji_name: 'octopus' }, doesNotExist],
    [hamlet, verona, { emoji_name: 'grinning' }, doesNotExist],
    [hamlet, verona, { emoji_code: OCTOPUS, reaction_type: 'realm_emoji' }, doesNotExist],
    // Zulip's `remove_reaction`: no stored reaction has an unknown type, so none matches.
    [hamlet, verona, { emoji_code: OCTOPUS, reaction_type: 'nonsense' }, doesNotExist],
    // Zulip looks up only the code by name; reaction_type keeps its default unicode_emoji.
    [hamlet, verona, { emoji_name: 'zulip' }, doesNotExist],
    [hamlet, denmark, { emoji_name: 'octopus' }, doesNotExist],
  ];
  for (const [who, id, params, body] of removeErrors) {
    const r = await verifyAction(t, s, othello, { action: () => remove(who, id, params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, String(body.msg));
    t.same(r.actionResult.body, body, String(body.msg));
  }
  t.same(await reactionsOf(hamlet, verona), expected, 'reactions unchanged after remove errors');

  // Remove by code and type; the event names the stored emoji.
  const byCode = await verifyAction(t, s, hamlet, {
    action: () => remove(othello, verona, { emoji_code: THUMBS, reaction_type: 'unicode_emoji' }),
    numEvents: 1,
    stateChangeExpected: false,
  });
  t.same(byCode.actionResult.body, success);
  t.same(byCode.events[0], {
    id: byCode.events[0]!.id,
    type: 'reaction',
    op: 'remove',
    user_id: othello.userId,
    user: { user_id: othello.userId, email: 'othello@zulip.com', full_name: 'Othello, the Moor of Venice' },
    message_id: verona,
    emoji_name: 'thumbs_up',
    emoji_code: THUMBS,
    reaction_type: 'unicode_emoji',
  });
  const zulipGone = await verifyAction(t, s, othello, {
    action: () => remove(hamlet, verona, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }),
    numEvents: 1,
  });
  t.match(zulipGone.events[0], { op: 'remove', emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
  t.same((await remove(hamlet, verona, { emoji_name: 'octopus' })).body, success, 'remove by name only');
  expected = [reaction(hamlet.userId, 'thumbs_up', THUMBS), reaction(othello.userId, 'octopus', OCTOPUS)];
  t.same(await reactionsOf(hamlet, verona), expected, 'the others stay, in order');
  t.same((await remove(hamlet, verona, { emoji_name: 'octopus' })).body, doesNotExist, 'removing twice');
  // Round trip: the same reaction can be added again; it goes to the end.
  t.same((await add(hamlet, verona, { emoji_name: 'octopus' })).body, success);
  expected.push(reaction(hamlet.userId, 'octopus', OCTOPUS));
  t.same(await reactionsOf(hamlet, verona), expected, 'added again at the end');
  t.same((await remove(hamlet, verona, { emoji_name: 'thumbs_up' })).body, success);
  t.same((await remove(othello, verona, { emoji_name: 'octopus' })).body, success);
  t.same((await remove(hamlet, verona, { emoji_code: OCTOPUS })).body, success);
  t.same(await reactionsOf(hamlet, verona), [], 'all removed');
  t.same(await hasReaction(false), [], 'has:reaction: none left');

  // Direct messages: events to the conversation's members only.
  const dmEvent = await verifyAction(t, s, hamlet, { action: () => add(othello, dm, { emoji_name: 'heart' }), numEvents: 1 });
  t.match(dmEvent.events[0], { op: 'add', message_id: dm, emoji_name: 'heart', user_id: othello.userId });
  await verifyAction(t, s, cordelia, { action: () => remove(othello, dm, { emoji_name: 'heart' }), numEvents: 0 });
  t.same(await reactionsOf(hamlet, dm), []);

  // Private channel with protected history: subscribers with a UserMessage row.
  const coreEvent = await verifyAction(t, s, iago, { action: () => add(hamlet, secret, { emoji_name: 'octopus' }), numEvents: 1 });
  t.match(coreEvent.events[0], { op: 'add', message_id: secret });
  await verifyAction(t, s, othello, { action: () => remove(hamlet, secret, { emoji_name: 'octopus' }), numEvents: 0 });
});

t.test('reacting without a UserMessage row (public channel, not subscribed)', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const at = (id: number) => `/messages/${id}/reactions`;
  t.equal((await othello.call('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Venice' }]) })).status, 200);
  const venice = await send(othello, 'Venice', 'Canals', 'water');
  // A later message to hamlet, so the Venice message is not hamlet's newest row (max_message_id).
  await send(othello, [hamlet.userId], 'Later');
  const flags = async () => (await hamlet.call('GET', `/messages/${venice}`)).body.message.flags;
  t.same(await flags(), ['read', 'historical'], 'no row: read + historical');

  // Before hamlet reacts, reactions to the message do not reach him.
  await verifyAction(t, s, hamlet, { action: () => othello.call('POST', at(venice), { emoji_name: 'boat' }), numEvents: 0 });

  const own = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', at(venice), { emoji_name: 'octopus' }), numEvents: 1, stateChangeExpected: false });
  t.same(own.actionResult.body, success);
  t.match(own.events[0], { type: 'reaction', op: 'add', user_id: hamlet.userId, message_id: venice });
  t.same(await flags(), ['read', 'historical'], 'a historical row: the same flags');
  t.same((await hamlet.call('GET', `/messages/${venice}`)).body.message.reactions, [
    reaction(othello.userId, 'boat', '26f5'),
    reaction(hamlet.userId, 'octopus', OCTOPUS),
  ]);
  // Now he has a row: later reactions notify him; cordelia (no row, not subscribed) still not.
  await verifyAction(t, s, hamlet, { action: () => othello.call('DELETE', at(venice), { emoji_name: 'boat' }), numEvents: 1 });
  await verifyAction(t, s, cordelia, { action: () => othello.call('POST', at(venice), { emoji_name: 'boat' }), numEvents: 0 });
  // The message is in hamlet's combined feed now (Zulip: historical rows count as received).
  const feed = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0 });
  t.ok(feed.body.messages.some((m: { id: number }) => m.id === venice), 'in the combined feed');
});

t.test('automatic follow on participation', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = await send(othello, 'Verona', 'Follow me', 'participation');
  // Default policy (on initiation): a reaction changes nothing but the reaction.
  await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', `/messages/${id}/reactions`, { emoji_name: 'octopus' }), numEvents: 1 });
  t.same((await hamlet.call('PATCH', '/settings', { automatically_follow_topics_policy: 1 })).body.result, 'success');
  const r = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', `/messages/${id}/reactions`, { emoji_name: 'boat' }),
    stateChangeExpected: true,
  });
  t.same(r.events.map((e) => e.type), ['muted_topics', 'user_topic', 'reaction'], 'follow first, then the reaction');
  t.match(r.events[1], { type: 'user_topic', topic_name: 'participation', visibility_policy: 3 });
  // Already followed: no further change.
  await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', `/messages/${id}/reactions`, { emoji_name: 'heart' }), numEvents: 1 });
});

t.test('handlers, records, replay and snapshot', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const msg = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 't', content: 'hi', client: 'test' }, ctx).id;
  const empty = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.empty, topic: 't', content: 'nobody', client: 'test' }, ctx).id;
  const add = (actorId: number, messageId: number, emojiName: string) =>
    decide(state, { type: 'add_reaction', actorId, messageId, emojiName }, ctx);

  const d = add(ids.other, msg, 'octopus');
  if (!d.ok) throw new Error(d.error.message);
  t.same(d.value.records, [{ type: 'reaction_added', v: 1, messageId: msg, userId: ids.other, emojiName: 'octopus', emojiCode: OCTOPUS, reactionType: 'unicode_emoji' }]);
  t.same([...d.value.events[0]!.userIds].sort(), [ids.owner, ids.admin, ids.member, ids.other].sort(), 'to the subscribers');
  for (const r of d.value.records) evolve(state, r);

  const h = add(ids.admin, empty, 'zulip');
  if (!h.ok) throw new Error(h.error.message);
  t.match(h.value.records[0], { type: 'reaction_added', historical: true, emojiCode: 'zulip', reactionType: 'zulip_extra_emoji' });
  t.same([...h.value.events[0]!.userIds].sort(), [ids.member, ids.admin].sort(), 'sender (row) and the reactor (new historical row)');
  for (const r of h.value.records) evolve(state, r);
  t.equal(state.messages.userFlags(ids.admin, empty), 1 | 256, 'historical row: read + historical');

  rejects(t, state, { type: 'add_reaction', actorId: ids.other, messageId: msg, emojiName: 'octopus' }, ctx, 'Reaction already exists.');
  rejects(t, state, { type: 'remove_reaction', actorId: ids.admin, messageId: msg, emojiName: 'octopus', reactionType: 'unicode_emoji' }, ctx, "Reaction doesn't exist.");
  rejects(t, state, { type: 'add_reaction', actorId: ids.guest, messageId: msg, emojiName: 'octopus' }, ctx, 'Invalid message(s)');

  const snap = toSnapshot(state);
  t.same(snap.core.reactions?.messages.length, 2);
  const restored = fromSnapshot(state.id, unpack(pack(snap.core)) as object, snap.columns);
  restored.host = state.host;
  t.equal(fingerprint(restored), fingerprint(state), 'snapshot round trip');
  t.same(reactionsWire(restored, msg), [reaction(ids.other, 'octopus', OCTOPUS)]);
  const older = { ...snap.core } as Record<string, unknown>;
  delete older.reactions;
  t.same(reactionsWire(fromSnapshot(state.id, older, snap.columns), msg), [], 'older snapshot without reactions: none');

  const rm = decide(state, { type: 'remove_reaction', actorId: ids.other, messageId: msg, emojiCode: OCTOPUS, reactionType: 'unicode_emoji' }, ctx);
  if (!rm.ok) throw new Error(rm.error.message);
  t.same(rm.value.records, [{ type: 'reaction_removed', v: 1, messageId: msg, userId: ids.other, emojiCode: OCTOPUS, reactionType: 'unicode_emoji' }]);
  for (const r of rm.value.records) evolve(state, r);
  t.same(reactionsWire(state, msg), []);
  t.equal(toSnapshot(state).core.reactions?.messages.length, 1);

});
