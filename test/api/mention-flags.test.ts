/**
 * Mentions on delivery (issue 7): the flags each recipient gets (GET /messages, GET
 * /messages/{id} and the `message` event) for user, silent, group, channel-wildcard and
 * topic-wildcard mentions, in channels and direct messages; the rendered markup as stored;
 * `POST /messages/render` with the requesting user's realm context; and the wildcard permission
 * at and around Zulip's threshold of 15 (handler level, with "state unchanged" after errors).
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { decide, fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { Role } from '../../src/domain/realm-state.js';
import type { SendMessage } from '../../src/realm/commands.js';

const STREAM_WILDCARD_ERROR = 'You do not have permission to use channel wildcard mentions in this channel.';
const TOPIC_WILDCARD_ERROR = 'You do not have permission to use topic wildcard mentions in this topic.';

t.test('mention flags on delivery over HTTP', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const aaron = await s.as('aaron@zulip.com');
  const prospero = await s.as('prospero@zulip.com');
  const everyone = [hamlet, othello, cordelia, iago, aaron, prospero];

  const queues = new Map<Caller, { queue_id: string; last_event_id: number }>();
  for (const c of everyone) queues.set(c, (await c.call('POST', '/register', { event_types: ['message'] })).body as any);
  /** The flags of the message event `id` in `c`'s queue. */
  const eventFlags = async (c: Caller, id: number) => {
    const q = queues.get(c)!;
    const events = (await c.call('GET', '/events', { queue_id: q.queue_id, last_event_id: q.last_event_id, dont_block: true })).body.events as any[];
    const event = events.find((e) => e.type === 'message' && e.message.id === id);
    return event?.flags as string[] | undefined;
  };
  const listFlags = async (c: Caller, id: number) =>
    ((await c.call('GET', '/messages', { anchor: id, num_before: 0, num_after: 0 })).body.messages as any[]).find((m) => m.id === id)?.flags;
  const send = async (params: Record<string, unknown>, who = hamlet) => {
    const reply = await who.call('POST', '/messages', params);
    t.equal(reply.status, 200, `sent ${JSON.stringify(params['content'])}`);
    return reply.body.id as number;
  };
  /** Asserts every caller's flags for message `id` in GET /messages, GET /messages/{id} and the event. */
  const expectFlags = async (id: number, expected: Map<Caller, string[]>, what: string) => {
    for (const [c, flags] of expected) {
      t.same(await listFlags(c, id), flags, `${what}: ${c.email} GET /messages`);
      t.same((await c.call('GET', `/messages/${id}`)).body.message.flags, flags, `${what}: ${c.email} GET /messages/{id}`);
      t.same(await eventFlags(c, id), flags, `${what}: ${c.email} message event`);
    }
  };

  // A direct mention and a silent one.
  let id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: "@**Othello, the Moor of Venice** and @_**Cordelia, Lear's daughter**" });
  t.equal(
    (await othello.call('GET', `/messages/${id}`)).body.message.content,
    `<p><span class="user-mention" data-user-id="${othello.userId}">@Othello, the Moor of Venice</span> and ` +
      `<span class="user-mention silent" data-user-id="${cordelia.userId}">Cordelia, Lear's daughter</span></p>`,
    'stored markup',
  );
  await expectFlags(id, new Map([[othello, ['mentioned']], [cordelia, []], [hamlet, []], [iago, []]]), 'user mention');

  // Group mentions reach members through subgroups; silent group mentions flag nobody.
  const extras = (await hamlet.call('POST', '/user_groups/create', { name: 'extras', description: '', members: [aaron.userId] })).body.group_id as number;
  const actors = (await hamlet.call('POST', '/user_groups/create', { name: 'actors', description: '', members: [othello.userId] })).body.group_id as number;
  t.equal((await hamlet.call('POST', `/user_groups/${actors}/subgroups`, { add: [extras] })).status, 200);
  id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: 'ping @*actors*' });
  t.equal(
    (await othello.call('GET', `/messages/${id}`)).body.message.content,
    `<p>ping <span class="user-group-mention" data-user-group-id="${actors}">@actors</span></p>`,
  );
  await expectFlags(id, new Map([[othello, ['mentioned']], [aaron, ['mentioned']], [prospero, []], [hamlet, []]]), 'group mention');
  id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: 'quiet @_*actors*' });
  await expectFlags(id, new Map([[othello, []], [aaron, []]]), 'silent group mention');

  // Channel wildcard: every recipient, the sender too (9 subscribers: under the threshold).
  id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: 'hello @**all**' });
  const wild = ['stream_wildcard_mentioned', 'wildcard_mentioned'];
  await expectFlags(id, new Map(everyone.map((c) => [c, wild])), 'channel wildcard');
  id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: 'hello @_**everyone**' });
  await expectFlags(id, new Map([[othello, []], [hamlet, []]]), 'silent channel wildcard');
  id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: '> hello @**channel**' });
  await expectFlags(id, new Map([[othello, []]]), 'quoted channel wildcard');

  // Topic wildcard: only topic participants (senders and reactors, topic case-insensitive, sender included).
  t.equal((await cordelia.call('POST', '/messages/2/reactions', { emoji_name: 'smile' })).status, 200, 'cordelia reacts in "welcome"');
  id = await send({ type: 'stream', to: 'Verona', topic: 'WELCOME', content: '@**topic** news' });
  const topicWild = ['topic_wildcard_mentioned', 'wildcard_mentioned'];
  await expectFlags(
    id,
    new Map([[iago, topicWild], [othello, topicWild], [hamlet, topicWild], [cordelia, topicWild], [aaron, []], [prospero, []]]),
    'topic wildcard',
  );
  id = await send({ type: 'stream', to: 'Verona', topic: 'fresh topic', content: '@**topic** first!' }, aaron);
  await expectFlags(id, new Map([[aaron, topicWild], [othello, []]]), 'topic wildcard in a new topic: the sender only');

  // Direct messages: mentions and channel wildcards flag, topic wildcards do not.
  id = await send({ type: 'direct', to: JSON.stringify([othello.userId]), content: '@**Othello, the Moor of Venice** @**topic**' });
  await expectFlags(id, new Map([[othello, ['mentioned']], [hamlet, []]]), 'direct message mention');
  id = await send({ type: 'direct', to: JSON.stringify([othello.userId]), content: '@**everyone**' });
  await expectFlags(id, new Map([[othello, wild], [hamlet, wild]]), 'direct message wildcard');

  // Unknown names stay literal; a renamed user is found by the new name only.
  id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: '@**Nobody Here** @*nogroup*' });
  t.equal((await othello.call('GET', `/messages/${id}`)).body.message.content, '<p>@<strong>Nobody Here</strong> @<em>nogroup</em></p>');
  await expectFlags(id, new Map([[othello, []]]), 'unknown names');
  t.equal((await iago.call('PATCH', `/users/${aaron.userId}`, { full_name: 'Aaron <b & Bold' })).status, 200, 'rename');
  id = await send({ type: 'stream', to: 'Verona', topic: 'mentions', content: '@**aaron** @**aaron <B & bold**' });
  t.equal(
    (await othello.call('GET', `/messages/${id}`)).body.message.content,
    `<p>@<strong>aaron</strong> <span class="user-mention" data-user-id="${aaron.userId}">@Aaron &lt;b &amp; Bold</span></p>`,
    'new name found and escaped, old name literal',
  );
  await expectFlags(id, new Map([[aaron, ['mentioned']]]), 'renamed user');
});

