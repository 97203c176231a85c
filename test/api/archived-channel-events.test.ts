/**
 * Archiving and unarchiving a channel per the `archived_channels` client capability (FL 315;
 * Zulip's `do_deactivate_stream` / `do_unarchive_stream`): clients with it get `stream` op `update`
 * `is_archived` (and keep the channel, marked archived, in `/register`); clients without it get op
 * `delete` on archiving and op `create` on unarchiving. Checked with verifyAction both ways;
 * errors leave the state unchanged.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { rejects, run, smallRealm } from '../support/realm-fixture.js';

const WITH = { client_capabilities: { archived_channels: true } };
const channelTypes = { eventTypes: ['stream'], fetchEventTypes: ['stream', 'subscription', 'default_streams'] };
type Json = Record<string, any>;

const channel = async (admin: Caller, id: number) => (await admin.call('GET', `/streams/${id}`)).body.stream as Json;

t.test('archive: update is_archived with the capability, delete without', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = (await hamlet.call('POST', '/channels/create', { name: 'Old', subscribers: [hamlet.userId, othello.userId] })).body.id as number;

  const modern = await verifyAction(t, s, othello, {
    ...channelTypes, registerParams: WITH, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('DELETE', `/streams/${id}`),
  });
  t.same(modern.actionResult.body, { result: 'success', msg: '' });
  t.same(modern.events[0], { id: modern.events[0]!.id, type: 'stream', op: 'update', stream_id: id, name: 'Old', property: 'is_archived', value: true });
  t.match(modern.after.subscriptions.find((x: Json) => x.stream_id === id), { name: 'Old', is_archived: true }, 'still known, archived');
  t.match(modern.after.streams.find((x: Json) => x.stream_id === id), { is_archived: true });

  // Unarchive: update is_archived false for the capable client.
  const back = await verifyAction(t, s, othello, {
    ...channelTypes, registerParams: WITH, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/streams/${id}`, { is_archived: false }),
  });
  t.same(back.events[0], { id: back.events[0]!.id, type: 'stream', op: 'update', stream_id: id, name: 'Old', property: 'is_archived', value: false });

  const legacy = await verifyAction(t, s, othello, {
    ...channelTypes, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('DELETE', `/streams/${id}`),
  });
  t.match(legacy.events[0], { type: 'stream', op: 'delete', streams: [{ stream_id: id, name: 'Old' }] });
  t.notOk(legacy.after.subscriptions.some((x: Json) => x.stream_id === id), 'gone for the legacy client');

  // Zulip's legacy clients file a re-created channel under never_subscribed (apply_event), so the
  // fold matches a fresh register for a viewer who is not subscribed.
  const cordelia = await s.as('cordelia@zulip.com');
  const created = await verifyAction(t, s, cordelia, {
    ...channelTypes, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('PATCH', `/streams/${id}`, { is_archived: false }),
  });
  t.match(created.events[0], { type: 'stream', op: 'create', streams: [{ stream_id: id, is_archived: false }] });
});

t.test('archiving a default channel; unarchiving with other changes', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = (await iago.call('POST', '/channels/create', { name: 'Lobby', subscribers: [iago.userId] })).body.id as number;
  t.equal((await iago.call('PATCH', `/streams/${id}`, { is_default_stream: true })).status, 200);

  const modern = await verifyAction(t, s, othello, {
    ...channelTypes, registerParams: WITH, numEvents: 2, stateChangeExpected: true,
    action: () => iago.call('DELETE', `/streams/${id}`),
  });
  t.match(modern.events, [
    { type: 'stream', op: 'update', stream_id: id, property: 'is_default_stream', value: false },
    { type: 'stream', op: 'update', stream_id: id, property: 'is_archived', value: true },
  ]);
  t.notOk(modern.after.realm_default_streams.includes(id));

  // Unarchiving and renaming at once: the capable client gets is_archived then the rename.
  const both = await verifyAction(t, s, othello, {
    ...channelTypes, registerParams: WITH, numEvents: 2, stateChangeExpected: true,
    action: () => iago.call('PATCH', `/streams/${id}`, { is_archived: false, new_name: 'Lounge' }),
  });
  t.match(both.events, [
    { type: 'stream', op: 'update', stream_id: id, name: 'Lobby', property: 'is_archived', value: false },
    { type: 'stream', op: 'update', stream_id: id, name: 'Lobby', property: 'name', value: 'Lounge' },
  ]);
  t.match(await channel(iago, id), { name: 'Lounge', is_archived: false });

  await iago.call('DELETE', `/streams/${id}`);
  const legacy = await verifyAction(t, s, othello, {
    ...channelTypes, numEvents: 1, stateChangeExpected: true,
    action: () => iago.call('PATCH', `/streams/${id}`, { is_archived: false, new_name: 'Lobby' }),
  });
  t.match(legacy.events[0], { type: 'stream', op: 'create', streams: [{ stream_id: id, name: 'Lobby', is_archived: false }] });
});

t.test('archive errors leave the state unchanged and send nothing', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  rejects(t, state, { type: 'archive_channel', actorId: ids.other, streamId: streams.general }, ctx, 'You do not have permission to administer this channel.');
  rejects(t, state, { type: 'archive_channel', actorId: ids.owner, streamId: 9999 }, ctx, 'Invalid channel ID');
  run(state, { type: 'archive_channel', actorId: ids.owner, streamId: streams.general }, ctx);
  rejects(t, state, { type: 'archive_channel', actorId: ids.owner, streamId: streams.general }, ctx, 'Channel is already deactivated');

  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const id = (await hamlet.call('POST', '/channels/create', { name: 'Kept', subscribers: [hamlet.userId] })).body.id as number;
  for (const registerParams of [WITH, {}]) {
    const denied = await verifyAction(t, s, othello, {
      ...channelTypes, registerParams, numEvents: 0, stateChangeExpected: false,
      action: () => othello.call('DELETE', `/streams/${id}`),
    });
    t.same(denied.actionResult.body, { result: 'error', msg: 'You do not have permission to administer this channel.', code: 'BAD_REQUEST' });
  }
});
