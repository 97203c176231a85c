/**
 * Bodies appended but not yet durable (src/realm/pending-bodies.ts): the ring answers exactly what
 * the per-id Map it replaced answered (newest pending append wins; a settled append's bodies are
 * LMDB's), in order and out of order; and through the real server, a message's body is readable
 * while its send, and then two content edits, are in flight, and from LMDB once durable.
 */
import t from 'tap';
import { PendingBodies, type AppendBodies } from '../../src/realm/pending-bodies.js';
import type { MessageBody } from '../../src/domain/records.js';
import { startTestServer } from '../support/test-server.js';
import { appendGate } from '../support/append-gate.js';

const body = (content: string): MessageBody => ({ content, rendered: `<p>${content}</p>` });

/** The Map the actor used before: set per body on append, delete on durability unless replaced. */
class MapModel {
  readonly map = new Map<number, MessageBody>();
  add(bodies: AppendBodies): void {
    for (const [id, b] of bodies) this.map.set(id, b);
  }
  settle(bodies: AppendBodies): void {
    for (const [id, b] of bodies) if (this.map.get(id) === b) this.map.delete(id);
  }
}

t.test('newest pending append wins; settled appends stop answering', async (t) => {
  const pending = new PendingBodies();
  t.equal(pending.get(1), undefined, 'empty');
  const send: AppendBodies = [[10, body('sent')]];
  const edit: AppendBodies = [[10, body('edited')]];
  const other: AppendBodies = [[11, body('other')]];
  pending.add(send);
  pending.add(other);
  pending.add(edit);
  pending.add([]);
  t.equal(pending.size, 3, 'an append without bodies is not kept');
  t.same(pending.get(10), body('edited'), 'the edit in flight shadows the send');
  t.same(pending.get(11), body('other'));
  t.equal(pending.get(9), undefined, 'below every pending id');
  pending.settle(send);
  t.same(pending.get(10), body('edited'), 'the send is durable, the edit still pending');
  pending.settle(other);
  t.equal(pending.get(11), undefined);
  pending.settle(edit);
  t.equal(pending.get(10), undefined, 'all durable: LMDB answers');
  t.equal(pending.size, 0);
});

t.test('a later pair for the same id within one append wins (a send and its edit in one command)', async (t) => {
  const pending = new PendingBodies();
  pending.add([[5, body('first')], [5, body('second')]]);
  t.same(pending.get(5), body('second'));
});

t.test('a newer append settling first: its ids are no longer pending, as with the Map', async (t) => {
  const pending = new PendingBodies();
  const model = new MapModel();
  const a: AppendBodies = [[7, body('a')], [8, body('a8')]];
  const b: AppendBodies = [[7, body('b')]];
  for (const bodies of [a, b]) {
    pending.add(bodies);
    model.add(bodies);
  }
  pending.settle(b);
  model.settle(b);
  t.equal(pending.get(7), model.map.get(7), 'the newest append for 7 is durable: none pending');
  t.equal(pending.get(7), undefined);
  t.same(pending.get(8), body('a8'), 'the older append still answers for its other ids');
  const c: AppendBodies = [[7, body('c')]];
  pending.add(c);
  model.add(c);
  t.same(pending.get(7), body('c'), 'a new append for 7 answers again');
  pending.settle(c);
  model.settle(c);
  t.equal(pending.get(7), undefined);
  pending.settle(a);
  t.equal(pending.size, 0);
  t.equal(pending.get(8), undefined);
});

t.test('equals the Map model over 20,000 random steps (growth past 16 appends, any settle order, clear)', async (t) => {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
  const pending = new PendingBodies();
  const model = new MapModel();
  const inFlight: AppendBodies[] = [];
  let mismatches = 0;
  let maxInFlight = 0;
  for (let step = 0; step < 20_000; step++) {
    const roll = random();
    if (roll < 0.5 || inFlight.length === 0) {
      const bodies: AppendBodies = Array.from({ length: Math.floor(random() * 3) }, (_, i) => [Math.floor(random() * 40), body(`${step}.${i}`)] as const);
      pending.add(bodies);
      model.add(bodies);
      inFlight.push(bodies);
      maxInFlight = Math.max(maxInFlight, inFlight.length);
    } else if (roll < 0.995) {
      // Mostly the oldest (production), sometimes any.
      const index = random() < 0.8 ? 0 : Math.floor(random() * inFlight.length);
      const [bodies] = inFlight.splice(index, 1);
      pending.settle(bodies!);
      model.settle(bodies!);
    } else {
      pending.clear();
      model.map.clear();
      inFlight.length = 0;
    }
    for (let id = 0; id < 40; id++) if (pending.get(id) !== model.map.get(id)) mismatches++;
  }
  t.equal(mismatches, 0);
  t.ok(maxInFlight > 16, `the ring grew (up to ${maxInFlight} appends in flight)`);
});

t.test('real server: a body is readable while its send and two content edits are in flight', async (t) => {
  const flush = appendGate();
  const s = await startTestServer(t, {}, { afterAppend: flush.hook });
  t.teardown(() => flush.open());
  const hamlet = await s.as('hamlet@zulip.com');
  const realm = s.server.registry.bySubdomainName('')!;
  const waitFor = async (what: string, done: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    t.ok(done(), what);
  };

  flush.close();
  const before = realm.state.nextIds.message;
  const sending = hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'pending bodies', content: 'version one' });
  await waitFor('the send is applied in memory', () => realm.state.nextIds.message > before);
  const id = realm.state.nextIds.message - 1;
  t.equal(realm.messageBody(id)?.content, 'version one', 'read while the send is in flight');
  t.equal(realm.messageBody(id)?.rendered, '<p>version one</p>');
  flush.open();
  t.equal((await sending).status, 200);

  flush.close();
  const seq = realm.commandSeq;
  const first = hamlet.call('PATCH', `/messages/${id}`, { content: 'version two' });
  await waitFor('the first edit is applied in memory', () => realm.commandSeq > seq);
  t.equal(realm.messageBody(id)?.content, 'version two', 'read while an edit is in flight');
  const second = hamlet.call('PATCH', `/messages/${id}`, { content: 'version three' });
  await waitFor('the second edit is applied in memory', () => realm.commandSeq > seq + 1);
  t.equal(realm.messageBody(id)?.content, 'version three', 'the newer edit in flight wins');
  t.equal(realm.messageBody(id)?.rendered, '<p>version three</p>');
  flush.open();
  t.equal((await first).status, 200);
  t.equal((await second).status, 200);
  await realm.whenDurable();
  t.equal(realm.messageBody(id)?.content, 'version three', 'durable: the same body, from the store');
  const history = await hamlet.call('GET', `/messages/${id}/history`);
  t.same(
    history.body.message_history.map((h: { content: string }) => h.content),
    ['version one', 'version two', 'version three'],
    'the second edit read the first one’s pending body as its previous content',
  );
});
