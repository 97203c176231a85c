/**
 * The lookup index (src/domain/recipient-index.ts) under message moves: the `message_edited` fold
 * refiles moved ids in place (`messagesMoved` → `MessageLookupIndex.moved`) instead of dropping
 * the index. After any sequence of sends and moves, the incrementally maintained index must equal
 * one freshly built from the columns, and narrow queries must see the moved messages.
 */
import t, { type Test } from 'tap';
import { smallRealm, run } from '../support/realm-fixture.js';
import { applyCommand } from '../../src/realm/apply-command.js';
import type { RealmRecord } from '../../src/domain/records.js';
import type { RealmState } from '../../src/domain/realm-state.js';
import type { PropagateMode } from '../../src/realm/handlers/message-move.js';
import { messageEdited } from '../../src/domain/message-edits.js';
import {
  IdList,
  MessageLookupIndex,
  messageLookupIndex,
  topicMessageIds,
  type IdSequence,
} from '../../src/domain/recipient-index.js';

const seqToArray = (s: IdSequence) => Array.from({ length: s.length }, (_, i) => s.get(i));

/**
 * The lists of a map keyed and sorted by key, without ids of deleted messages (stale entries,
 * which the index keeps by design until `rebuild`) and without the empty lists moves leave.
 */
function lists(state: RealmState, map: ReadonlyMap<number, IdList>): Array<[number, number[]]> {
  return [...map]
    .map(([k, l]): [number, number[]] => [k, seqToArray(l).filter((id) => state.messages.exists(id))])
    .filter(([, ids]) => ids.length > 0)
    .sort((a, b) => a[0] - b[0]);
}

/** Asserts that the realm's maintained index equals one freshly built from the columns. */
function sameAsFresh(t: Test, state: RealmState, what: string) {
  const kept = messageLookupIndex(state);
  const fresh = new MessageLookupIndex(state.messages, state.topics);
  fresh.sync();
  t.same(lists(state, kept.byRecipient), lists(state, fresh.byRecipient), `${what}: byRecipient`);
  t.same(lists(state, kept.byTopic), lists(state, fresh.byTopic), `${what}: byTopic`);
  t.same(lists(state, kept.bySender), lists(state, fresh.bySender), `${what}: bySender`);
  for (const name of state.topics.toArray()) {
    t.same([...kept.topicIdsMatching(name)].sort(), [...fresh.topicIdsMatching(name)].sort(), `${what}: spellings of "${name}"`);
  }
}

function world() {
  const r = smallRealm();
  const { state, ctx, ids: u, streams } = r;
  const send = (senderId: number, stream: number, topic: string) => {
    const records: RealmRecord[] = [];
    const res = applyCommand(
      state,
      { type: 'send_message', senderId, messageType: 'stream', to: stream, topic, content: 'x', client: 'test', readBySender: true },
      ctx,
      records,
    );
    if (!res.ok) throw res.error;
    return res.value.id;
  };
  const move = (messageId: number, to: { topic?: string; streamId?: number }, propagateMode: PropagateMode) =>
    run(
      state,
      {
        type: 'edit_message', actorId: u.owner, messageId, topic: to.topic, streamId: to.streamId, propagateMode,
        sendNotificationToOldThread: false, sendNotificationToNewThread: false,
      },
      ctx,
    );
  const rid = (streamId: number) => state.streams.get(streamId)!.recipientId;
  return { state, u, streams, send, move, rid };
}

t.test('IdList.removeAll / insertAll keep the list ascending without duplicates', async (t) => {
  const list = new IdList(1);
  for (const id of [2, 4, 6, 8, 10]) list.push(id);
  t.equal(list.removeAll([1, 4, 8, 11]), 2, 'only present ids count');
  t.same(seqToArray(list), [2, 6, 10]);
  list.insertAll([1, 6, 7, 7, 12, 30]);
  t.same(seqToArray(list), [1, 2, 6, 7, 10, 12, 30], 'merged, present and repeated ids once');
  t.equal(list.removeAll([]), 0);
  list.insertAll([]);
  t.equal(list.last(), 30);
  const empty = new IdList();
  empty.insertAll([3, 5, 9, 11, 13]);
  t.same(seqToArray(empty), [3, 5, 9, 11, 13], 'grows past its capacity');
  t.equal(empty.removeAll([5, 5, 13]), 2, 'a repeated id is removed once');
  t.same(seqToArray(empty), [3, 9, 11]);

  // Random batches against a plain sorted set (deterministic LCG).
  let seed = 12345;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const batch = () => [...new Set(Array.from({ length: rand(8) }, () => 1 + rand(60)))].sort((a, b) => a - b);
  const reference = new Set<number>();
  const kept = new IdList(1);
  let agree = true;
  for (let round = 0; round < 300; round++) {
    const ids = batch();
    if (rand(2) === 0) {
      ids.forEach((id) => reference.add(id));
      kept.insertAll(ids);
    } else {
      const expected = ids.filter((id) => reference.has(id)).length;
      ids.forEach((id) => reference.delete(id));
      if (kept.removeAll(ids) !== expected) agree = false;
    }
    if (JSON.stringify(seqToArray(kept)) !== JSON.stringify([...reference].sort((a, b) => a - b))) agree = false;
  }
  t.ok(agree, '300 random insert/remove batches match a sorted set');
});