t.test('POST /messages/render uses the realm context of the requesting user', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const render = async (c: Caller, content: string) => (await c.call('POST', '/messages/render', { content })).body;
  t.same(await render(hamlet, '@**King Hamlet** #**Verona>welcome** #**core team**'), {
    result: 'success',
    msg: '',
    rendered:
      `<p><span class="user-mention" data-user-id="${hamlet.userId}">@King Hamlet</span> ` +
      '<a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Verona/topic/welcome/with/3">#Verona &gt; welcome</a> ' +
      '<a class="stream" data-stream-id="6" href="/#narrow/channel/6-core-team">#core team</a></p>',
  });
  t.equal(
    (await render(polonius, '#**core team** #**Denmark>castle**')).rendered,
    '<p>#<strong>core team</strong> <a class="stream-topic" data-stream-id="2" href="/#narrow/channel/2-Denmark/topic/castle/with/4">#Denmark &gt; castle</a></p>',
    'a guest cannot link a private channel he is not in; Denmark is his',
  );
  t.equal((await render(hamlet, '#**Verona>no such topic**')).rendered,
    '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Verona/topic/no.20such.20topic">#Verona &gt; no such topic</a></p>',
    'a topic without messages has no /with/');
});

t.test('wildcard mention permission around the threshold of 15', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const extra = (n: number, prefix: string) =>
    Array.from({ length: n }, (_, i) =>
      run(state, {
        type: 'create_user', email: `${prefix}${i}@example.com`, fullName: `${prefix} ${i}`, role: Role.member,
        passwordHash: null, isBot: false, botType: null, botOwnerId: null, timezone: '',
      }, ctx).userId,
    );
  const people = extra(15, 'person'); // with `member`: 16 possible subscribers
  const stream = (name: string, subscriberIds: number[]) =>
    run(state, { type: 'create_channel', actorId: null, name, description: '', inviteOnly: false, isWebPublic: false, isDefault: false, subscriberIds }, ctx).streamId;
  const at15 = stream('fifteen', [ids.member, ...people.slice(0, 14)]);
  const at16 = stream('sixteen', [ids.member, ...people]);
  const send = (to: number, content: string, senderId = ids.member, topic = 'general talk'): SendMessage => ({
    type: 'send_message', senderId, messageType: 'stream', to, topic, content, client: 'test',
  });

  // Channel wildcards.
  t.ok(decide(state, send(at15, '@**all**'), ctx).ok, '15 subscribers: anyone may');
  rejects(t, state, send(at16, '@**all**'), ctx, STREAM_WILDCARD_ERROR);
  rejects(t, state, send(at16, 'hi @**channel** and @**topic**'), ctx, STREAM_WILDCARD_ERROR);
  const refused = decide(state, send(at16, '@**everyone**'), ctx);
  t.equal(!refused.ok && refused.error.code, 'STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'error code');
  t.equal(!refused.ok && refused.error.status, 400);
  t.ok(decide(state, send(at16, '@**all**', ids.admin), ctx).ok, 'administrators may (can_mention_many_users_group)');
  t.ok(decide(state, send(at16, '@_**all** and > x'), ctx).ok, 'silent wildcards are not checked');
  t.ok(decide(state, send(at16, '> @**all**'), ctx).ok, 'quoted wildcards are silent');
  t.ok(decide(state, send(at16, '`@**all**`'), ctx).ok, 'wildcard syntax in code is not a mention');
  t.ok(decide(state, { type: 'send_message', senderId: ids.member, messageType: 'private', to: people, content: '@**all**', client: 'test', topic: undefined }, ctx).ok,
    'direct messages are not checked');
  run(state, { type: 'deactivate_user', actorId: ids.owner, userId: people[14]! }, ctx);
  t.ok(decide(state, send(at16, '@**all**'), ctx).ok, 'deactivated subscribers do not count');

  // Topic wildcards: participants are senders and reactors, the sender included.
  for (const p of people.slice(0, 13)) run(state, send(at16, 'here', p, 'busy'), ctx);
  const reacted = run(state, send(at16, 'and here', ids.member, 'busy'), ctx).id;
  t.ok(decide(state, send(at16, '@**topic**', people[13]!, 'busy'), ctx).ok, '15 participants with the sender: allowed');
  run(state, { type: 'add_reaction', actorId: ids.other, messageId: reacted, emojiName: 'smile' }, ctx);
  const before = fingerprint(state);
  rejects(t, state, send(at16, '@**topic**', people[13]!, 'BUSY'), ctx, TOPIC_WILDCARD_ERROR);
  const topicRefused = decide(state, send(at16, '@**topic**', people[13]!, 'busy'), ctx);
  t.equal(!topicRefused.ok && topicRefused.error.code, 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'a reaction makes a 16th participant');
  t.equal(fingerprint(state), before, 'state unchanged');
  t.ok(decide(state, send(at16, '@**topic**', ids.member, 'busy'), ctx).ok, 'a participant sender is not counted twice');
  t.ok(decide(state, send(at16, '@**topic**', ids.admin, 'busy'), ctx).ok, 'administrators may');
  t.ok(decide(state, send(at16, '@_**topic**', people[13]!, 'busy'), ctx).ok, 'silent topic wildcards are not checked');
});

