/** Snapshot core + columns round trip (without LMDB): the restored state equals the original. */
import t from 'tap';
import { pack, unpack } from 'msgpackr';
import { run, smallRealm, fingerprint } from '../support/realm-fixture.js';
import { toSnapshot, fromSnapshot } from '../../src/domain/realm-snapshot.js';
import { Column } from '../../src/domain/column.js';
import { reactionsWire } from '../../src/domain/reactions.js';

t.test('toSnapshot → msgpack → fromSnapshot preserves everything', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  for (let i = 0; i < 300; i++) {
    run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: `topic ${i % 7}`, content: `m${i}`, client: 'test' }, ctx);
  }
  run(state, { type: 'send_message', senderId: ids.member, messageType: 'private', to: [ids.other], topic: undefined, content: 'dm', client: 'test' }, ctx);
  run(state, { type: 'add_reaction', actorId: ids.other, messageId: 5, emojiName: 'octopus' }, ctx);
  run(state, { type: 'add_reaction', actorId: ids.member, messageId: 5, emojiName: 'zulip' }, ctx);
  run(state, { type: 'add_reaction', actorId: ids.member, messageId: 301, emojiName: 'heart' }, ctx);
  const { core, columns } = toSnapshot(state);
  const copied: Record<string, Column> = {};
  for (const [name, column] of Object.entries(columns)) {
    const c = new Column(column.kind, column.chunkBits);
    for (let i = 0; i < column.chunkCount; i++) {
      const chunk = column.chunk(i);
      c.restoreChunk(i, new Uint8Array(chunk.buffer.slice(0)));
    }
    c.restoreLength(column.length);
    copied[name] = c;
  }
  const restored = fromSnapshot(state.id, unpack(pack(core)) as object, copied);
  restored.host = state.host;
  t.equal(fingerprint(restored), fingerprint(state));
  t.equal(restored.messages.userFlags(ids.other, 301), 0);
  t.equal(restored.topics.value(restored.messages.topic.get(5)), 'topic 4');
  t.equal(restored.directRecipients.size, 1);
  t.same(reactionsWire(restored, 5), [
    { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: ids.other },
    { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', user_id: ids.member },
  ], 'reactions restored in order');
  t.same(reactionsWire(restored, 301).map((r) => r.emoji_name), ['heart']);
});

t.test('drafts survive the snapshot round trip (older snapshots without them load empty)', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  run(state, { type: 'create_drafts', actorId: ids.member, drafts: [{ type: 'stream', to: [streams.general], topic: 't', content: 'c', timestamp: 5.5 }, { type: 'private', to: [ids.other], topic: '', content: 'dm' }] }, ctx);
  run(state, { type: 'delete_draft', actorId: ids.member, draftId: 1 }, ctx);
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(state.id, unpack(pack(core)) as object, columns);
  restored.host = state.host;
  t.equal(fingerprint(restored), fingerprint(state));
  t.same([...restored.drafts!.byUser.get(ids.member)!.keys()], [2]);
  t.equal(restored.drafts!.nextId, 3);
  const older = unpack(pack(core)) as Record<string, unknown>;
  delete older.drafts;
  t.equal(fromSnapshot(state.id, older, columns).drafts, undefined, 'no drafts field: no drafts');
});

t.test('channel folders survive the snapshot round trip (older snapshots without them load none)', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  run(state, { type: 'create_channel_folder', actorId: ids.admin, name: 'Ops', description: 'Run *things*' }, ctx);
  run(state, { type: 'create_channel_folder', actorId: ids.admin, name: 'Dev', description: '' }, ctx);
  run(state, { type: 'update_channel_folder', actorId: ids.admin, folderId: 1, isArchived: true }, ctx);
  run(state, { type: 'reorder_channel_folders', actorId: ids.admin, order: [2, 1] }, ctx);
  run(state, { type: 'update_channel', actorId: ids.admin, streamId: streams.general, folderId: 2, groups: {} }, ctx);
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(state.id, unpack(pack(core)) as object, columns);
  restored.host = state.host;
  t.equal(fingerprint(restored), fingerprint(state));
  t.same([...restored.channelFolders!.folders.values()].map((f) => [f.id, f.name, f.isArchived, f.order]), [[1, 'Ops', true, 1], [2, 'Dev', false, 0]]);
  t.equal(restored.channelFolders!.nextId, 3);
  t.equal(restored.streams.get(streams.general)!.folderId, 2);
  const older = unpack(pack(core)) as Record<string, unknown>;
  delete older.channelFolders;
  t.equal(fromSnapshot(state.id, older, columns).channelFolders, undefined, 'no channelFolders field: no folders');
});
