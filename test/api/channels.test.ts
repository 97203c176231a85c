/**
 * POST /channels/create, PATCH/DELETE/GET /streams/{id}, GET /streams/{id}/members
 * (https://zulip.com/api/update-stream, https://zulip.com/api/create-channel;
 * https://zulip.com/api/get-stream-by-id, https://zulip.com/api/archive-stream,
 * https://zulip.com/api/get-subscribers).
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

async function allStreams(admin: Caller): Promise<unknown> {
  return (await admin.call('GET', '/streams', { include_all_active: true, exclude_archived: false })).body.streams;
}

t.test('create a channel with defaults', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const created = await hamlet.call('POST', '/channels/create', { name: '  New Channel ', subscribers: [hamlet.userId, othello.userId], description: 'A *new*\nchannel' });
  t.equal(created.status, 200, JSON.stringify(created.body));
  t.same(Object.keys(created.body).sort(), ['id', 'msg', 'result']);
  const id = created.body.id;
  const got = await othello.call('GET', `/streams/${id}`);
  t.match(got.body.stream, {
    stream_id: id, name: 'New Channel', description: 'A *new* channel', rendered_description: '<p>A <em>new</em> channel</p>',
    invite_only: false, is_web_public: false, history_public_to_subscribers: true, is_archived: false, creator_id: hamlet.userId,
    message_retention_days: null, topics_policy: 'inherit', folder_id: null, subscriber_count: 2,
    can_administer_channel_group: { direct_members: [hamlet.userId], direct_subgroups: [] },
  });
  t.same((await othello.call('GET', `/streams/${id}/members`)).body.subscribers, [hamlet.userId, othello.userId].sort((a, b) => a - b));
  const subs = (await othello.call('GET', '/users/me/subscriptions')).body.subscriptions.map((x: { name: string }) => x.name);
  t.ok(subs.includes('New Channel'));
});

t.test('create: every error, state unchanged', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const before = await allStreams(iago);
  const base = { subscribers: [hamlet.userId] };
  const cases: Array<[Caller, Record<string, unknown>, object]> = [
    [hamlet, { ...base, name: '   ' }, err("Channel name can't be empty!")],
    [hamlet, { ...base, name: 'x'.repeat(61) }, err('Channel name too long (limit: 60 characters).')],
    [hamlet, { ...base, name: 'bad\u0001name' }, err('Invalid character in channel name, at position 4!')],
    [hamlet, { ...base, name: 'ok', description: 'd'.repeat(1025) }, err('description is too long (limit: 1024 characters)')],
    [polonius, { ...base, name: 'ok' }, err('Not allowed for guest users')],
    [hamlet, { ...base, name: 'ok', is_default_stream: true }, err('Insufficient permission')],
    [iago, { ...base, name: 'ok', is_default_stream: true, invite_only: true }, err('A default channel cannot be private.')],
    [hamlet, { ...base, name: 'ok', is_web_public: true }, err('Web-public channels are not enabled.')],
    [hamlet, { ...base, name: 'ok', history_public_to_subscribers: false }, err('Invalid parameters')],
    [hamlet, { ...base, name: 'ok', message_retention_days: 30 }, err('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL')],
    [hamlet, { ...base, name: 'ok', message_retention_days: 'forever' }, { ...err("Bad value for 'message_retention_days': forever", 'REQUEST_VARIABLE_INVALID') }],
    [hamlet, { ...base, name: 'ok', topics_policy: 'sometimes' }, err('Invalid topics_policy')],
    [hamlet, { ...base, name: 'ok', folder_id: 7 }, err('Invalid channel folder ID')],
    [hamlet, { ...base, name: 'ok', can_send_message_group: 9999 }, err('Invalid user group ID')],
    [hamlet, { ...base, name: 'ok', can_send_message_group: { direct_members: [9999], direct_subgroups: [] } }, err('Invalid user ID: 9999')],
    [hamlet, { ...base, name: 'ok', can_send_message_group: { direct_members: [], direct_subgroups: [9999] } }, err('Invalid user group ID')],
    [hamlet, { subscribers: [9999], name: 'ok' }, err('No such user')],
  ];
  for (const [caller, params, expected] of cases) {
    const reply = await caller.call('POST', '/channels/create', params);
    t.equal(reply.status, 400, JSON.stringify(params));
    t.match(reply.body, expected, JSON.stringify(params));
  }
  // Zulip's ChannelExistsError: its own code and HTTP 409 (FL 417).
  const duplicate = await hamlet.call('POST', '/channels/create', { ...base, name: 'verona' });
  t.equal(duplicate.status, 409, 'duplicate name: 409 Conflict');
  t.same(duplicate.body, err("Channel 'verona' already exists", 'CHANNEL_ALREADY_EXISTS'));
  const missing = await hamlet.call('POST', '/channels/create', { name: 'ok' });
  t.match(missing.body, { code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'subscribers' argument" });
  t.same(await allStreams(iago), before, 'no channel created');
});

t.test('create: permissions and settings', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const reply = await desdemona.call('POST', '/channels/create', {
    name: 'Owners only', subscribers: [desdemona.userId], invite_only: true, history_public_to_subscribers: true,
    message_retention_days: 'unlimited', topics_policy: 'disable_empty_topic',
    can_send_message_group: { direct_members: [desdemona.userId, hamlet.userId], direct_subgroups: [] },
    can_subscribe_group: { direct_members: [], direct_subgroups: [] },
  });
  t.equal(reply.status, 200, JSON.stringify(reply.body));
  const stream = (await desdemona.call('GET', `/streams/${reply.body.id}`)).body.stream;
  const nobody = stream.can_add_subscribers_group;
  t.match(stream, { invite_only: true, history_public_to_subscribers: true, message_retention_days: -1, topics_policy: 'disable_empty_topic', can_subscribe_group: nobody });
  t.same(stream.can_send_message_group, { direct_members: [hamlet.userId, desdemona.userId].sort((a, b) => a - b), direct_subgroups: [] });
  t.same((await othello.call('GET', `/streams/${reply.body.id}`)).body, err('Invalid channel ID'), 'private: invisible to others');
  t.same((await othello.call('GET', `/streams/${reply.body.id}/members`)).body, err('Invalid channel ID'));
  t.equal((await iago.call('GET', `/streams/${reply.body.id}`)).status, 200, 'admins see private channels');
  const def = await desdemona.call('POST', '/channels/create', { name: 'Default', subscribers: [], is_default_stream: true, announce: true });
  t.equal(def.status, 200, JSON.stringify(def.body));
  t.match((await othello.call('GET', `/streams/${def.body.id}`)).body.stream, { subscriber_count: 0 });
  t.ok((await othello.call('POST', '/register', { fetch_event_types: ['default_streams'] })).body.realm_default_streams.includes(def.body.id));
  t.same((await othello.call('GET', '/streams/9999')).body, err('Invalid channel ID'));
});

t.test('create: events', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  // A new subscriber sees the stream created, their subscription, and Notification Bot's first
  // message (which sets first_message_id); folded state equals the fresh one.
  const { events } = await verifyAction(t, s, cordelia, {
    eventTypes: ['stream', 'subscription', 'message'],
    registerParams: { client_capabilities: { notification_settings_null: true } },
    numEvents: 3,
    action: () => hamlet.call('POST', '/channels/create', { name: 'Evented', subscribers: [hamlet.userId, cordelia.userId] }),
  });
  t.match(events[0], { type: 'stream', op: 'create', streams: [{ name: 'Evented', subscriber_count: 0 }] });
  t.match(events[2], { type: 'message', message: { sender_email: 'notification-bot@zulip.com', subject: 'channel events' } });
  // A subscriber gets stream create + subscription add; a non-subscriber stream create + peer_add.
  const reg = (await cordelia.call('POST', '/register', { event_types: ['stream', 'subscription'] })).body;
  const reg2 = (await othello.call('POST', '/register', { event_types: ['stream', 'subscription'] })).body;
  await hamlet.call('POST', '/channels/create', { name: 'Second', subscribers: [hamlet.userId, cordelia.userId] });
  const poll = async (c: Caller, r: Record<string, any>) =>
    (await c.call('GET', '/events', { queue_id: r.queue_id, last_event_id: r.last_event_id, dont_block: true })).body.events;
  const mine = await poll(cordelia, reg);
  t.match(mine.map((e: { type: string; op: string }) => `${e.type}/${e.op}`), ['stream/create', 'subscription/add']);
  t.same(mine[1].subscriptions[0].subscribers, [hamlet.userId, cordelia.userId].sort((a, b) => a - b));
  const theirs = await poll(othello, reg2);
  t.match(theirs, [{ type: 'stream', op: 'create' }, { type: 'subscription', op: 'peer_add', user_ids: [hamlet.userId, cordelia.userId].sort((a, b) => a - b) }]);
  // Private: only subscribers and admins.
  const reg3 = (await othello.call('POST', '/register', { event_types: ['stream', 'subscription'] })).body;
  await hamlet.call('POST', '/channels/create', { name: 'Hidden', subscribers: [hamlet.userId], invite_only: true });
  t.same(await poll(othello, reg3), [], 'no events about a private channel to outsiders');
});

t.test('update: properties and events', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const id = (await hamlet.call('POST', '/channels/create', { name: 'Mine', subscribers: [hamlet.userId] })).body.id;
  const patch = (c: Caller, params: Record<string, unknown>) => c.call('PATCH', `/streams/${id}`, params);

  const renamed = await verifyAction(t, s, othello, {
    eventTypes: ['stream'], numEvents: 1, stateChangeExpected: true,
    action: () => patch(hamlet, { new_name: 'Ours' }),
  });
  t.same(renamed.actionResult.body, { result: 'success', msg: '' });
  t.match(renamed.events[0], { type: 'stream', op: 'update', stream_id: id, name: 'Mine', property: 'name', value: 'Ours' });

  const described = await verifyAction(t, s, othello, {
    eventTypes: ['stream'], numEvents: 1,
    action: () => patch(hamlet, { description: '**bold**' }),
  });
  t.match(described.events[0], { property: 'description', value: '**bold**', rendered_description: '<p><strong>bold</strong></p>' });

  const privacy = await verifyAction(t, s, hamlet, {
    eventTypes: ['stream'], numEvents: 1,
    action: () => patch(hamlet, { is_private: true }),
  });
  t.match(privacy.events[0], { property: 'invite_only', value: true, history_public_to_subscribers: false, is_web_public: false });

  const groups = await verifyAction(t, s, hamlet, {
    eventTypes: ['stream'], numEvents: 2,
    action: () => patch(hamlet, { topics_policy: 'allow_empty_topic', can_send_message_group: { new: { direct_members: [hamlet.userId], direct_subgroups: [] } } }),
  });
  t.match(groups.events.map((e) => e.property), ['topics_policy', 'can_send_message_group']);

  t.same((await patch(iago, { is_private: false })).body, err('Invalid channel ID'), 'privacy needs content access, even for admins');
  t.same((await patch(hamlet, { is_private: false })).body, { result: 'success', msg: '' });
  const def = await verifyAction(t, s, othello, {
    eventTypes: ['stream', 'default_streams'], numEvents: 1, stateChangeExpected: true,
    action: () => patch(iago, { is_default_stream: true }),
  });
  t.match(def.events[0], { property: 'is_default_stream', value: true });
  t.same((await patch(hamlet, { description: '**bold**' })).body, { result: 'success', msg: '' }, 'no-op update succeeds');
  void othello;
});

t.test('update: errors, state unchanged', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  const id = (await hamlet.call('POST', '/channels/create', { name: 'Mine', subscribers: [hamlet.userId] })).body.id;
  const hidden = (await hamlet.call('POST', '/channels/create', { name: 'Hidden', subscribers: [hamlet.userId], invite_only: true })).body.id;
  const before = await allStreams(iago);
  const nobody = (await hamlet.call('GET', `/streams/${id}`)).body.stream.can_add_subscribers_group;
  const cases: Array<[Caller, number, Record<string, unknown>, object]> = [
    [othello, id, { description: 'x' }, err('You do not have permission to administer this channel.')],
    [othello, hidden, { description: 'x' }, err('Invalid channel ID')],
    [othello, 9999, { description: 'x' }, err('Invalid channel ID')],
    [hamlet, id, { new_name: 'Mine' }, err('Channel already has that name!')],
    [hamlet, id, { new_name: 'VERONA' }, err("Channel name 'VERONA' is already taken.")],
    [hamlet, id, { new_name: '' }, err("Channel name can't be empty!")],
    [hamlet, id, { new_name: 'y'.repeat(61) }, err('Channel name too long (limit: 60 characters).')],
    [hamlet, id, { description: 'd'.repeat(1025) }, err('description is too long (limit: 1024 characters)')],
    [hamlet, id, { history_public_to_subscribers: false }, err('Invalid parameters')],
    [hamlet, id, { is_web_public: true, is_private: true }, err('Invalid parameters')],
    [hamlet, id, { is_web_public: true }, err('Web-public channels are not enabled.')],
    [hamlet, id, { is_default_stream: true }, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL')],
    [iago, 1, { is_private: true }, err('A default channel cannot be private.')],
    [hamlet, id, { message_retention_days: 5 }, err('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL')],
    [desdemona, id, { message_retention_days: -3 }, err("Bad value for 'message_retention_days': -3", 'REQUEST_VARIABLE_INVALID')],
    [hamlet, id, { is_archived: false }, err('Channel is not archived.')],
    [hamlet, id, { is_archived: true }, err('Channel can only be unarchived; use DELETE to archive it.')],
    [hamlet, id, { folder_id: 3 }, err('Invalid channel folder ID')],
    [hamlet, id, { topics_policy: 'never' }, err('Invalid topics_policy')],
    [hamlet, id, { can_send_message_group: { new: nobody, old: nobody } }, err("'old' value does not match the expected value.")],
    [hamlet, id, { can_send_message_group: { new: 9999 } }, err('Invalid user group ID')],
    [hamlet, id, { can_send_message_group: 5 }, err('can_send_message_group is not a valid group-setting update')],
    [iago, hidden, { is_private: false }, err('Invalid channel ID')],
    [iago, hidden, { can_send_message_group: { new: nobody } }, err('Invalid channel ID')],
  ];
  for (const [caller, streamId, params, expected] of cases) {
    const reply = await caller.call('PATCH', `/streams/${streamId}`, params);
    t.match(reply.body, expected, `${caller.email} ${streamId} ${JSON.stringify(params)}`);
  }
  t.same(await allStreams(iago), before, 'nothing changed');
});

t.test('empty_topic_only needs every message in the empty topic', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  // Created through a subscription request: the creation notice lands in "channel events"
  // (a topic), so make the empty topic the only one by creating the channel with that policy.
  const id = (await hamlet.call('POST', '/channels/create', { name: 'Topicless', subscribers: [hamlet.userId], topics_policy: 'empty_topic_only' })).body.id;
  t.same(
    (await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: id }], allow_empty_topic_name: true })).body.messages.map((m: any) => m.subject),
    [''],
    'the creation notice goes to the empty topic of an empty_topic_only channel',
  );
  t.equal((await hamlet.call('POST', '/messages', { type: 'stream', to: id, topic: '', content: 'hi' })).status, 200);
  t.same((await hamlet.call('PATCH', `/streams/${id}`, { topics_policy: 'empty_topic_only' })).body, { result: 'success', msg: '' });
  t.equal((await hamlet.call('GET', `/streams/${id}`)).body.stream.topics_policy, 'empty_topic_only');
  const other = (await hamlet.call('POST', '/channels/create', { name: 'Topical', subscribers: [hamlet.userId] })).body.id;
  await hamlet.call('POST', '/messages', { type: 'stream', to: other, topic: 'a topic', content: 'hi' });
  t.match((await hamlet.call('PATCH', `/streams/${other}`, { topics_policy: 'empty_topic_only' })).body, {
    result: 'error', msg: 'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.',
  });
});

t.test('archive and unarchive', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const id = (await hamlet.call('POST', '/channels/create', { name: 'Old', subscribers: [hamlet.userId] })).body.id;
  t.same((await othello.call('DELETE', `/streams/${id}`)).body, err('You do not have permission to administer this channel.'));
  const archived = await verifyAction(t, s, othello, {
    eventTypes: ['stream'], numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('DELETE', `/streams/${id}`),
  });
  t.same(archived.actionResult.body, { result: 'success', msg: '' });
  t.match(archived.events[0], { type: 'stream', op: 'delete', streams: [{ stream_id: id, name: 'Old' }] });
  t.match((await hamlet.call('GET', `/streams/${id}`)).body.stream, { name: 'Old', is_archived: true });
  t.same((await hamlet.call('DELETE', `/streams/${id}`)).body, err('Channel is already deactivated'));
  t.same((await hamlet.call('PATCH', `/streams/${id}`, { description: 'x' })).body, err('Invalid channel ID'));
  t.same((await hamlet.call('PATCH', `/streams/${id}`, { is_archived: false })).body, { result: 'success', msg: '' });
  t.match((await hamlet.call('GET', `/streams/${id}`)).body.stream, { is_archived: false });
  // A default channel stops being default when archived.
  await iago.call('PATCH', `/streams/${id}`, { is_default_stream: true });
  await iago.call('DELETE', `/streams/${id}`);
  await iago.call('PATCH', `/streams/${id}`, { is_archived: false });
  t.notOk((await iago.call('GET', '/streams', { include_default: true })).body.streams.find((x: { stream_id: number }) => x.stream_id === id).is_default);
});

t.test('privacy changes: create/delete for users gaining/losing access; unarchive is create', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = (await hamlet.call('POST', '/channels/create', { name: 'Shifting', subscribers: [hamlet.userId] })).body.id;
  const lost = await verifyAction(t, s, othello, {
    eventTypes: ['stream'], numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/streams/${id}`, { is_private: true }),
  });
  t.match(lost.events[0], { type: 'stream', op: 'delete', streams: [{ stream_id: id }] });
  const gained = await verifyAction(t, s, othello, {
    eventTypes: ['stream'], numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/streams/${id}`, { is_private: false }),
  });
  t.match(gained.events[0], { type: 'stream', op: 'create', streams: [{ stream_id: id, invite_only: false }] });
  await hamlet.call('DELETE', `/streams/${id}`);
  const back = await verifyAction(t, s, othello, {
    eventTypes: ['stream'], numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/streams/${id}`, { is_archived: false }),
  });
  t.match(back.events[0], { type: 'stream', op: 'create', streams: [{ stream_id: id, is_archived: false }] });
});

t.test('create: stream + subscription events fold into the fresh state', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const iago = await s.as('iago@zulip.com');
  for (const [viewer, name, params] of [
    [cordelia, 'Folded', {}],
    [othello, 'Folded too', {}],
    [iago, 'Folded private', { invite_only: true }],
    [cordelia, 'Folded private 2', { invite_only: true }],
  ] as const) {
    // The subscriptions tests' convention: clients that keep `null` notification settings.
    const caps = { client_capabilities: { notification_settings_null: true } };
    for (const registerParams of [caps, { ...caps, include_subscribers: true }]) {
      await verifyAction(t, s, viewer, {
        eventTypes: ['stream', 'subscription'], registerParams, stateChangeExpected: true,
        action: () => hamlet.call('POST', '/channels/create', { name: `${name}${JSON.stringify(registerParams).length}`, subscribers: [hamlet.userId, cordelia.userId], ...params }),
      });
    }
  }
});
