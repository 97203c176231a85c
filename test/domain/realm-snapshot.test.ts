/** Snapshot core + columns round trip (without LMDB): the restored state equals the original. */
import t from 'tap';
import { pack, unpack } from 'msgpackr';
import { run, smallRealm, fingerprint } from '../support/realm-fixture.js';
import { toSnapshot, fromSnapshot } from '../../src/domain/realm-snapshot.js';
import { Column } from '../../src/domain/column.js';

t.test('toSnapshot → msgpack → fromSnapshot preserves everything', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  for (let i = 0; i < 300; i++) {
    run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: `topic ${i % 7}`, content: `m${i}`, client: 'test' }, ctx);
  }
  run(state, { type: 'send_message', senderId: ids.member, messageType: 'private', to: [ids.other], topic: undefined, content: 'dm', client: 'test' }, ctx);
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
});
