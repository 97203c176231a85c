/**
 * The snapshot core encoder (realm/core-encoder.ts): after every command of a random workload run
 * through the real `execute` (decide + evolve, as the actor does), its bytes equal packing the
 * whole core afresh, while sends, flags, reactions and topic follows reuse the packing of `users`
 * and `subscriptions`. Also the splice itself (codec.ts `encodeRecordFromPacked`).
 */
import t from 'tap';
import { toSnapshot } from '../../src/domain/realm-snapshot.js';
import { execute } from '../../src/realm/apply-command.js';
import type { Command } from '../../src/realm/commands.js';
import { CoreEncoder } from '../../src/realm/core-encoder.js';
import { decodeRecord, encodeRecord, encodeRecordFromPacked, packValue } from '../../src/storage/codec.js';
import { smallRealm } from '../support/realm-fixture.js';
import { prng } from '../../bench/prng.js';

t.test('a map spliced from packed values is the bytes of packing the object', async (t) => {
  const objects: object[] = [
    {},
    { a: 1 },
    { a: undefined, b: null, c: 'x'.repeat(70_000), d: [1, 2.5, { e: true }], f: new Map([[1, 2]]) },
    Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i % 3 === 0 ? { n: i } : `v${i}`])),
  ];
  for (const o of objects) {
    const spliced = encodeRecordFromPacked(Object.entries(o).map(([k, v]) => [k, packValue(v)]));
    t.same(Buffer.from(spliced), Buffer.from(encodeRecord(o)), `${Object.keys(o).length} keys`);
    t.same(decodeRecord(spliced), decodeRecord(encodeRecord(o)));
  }
  const packed = packValue({ a: 1 });
  packValue({ b: 'overwrite the packer buffer' });
  t.same(decodeRecord(encodeRecordFromPacked([['x', packed]])), { x: { a: 1 } }, 'a packed value is a copy, not a view of the packer');
});

t.test('random workload: the encoded core always equals a full packing', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const random = prng(42);
  const people = [ids.owner, ids.admin, ids.member, ids.other];
  const encoder = new CoreEncoder();
  const sent: number[] = [];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const commands: Array<[weight: number, make: () => Command | null]> = [
    [8, () => ({ type: 'send_message', senderId: pick(people), messageType: 'stream', to: 'general', topic: `t${Math.floor(random() * 3)}`, content: 'hi', client: 'test' })],
    [2, () => ({ type: 'send_message', senderId: ids.owner, messageType: 'private', to: [pick(people)], topic: '', content: 'dm', client: 'test' })],
    [3, () => (sent.length === 0 ? null : { type: 'update_message_flags', userId: pick(people), op: pick(['add', 'remove']), flag: 'read', messages: [pick(sent)] })],
    [2, () => (sent.length === 0 ? null : { type: 'add_reaction', actorId: pick(people), messageId: pick(sent), emojiName: pick(['smile', 'heart', 'tada']) })],
    [2, () => ({ type: 'set_user_topic', userId: pick(people), stream: { id: streams.general }, topic: 't1', visibilityPolicy: pick([0, 1, 3] as const) })],
    // Records that change users or subscriptions: the kept packing must go.
    [1, () => ({ type: 'update_settings', actorId: pick(people), fullName: `Name ${Math.floor(random() * 1000)}` })],
    [1, () => ({ type: 'set_subscription_properties', actorId: pick(people), changes: [{ streamId: streams.general, property: 'color', value: pick(['#aabbcc', '#112233']) }] })],
    [1, () => ({
      type: 'update_subscriptions', actorId: ids.owner, add: random() < 0.5 ? [{ name: 'empty' }] : [], remove: random() < 0.5 ? ['empty'] : [],
      principals: [pick(people)], inviteOnly: false, isWebPublic: false, isDefault: false, authorizationErrorsFatal: false,
    })],
  ];
  const total = commands.reduce((n, [w]) => n + w, 0);
  let applied = 0;
  for (let step = 0; step < 600; step++) {
    let r = random() * total;
    const [, make] = commands.find(([w]) => (r -= w) < 0) ?? commands[0]!;
    const command = make();
    if (command === null) continue;
    const result = execute(state, command, ctx);
    if (!result.ok) continue;
    applied++;
    encoder.noteRecords(result.value.records);
    const reply = result.value.reply as { id?: number };
    if (command.type === 'send_message' && typeof reply.id === 'number') sent.push(reply.id);
    if (step % 3 !== 0) continue; // a snapshot every few commands, as the policy would
    const { core } = toSnapshot(state);
    const fresh = encodeRecord(core);
    const encoded = encoder.encode(state, core);
    if (Buffer.compare(Buffer.from(encoded), Buffer.from(fresh)) !== 0) {
      t.fail(`step ${step} (${command.type}): the encoded core differs from a full packing`);
      return;
    }
  }
  t.ok(applied > 400, `${applied} commands applied`);
  t.ok(encoder.reuses > 50, `kept packings reused (${encoder.reuses})`);
  t.ok(encoder.packs > 20, `and packed again after changes (${encoder.packs})`);
});

t.test('a replaced state is packed again, and clear() forgets', async (t) => {
  const a = smallRealm();
  const b = smallRealm();
  const encoder = new CoreEncoder();
  encoder.encode(a.state, toSnapshot(a.state).core);
  t.equal(encoder.packs, 2);
  encoder.encode(a.state, toSnapshot(a.state).core);
  t.equal(encoder.reuses, 2, 'same state, no record: reused');
  const other = toSnapshot(b.state).core;
  t.same(Buffer.from(encoder.encode(b.state, other)), Buffer.from(encodeRecord(other)), 'another state: its own parts');
  t.equal(encoder.packs, 4);
  encoder.clear();
  encoder.encode(b.state, other);
  t.equal(encoder.packs, 6, 'cleared: packed again');
});
