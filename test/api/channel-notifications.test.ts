/**
 * Notification Bot messages about channels (https://zulip.com/api/subscribe,
 * https://zulip.com/api/update-stream): the first message of a
 * new channel, `announce`, "subscribed you" direct messages and the "channel events" notices of
 * PATCH /streams/{id}; and the bot as a cross-realm bot.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';

type Message = Record<string, any>;

async function newest(caller: Caller, narrow: unknown[], count = 5): Promise<Message[]> {
  const reply = await caller.call('GET', '/messages', { anchor: 'newest', num_before: count, num_after: 0, narrow, apply_markdown: false });
  t.equal(reply.body.result, 'success');
  return reply.body.messages as Message[];
}

t.test('a new channel starts with its creation notice; announce posts in the announcements channel', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const created = await hamlet.call('POST', '/channels/create', { name: 'Elsinore', subscribers: [hamlet.userId], description: 'The *castle*', announce: true });
  t.equal(created.body.result, 'success');
  const id = created.body.id as number;

  const inChannel = await newest(hamlet, [{ operator: 'channel', operand: id }]);
  t.equal(inChannel.length, 1);
  t.match(inChannel[0], {
    sender_email: 'notification-bot@zulip.com',
    sender_full_name: 'Notification Bot',
    subject: 'channel events',
    content: `**Public** channel created by @_**King Hamlet|${hamlet.userId}**. **Description:**\n\`\`\`\` quote\nThe *castle*\n\`\`\`\``,
  });

  const register = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body;
  t.equal(register.realm_new_stream_announcements_stream_id, 1, 'the demo announces in Verona');
  const announcements = await newest(hamlet, [{ operator: 'channel', operand: 1 }, { operator: 'topic', operand: 'new channels' }]);
  t.same(announcements.map((m) => m.content), [`@_**King Hamlet|${hamlet.userId}** created a new channel #**Elsinore**.`]);

  // Without announce: the creation notice only.
  await hamlet.call('POST', '/channels/create', { name: 'Quiet', subscribers: [hamlet.userId] });
  t.equal((await newest(hamlet, [{ operator: 'channel', operand: 1 }, { operator: 'topic', operand: 'new channels' }])).length, 1);

  // Private channels say so.
  const secret = await hamlet.call('POST', '/channels/create', { name: 'Secret', subscribers: [hamlet.userId], invite_only: true });
  const notice = await newest(hamlet, [{ operator: 'channel', operand: secret.body.id }]);
  t.match(notice[0]?.content, /^\*\*Private, protected history\*\* channel created by .*\*No description\.\*/s);
});

t.test('subscribing others to existing channels sends them one direct message; creating does not', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const othello = await s.as('othello@zulip.com');

  const one = await iago.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Venice' }], principals: [othello.userId] });
  t.equal(one.body.result, 'success');
  const two = await iago.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Rome' }, { name: 'Scotland' }, { name: 'Brand new' }], principals: [othello.userId] });
  t.same(two.body.already_subscribed, { [String(othello.userId)]: ['Scotland'] }, 'keyed by user id (FL 417)');
  const dms = await newest(othello, [{ operator: 'dm', operand: 'notification-bot@zulip.com' }]);
  t.same(dms.map((m) => m.content), [
    `@**Iago|${iago.userId}** subscribed you to the channel #**Venice**.`,
    `@**Iago|${iago.userId}** subscribed you to the channel #**Rome**.`,
  ], 'already-subscribed and newly created channels are not mentioned');

  // Subscribing yourself sends nothing.
  await othello.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Denmark' }] });
  t.equal((await newest(othello, [{ operator: 'dm', operand: 'notification-bot@zulip.com' }])).length, 2);
});

t.test('PATCH /streams/{id} posts rename, description and access notices in "channel events"', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const who = `@_**Iago|${iago.userId}**`;
  const events = () => newest(iago, [{ operator: 'channel', operand: 4 }, { operator: 'topic', operand: 'channel events' }], 10);
  t.same(await events(), []);
  // Subscribed, so the channel's history stays readable after it turns private.
  await iago.call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Venice' }] });

  t.equal((await iago.call('PATCH', '/streams/4', { new_name: 'Venezia' })).body.result, 'success');
  t.equal((await iago.call('PATCH', '/streams/4', { description: 'Canals' })).body.result, 'success');
  t.equal((await iago.call('PATCH', '/streams/4', { is_private: true })).body.result, 'success');
  t.same((await events()).map((m) => m.content), [
    `${who} renamed channel **Venice** to **Venezia**.`,
    `${who} changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\nThe Venice channel.\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\nCanals\n\`\`\`\``,
    `${who} changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, protected history**.`,
  ]);

  // A rejected change posts nothing.
  t.equal((await iago.call('PATCH', '/streams/4', { new_name: 'Venezia' })).body.result, 'error');
  t.equal((await events()).length, 3);
});
