/**
 * Channel folders (Zulip FL 389–414): `POST /channel_folders/create`, `GET /channel_folders`,
 * `PATCH /channel_folders/{id}`, `PATCH /channel_folders` (reorder), `folder_id` on
 * `POST /channels/create` and `PATCH /streams/{id}`, /register `channel_folders`. Every error with
 * Zulip's string and "state unchanged" (no event, same register state), `channel_folder` events via
 * verifyAction; plus the handlers on a small realm (records, fingerprint unchanged after errors).
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { channelFoldersWire } from '../../src/domain/channel-folders.js';
import type { Command } from '../../src/realm/commands.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const missing = (name: string) => ({ result: 'error', msg: `Missing '${name}' argument`, code: 'REQUEST_VARIABLE_MISSING', var_name: name });
const folders = async (c: Caller, params: Record<string, unknown> = {}) =>
  (await c.call('GET', '/channel_folders', params)).body.channel_folders as Array<Record<string, unknown>>;

t.test('channel folders over HTTP', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const create = (params: Record<string, unknown>, who = iago) => who.call('POST', '/channel_folders/create', params);
  const patch = (id: number, params: Record<string, unknown>, who = iago) => who.call('PATCH', `/channel_folders/${id}`, params);
  /** `action` must fail with `body`, send no event and change no register state. */
  const refused = async (action: () => Promise<{ status: number; body: unknown }>, body: Record<string, unknown>) => {
    const r = await verifyAction(t, s, hamlet, { action, numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, String(body.msg));
    t.same(r.actionResult.body, body, String(body.msg));
  };

  t.same((await hamlet.call('GET', '/channel_folders')).body, { result: 'success', msg: '', channel_folders: [] }, 'none at first');
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['channel_folders'] })).body.channel_folders, [], 'register: none');

  // Create (administrators); the add event goes to everyone.
  const frontend = await verifyAction(t, s, hamlet, {
    action: () => create({ name: 'Frontend', description: 'Channels for **frontend** discussions' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(frontend.actionResult.body, { result: 'success', msg: '', channel_folder_id: 1 });
  const folder1 = frontend.events[0]!.channel_folder;
  t.type(folder1.date_created, 'number');
  t.ok(Number.isInteger(folder1.date_created), 'date_created in whole seconds');
  t.same(frontend.events[0], {
    id: frontend.events[0]!.id,
    type: 'channel_folder',
    op: 'add',
    channel_folder: {
      id: 1, name: 'Frontend', description: 'Channels for **frontend** discussions',
      rendered_description: '<p>Channels for <strong>frontend</strong> discussions</p>',
      creator_id: iago.userId, date_created: folder1.date_created, is_archived: false, order: 1,
    },
  });
  const backend = await verifyAction(t, s, hamlet, { action: () => create({ name: 'Backend', description: '' }), numEvents: 1, stateChangeExpected: true });
  t.same(backend.actionResult.body, { result: 'success', msg: '', channel_folder_id: 2 });
  t.match(backend.events[0]!.channel_folder, { id: 2, name: 'Backend', description: '', rendered_description: '', order: 2 });
  const desdemona = await s.as('desdemona@zulip.com');
  t.equal((await create({ name: 'Marketing', description: 'Sales' }, desdemona)).body.channel_folder_id, 3, 'owners may create');

  // Create errors: administrator first, then parameters in Zulip's order, then the name rules.
  await refused(() => create({ name: 'Design', description: '' }, hamlet), bad('Insufficient permission'));
  await refused(() => create({ name: 'Design', description: '' }, polonius), bad('Insufficient permission'));
  await refused(() => create({}, hamlet), bad('Insufficient permission'));
  await refused(() => create({ name: 'Design' }), missing('description'));
  await refused(() => create({ description: '' }), missing('name'));
  await refused(() => create({}), missing('description'));
  await refused(() => create({ name: 'x'.repeat(61), description: 'd'.repeat(1025) }), bad('description is too long (limit: 1024 characters)'));
  await refused(() => create({ name: 'x'.repeat(61), description: '' }), bad('name is too long (limit: 60 characters)'));
  await refused(() => create({ name: '', description: '' }), bad("Channel folder name can't be empty."));
  await refused(() => create({ name: '   ', description: '' }), bad("Channel folder name can't be empty."));
  await refused(() => create({ name: 'abc\u0001', description: '' }), bad('Invalid character in channel folder name, at position 4.'));
  await refused(() => create({ name: 'Frontend', description: '' }), bad('Channel folder name already in use'));
  await refused(() => create({ name: 'frontEND', description: 'x' }), bad('Channel folder name already in use'));
  t.equal((await create({ name: '\u{1F600}'.repeat(60), description: '' })).status, 200, 'the limit counts code points');

  // Everyone can list them, in order.
  const listed = await folders(polonius);
  t.same(listed.map((f) => [f.id, f.name, f.order, f.creator_id]), [
    [1, 'Frontend', 1, iago.userId], [2, 'Backend', 2, iago.userId], [3, 'Marketing', 3, desdemona.userId], [4, '\u{1F600}'.repeat(60), 4, iago.userId],
  ]);
  t.same(await folders(hamlet), listed);

  // Update: one event per changed property, unchanged values skipped.
  const rename = await verifyAction(t, s, hamlet, { action: () => patch(1, { name: 'Web frontend' }), numEvents: 1, stateChangeExpected: true });
  t.same(rename.actionResult.body, { result: 'success', msg: '' });
  t.same(rename.events[0], { id: rename.events[0]!.id, type: 'channel_folder', op: 'update', channel_folder_id: 1, data: { name: 'Web frontend' } });
  const both = await verifyAction(t, s, hamlet, {
    action: () => patch(2, { name: 'Server', description: 'Channels for *backend*' }),
    numEvents: 2,
    stateChangeExpected: true,
  });
  t.same(both.events.map((e) => e.data), [
    { name: 'Server' },
    { description: 'Channels for *backend*', rendered_description: '<p>Channels for <em>backend</em></p>' },
  ], 'name, then description (with its rendering)');
  const same = await verifyAction(t, s, hamlet, { action: () => patch(2, { name: 'Server', description: 'Channels for *backend*', is_archived: false }), numEvents: 0, stateChangeExpected: false });
  t.same(same.actionResult.body, { result: 'success', msg: '' }, 'nothing to change: success without events');
  const cleared = await verifyAction(t, s, hamlet, { action: () => patch(2, { description: '' }), numEvents: 1, stateChangeExpected: true });
  t.same(cleared.events[0]!.data, { description: '', rendered_description: '' });

  // Update errors.
  await refused(() => patch(1, { name: 'Design' }, hamlet), bad('Insufficient permission'));
  await refused(() => patch(999, { name: 'Design' }, hamlet), bad('Insufficient permission'));
  await refused(() => patch(999, { name: 'Design' }), bad('Invalid channel folder ID'));
  await refused(() => patch(1, { description: 'd'.repeat(1025), name: 'x'.repeat(61) }), bad('description is too long (limit: 1024 characters)'));
  await refused(() => patch(999, { name: 'x'.repeat(61) }), bad('name is too long (limit: 60 characters)'));
  await refused(() => patch(1, { name: '' }), bad("Channel folder name can't be empty."));
  await refused(() => patch(1, { name: 'SERVER' }), bad('Channel folder name already in use'));
  await refused(() => patch(1, { name: 'web frontend' }), bad('Channel folder name already in use'));
  await refused(() => patch(1, { name: 'Web\u0000frontend' }), bad('Invalid character in channel folder name, at position 4.'));
  await refused(() => patch(1, { description: 'New', name: 'Server' }), bad('Channel folder name already in use'));
  await refused(() => patch(1, { is_archived: 'yes' }), bad('is_archived is not valid JSON'));

  // folder_id on channel creation and update.
  const created = await iago.call('POST', '/channels/create', { name: 'design', subscribers: [hamlet.userId], folder_id: 1 });
  t.equal(created.status, 200, JSON.stringify(created.body));
  const designId = created.body.id as number;
  t.equal((await hamlet.call('GET', `/streams/${designId}`)).body.stream.folder_id, 1, 'created in the folder');
  const verona = 1;
  const moved = await verifyAction(t, s, hamlet, { action: () => iago.call('PATCH', `/streams/${verona}`, { folder_id: 2 }), numEvents: 1, stateChangeExpected: true });
  t.same(moved.actionResult.body, { result: 'success', msg: '' });
  t.same(moved.events[0], { id: moved.events[0]!.id, type: 'stream', op: 'update', stream_id: verona, name: 'Verona', property: 'folder_id', value: 2 });
  const unchanged = await verifyAction(t, s, hamlet, { action: () => iago.call('PATCH', `/streams/${verona}`, { folder_id: 2 }), numEvents: 0, stateChangeExpected: false });
  t.same(unchanged.actionResult.body, { result: 'success', msg: '' }, 'same folder: no event');
  await refused(() => iago.call('PATCH', `/streams/${verona}`, { folder_id: 99 }), bad('Invalid channel folder ID'));
  await refused(() => iago.call('POST', '/channels/create', { name: 'ops', subscribers: [], folder_id: 99 }), bad('Invalid channel folder ID'));

  // Archiving: not while a channel (even an archived one) is in the folder.
  await refused(() => patch(1, { is_archived: true }), bad('You need to remove all the channels from this folder to archive it.'));
  t.equal((await iago.call('DELETE', `/streams/${designId}`)).status, 200, 'archive the channel');
  await refused(() => patch(1, { is_archived: true }), bad('You need to remove all the channels from this folder to archive it.'));
  await refused(() => patch(1, { name: 'Renamed', is_archived: true }), bad('You need to remove all the channels from this folder to archive it.'));
  t.equal((await iago.call('PATCH', `/streams/${designId}`, { is_archived: false })).status, 200, 'unarchive the channel');
  const out = await verifyAction(t, s, hamlet, { action: () => iago.call('PATCH', `/streams/${designId}`, { folder_id: null }), numEvents: 1, stateChangeExpected: true });
  t.match(out.events[0], { type: 'stream', op: 'update', stream_id: designId, property: 'folder_id', value: null });
  const archived = await verifyAction(t, s, hamlet, { action: () => patch(1, { is_archived: true }), numEvents: 1, stateChangeExpected: true });
  t.same(archived.events[0], { id: archived.events[0]!.id, type: 'channel_folder', op: 'update', channel_folder_id: 1, data: { is_archived: true } });
  t.same((await folders(hamlet)).map((f) => f.id), [2, 3, 4], 'archived folders hidden by default');
  t.same((await folders(hamlet, { include_archived: true })).map((f) => [f.id, f.is_archived]), [[1, true], [2, false], [3, false], [4, false]]);
  t.same(
    ((await hamlet.call('POST', '/register', { fetch_event_types: ['channel_folders'] })).body.channel_folders as Array<{ id: number }>).map((f) => f.id),
    [1, 2, 3, 4],
    'register includes archived folders',
  );
  t.equal((await hamlet.call('GET', '/channel_folders', { include_archived: 'nope' })).status, 400, 'include_archived must be a JSON bool');

  // An archived folder cannot take channels.
  await refused(() => iago.call('PATCH', `/streams/${designId}`, { folder_id: 1 }), bad('Invalid channel folder ID'));
  await refused(() => iago.call('POST', '/channels/create', { name: 'ops', subscribers: [], folder_id: 1 }), bad('Invalid channel folder ID'));
  await refused(() => create({ name: 'web FRONTEND', description: '' }), bad('Channel folder name already in use'));

  const unarchived = await verifyAction(t, s, hamlet, { action: () => patch(1, { is_archived: false }), numEvents: 1, stateChangeExpected: true });
  t.same(unarchived.events[0]!.data, { is_archived: false });
  t.equal((await iago.call('PATCH', `/streams/${designId}`, { folder_id: 1 })).status, 200, 'usable again once unarchived');

  // Reorder: every folder must be listed (archived ones too); order = index in the list.
  t.equal((await iago.call('PATCH', `/streams/${designId}`, { folder_id: null })).status, 200);
  t.equal((await patch(1, { is_archived: true })).status, 200, 'archive folder 1 again');
  const reorder = (order: unknown, who = iago) => who.call('PATCH', '/channel_folders', { order });
  await refused(() => reorder([4, 3, 2, 1], hamlet), bad('Insufficient permission'));
  await refused(() => iago.call('PATCH', '/channel_folders', {}), missing('order'));
  await refused(() => reorder([4, 3, 2]), bad('Invalid order mapping.'));
  await refused(() => reorder([]), bad('Invalid order mapping.'));
  await refused(() => reorder('4,3,2,1'), bad('order is not valid JSON'));
  const reordered = await verifyAction(t, s, hamlet, { action: () => reorder([4, 1, 3, 2]), numEvents: 1, stateChangeExpected: true });
  t.same(reordered.actionResult.body, { result: 'success', msg: '' });
  t.same(reordered.events[0], { id: reordered.events[0]!.id, type: 'channel_folder', op: 'reorder', order: [4, 1, 3, 2] });
  t.same((await folders(hamlet, { include_archived: true })).map((f) => [f.id, f.order]), [[4, 0], [1, 1], [3, 2], [2, 3]], 'listed by order');
  t.same((await folders(hamlet)).map((f) => f.id), [4, 3, 2]);

  // As Zulip: unknown ids are ignored and a repeated id takes its last position.
  const odd = await verifyAction(t, s, hamlet, { action: () => reorder([2, 99, 1, 3, 2, 4]), numEvents: 1, stateChangeExpected: true });
  t.same(odd.events[0]!.order, [2, 99, 1, 3, 2, 4], 'the event carries the list as sent');
  t.same((await folders(hamlet, { include_archived: true })).map((f) => [f.id, f.order]), [[1, 2], [3, 3], [2, 4], [4, 5]]);

  // A folder created after a reorder comes last (its order is its id).
  const last = await verifyAction(t, s, hamlet, { action: () => create({ name: 'Design', description: '' }), numEvents: 1, stateChangeExpected: true });
  t.match(last.events[0]!.channel_folder, { id: 5, order: 5 });
  t.same((await folders(hamlet)).map((f) => f.id), [3, 2, 4, 5]);
});

t.test('channel folder handlers', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const cmd = (c: Record<string, unknown>) => c as unknown as Command;

  const added = decide(state, cmd({ type: 'create_channel_folder', actorId: ids.admin, name: 'Ops', description: 'Run *things*' }), ctx);
  if (!added.ok) throw added.error;
  const dateCreated = (added.value.records[0] as { folder: { dateCreated: number } }).folder.dateCreated;
  t.ok(Number.isInteger(dateCreated) && dateCreated > 1_600_000_000, 'date_created: whole UNIX seconds from ctx.now()');
  const folder = { id: 1, name: 'Ops', description: 'Run *things*', renderedDescription: '<p>Run <em>things</em></p>', creatorId: ids.admin, dateCreated, isArchived: false, order: 1 };
  t.same(added.value.records, [{ type: 'channel_folder_created', v: 1, folder }]);
  t.same(added.value.reply, { channel_folder_id: 1 });
  const active = [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
  t.same(added.value.events[0]!.userIds, active, 'to every active user');
  run(state, cmd({ type: 'create_channel_folder', actorId: ids.admin, name: 'Ops', description: 'Run *things*' }), ctx);
  run(state, cmd({ type: 'create_channel_folder', actorId: ids.owner, name: 'Dev', description: '' }), ctx);
  run(state, cmd({ type: 'update_channel', actorId: ids.admin, streamId: streams.general, folderId: 2, groups: {} }), ctx);
  t.equal(state.streams.get(streams.general)!.folderId, 2, 'channel moved into folder 2');

  const errors: Array<[Record<string, unknown>, string]> = [
    [{ type: 'create_channel_folder', actorId: ids.member, name: 'X', description: '' }, 'Insufficient permission'],
    [{ type: 'create_channel_folder', actorId: ids.guest, name: 'X', description: '' }, 'Insufficient permission'],
    [{ type: 'create_channel_folder', actorId: 9999, name: 'X', description: '' }, 'No such user'],
    [{ type: 'create_channel_folder', actorId: ids.admin, name: 'X', description: 'd'.repeat(1025) }, 'description is too long (limit: 1024 characters)'],
    [{ type: 'create_channel_folder', actorId: ids.admin, name: 'x'.repeat(61), description: '' }, 'name is too long (limit: 60 characters)'],
    [{ type: 'create_channel_folder', actorId: ids.admin, name: ' \t', description: '' }, "Channel folder name can't be empty."],
    [{ type: 'create_channel_folder', actorId: ids.admin, name: 'a\u007fb', description: '' }, 'Invalid character in channel folder name, at position 2.'],
    [{ type: 'create_channel_folder', actorId: ids.admin, name: 'OPS', description: '' }, 'Channel folder name already in use'],
    [{ type: 'update_channel_folder', actorId: ids.member, folderId: 1, name: 'Y' }, 'Insufficient permission'],
    [{ type: 'update_channel_folder', actorId: ids.admin, folderId: 7, name: 'Y' }, 'Invalid channel folder ID'],
    [{ type: 'update_channel_folder', actorId: ids.admin, folderId: 1, name: 'dev' }, 'Channel folder name already in use'],
    [{ type: 'update_channel_folder', actorId: ids.admin, folderId: 2, isArchived: true }, 'You need to remove all the channels from this folder to archive it.'],
    [{ type: 'reorder_channel_folders', actorId: ids.member, order: [2, 1] }, 'Insufficient permission'],
    [{ type: 'reorder_channel_folders', actorId: ids.admin, order: [2] }, 'Invalid order mapping.'],
    [{ type: 'create_channel', actorId: ids.admin, name: 'new', subscriberIds: [], description: '', announce: false, inviteOnly: false, isWebPublic: false, isDefault: false, folderId: 9, groups: {} }, 'Invalid channel folder ID'],
    [{ type: 'update_channel', actorId: ids.admin, streamId: streams.general, folderId: 9, groups: {} }, 'Invalid channel folder ID'],
  ];
  for (const [c, msg] of errors) rejects(t, state, cmd(c), ctx, msg);

  run(state, cmd({ type: 'update_channel_folder', actorId: ids.admin, folderId: 1, isArchived: true }), ctx);
  rejects(t, state, cmd({ type: 'update_channel', actorId: ids.admin, streamId: streams.general, folderId: 1, groups: {} }), ctx, 'Invalid channel folder ID');
  rejects(t, state, cmd({ type: 'create_channel', actorId: ids.admin, name: 'new', subscriberIds: [], description: '', announce: false, inviteOnly: false, isWebPublic: false, isDefault: false, folderId: 1, groups: {} }), ctx, 'Invalid channel folder ID');

  const created = decide(state, cmd({ type: 'create_channel', actorId: ids.admin, name: 'new', subscriberIds: [], description: '', announce: false, inviteOnly: false, isWebPublic: false, isDefault: false, folderId: 2, groups: {} }), ctx);
  if (!created.ok) throw created.error;
  t.match(created.value.records[0], { type: 'stream_created', folderId: 2 }, 'the record carries the folder');

  const updated = decide(state, cmd({ type: 'update_channel_folder', actorId: ids.admin, folderId: 2, name: 'Development', description: 'Code' }), ctx);
  if (!updated.ok) throw updated.error;
  t.same(updated.value.records, [{ type: 'channel_folder_updated', v: 1, folderId: 2, name: 'Development', description: 'Code', renderedDescription: '<p>Code</p>' }], 'one record for all changes');
  t.equal(updated.value.events.length, 2, 'one event per property');

  run(state, cmd({ type: 'reorder_channel_folders', actorId: ids.admin, order: [2, 1] }), ctx);
  t.same(channelFoldersWire(state, true).map((f) => [f.id, f.order, f.is_archived]), [[2, 0, false], [1, 1, true]]);
  t.same(channelFoldersWire(state, false).map((f) => f.id), [2]);

  // Snapshot round trip; a snapshot written before channel folders loads with none.
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(state.id, structuredClone(core), columns);
  t.equal(fingerprint(copy), fingerprint(state), 'snapshot round trip');
  t.same(channelFoldersWire(copy, true), channelFoldersWire(state, true));
  const old: Partial<typeof core> = structuredClone(core);
  delete old.channelFolders;
  t.same(channelFoldersWire(fromSnapshot(state.id, old, columns), true), [], 'old snapshot: no folders');
  run(copy, cmd({ type: 'create_channel_folder', actorId: ids.admin, name: 'Third', description: '' }), ctx);
  t.same(channelFoldersWire(copy, true).map((f) => f.id), [2, 1, 3], 'ids continue after a restore');
});