t.test('moves keep the index equal to a fresh one', async (t) => {
  const { state, u, streams, send, move, rid } = world();
  const a = send(u.owner, streams.general, 'alpha');
  const b = send(u.member, streams.general, 'Alpha');
  const c = send(u.member, streams.general, 'alpha');
  const d = send(u.other, streams.general, 'beta');
  const e = send(u.owner, streams.secret, 'gamma');
  const f = send(u.member, streams.general, 'alpha');
  const index = messageLookupIndex(state);
  sameAsFresh(t, state, 'after sends');

  move(c, { topic: 'delta' }, 'change_one');
  t.equal(messageLookupIndex(state), index, 'the index is kept, not rebuilt');
  sameAsFresh(t, state, 'change_one to a new topic');
  t.same(topicMessageIds(state, rid(streams.general), 'delta'), [c]);
  t.same(topicMessageIds(state, rid(streams.general), 'ALPHA'), [a, b, f], 'both spellings, moved id gone');

  move(b, { topic: 'Beta' }, 'change_later');
  sameAsFresh(t, state, 'change_later into an existing topic with another spelling');
  t.same(topicMessageIds(state, rid(streams.general), 'beta'), [b, d, f]);
  t.same(topicMessageIds(state, rid(streams.general), 'alpha'), [a]);

  move(d, { streamId: streams.secret }, 'change_all');
  sameAsFresh(t, state, 'change_all channel move, topics kept');
  t.same(seqToArray(index.byRecipient.get(rid(streams.secret))!), [b, d, e, f], 'inserted in order');
  t.same(seqToArray(index.byRecipient.get(rid(streams.general))!), [a, c]);
  t.same(topicMessageIds(state, rid(streams.secret), 'BETA'), [b, d, f]);

  move(e, { streamId: streams.general, topic: 'alpha' }, 'change_all');
  sameAsFresh(t, state, 'channel and topic move at once');
  t.same(topicMessageIds(state, rid(streams.general), 'alpha'), [a, e]);
  t.same(topicMessageIds(state, rid(streams.secret), 'gamma'), []);

  const g = send(u.owner, streams.general, 'alpha');
  move(g, { topic: 'delta' }, 'change_all');
  sameAsFresh(t, state, 'moving a message sent after the last query');
  t.same(topicMessageIds(state, rid(streams.general), 'delta'), [a, c, e, g]);
  t.equal(messageLookupIndex(state), index, 'still the same index');
});

t.test('moves of ids the index has not synced yet are left to sync (never indexed twice)', async (t) => {
  const { state, u, streams, send, rid } = world();
  const a = send(u.owner, streams.general, 'one');
  const index = messageLookupIndex(state);
  const b = send(u.owner, streams.general, 'one');
  const c = send(u.member, streams.general, 'one');
  // The fold itself, without the handler (whose topic lookup would sync the index first).
  messageEdited(state, {
    type: 'message_edited', v: 1, messageId: a, messageIds: [a, b, c], userId: u.owner, timestamp: 1_700_001_000,
    prevTopic: 'one', topic: 'two', prevStream: streams.general, stream: streams.secret, recipientId: rid(streams.secret),
  });
  t.equal(messageLookupIndex(state), index, 'kept');
  sameAsFresh(t, state, 'after moving synced and unsynced ids');
  t.same(seqToArray(index.byRecipient.get(rid(streams.secret))!), [a, b, c], 'each id once');
  t.same(topicMessageIds(state, rid(streams.secret), 'TWO'), [a, b, c]);
});

t.test('a move before the index exists builds nothing; the first query reads the moved columns', async (t) => {
  const { state, u, streams, send, move, rid } = world();
  const a = send(u.owner, streams.general, 'first');
  const b = send(u.owner, streams.general, 'first');
  move(a, { topic: 'second', streamId: streams.secret }, 'change_one');
  sameAsFresh(t, state, 'built after the move');
  t.same(topicMessageIds(state, rid(streams.secret), 'second'), [a]);
  t.same(topicMessageIds(state, rid(streams.general), 'first'), [b]);
});

t.test('a resolve toggle and back refiles the topic lists', async (t) => {
  const { state, u, streams, send, move, rid } = world();
  const a = send(u.owner, streams.general, 'issue');
  const b = send(u.member, streams.general, 'issue');
  messageLookupIndex(state);
  move(a, { topic: '✔ issue' }, 'change_all');
  sameAsFresh(t, state, 'resolved');
  const resolved = topicMessageIds(state, rid(streams.general), '✔ ISSUE');
  t.same(resolved.slice(0, 2), [a, b], 'moved, followed by the resolve notice');
  t.equal(resolved.length, 3);
  move(a, { topic: 'issue' }, 'change_all');
  sameAsFresh(t, state, 'unresolved (the notice deleted: a stale entry until rebuild)');
  t.same(topicMessageIds(state, rid(streams.general), 'issue'), [a, b]);
  t.same(topicMessageIds(state, rid(streams.general), '✔ issue'), []);
});