t.test('user-group mention permission (can_mention_group)', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const groups = (await iago.call('GET', '/user_groups')).body.user_groups as any[];
  const admins = groups.find((g) => g.name === 'role:administrators').id as number;
  const created = await iago.call('POST', '/user_groups/create', {
    name: 'leads', description: 'Team leads', members: [iago.userId], can_mention_group: admins,
  });
  t.equal(created.body.result, 'success');
  const open = await iago.call('POST', '/user_groups/create', { name: 'crew', description: 'Anyone may mention', members: [iago.userId] });
  t.equal(open.body.result, 'success');

  const newest = async () => (await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0 })).body.messages[0].id;
  const before = await newest();
  const refused = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'groups', content: 'ping @*leads*' });
  t.same(refused.body, {
    result: 'error', code: 'BAD_REQUEST',
    msg: "You are not allowed to mention user group 'leads'. You must be a member of 'role:administrators' to mention this group.",
  });
  t.equal(await newest(), before, 'nothing was sent');
  // Silent mentions, groups open to everyone, and permitted senders are fine.
  t.equal((await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'groups', content: 'fyi @_*leads*' })).body.result, 'success');
  t.equal((await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'groups', content: 'hi @*crew*' })).body.result, 'success');
  t.equal((await iago.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'groups', content: 'hi @*leads*' })).body.result, 'success');
  // Editing a message to add a forbidden group mention is refused too.
  const mine = await newest();
  const own = (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'groups', content: 'plain' })).body.id;
  t.ok(own > mine);
  t.match((await hamlet.call('PATCH', `/messages/${own}`, { content: 'now @*leads*' })).body, { result: 'error', msg: /not allowed to mention user group 'leads'/ });
  t.equal((await hamlet.call('GET', `/messages/${own}`, { apply_markdown: false })).body.message.content, 'plain', 'content unchanged');
});
