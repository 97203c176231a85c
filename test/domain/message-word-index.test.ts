/**
 * The search word index (src/domain/message-word-index.ts): `search:` narrows answered through it
 * return exactly what the body scan returns (many random queries over a random corpus, for
 * viewers with different access), stay right after edits, moves and deletions, and after a
 * backfill of a restored state with changes arriving while it runs.
 */
import t, { type Test } from 'tap';
import { smallRealm } from '../support/realm-fixture.js';
import { applyCommand, bodiesOf } from '../../src/realm/apply-command.js';
import type { MessageBody, RealmRecord } from '../../src/domain/records.js';
import type { Command } from '../../src/realm/commands.js';
import { ZulipError } from '../../src/errors.js';
import { LARGER_THAN_MAX_MESSAGE_ID, cleanNarrow, parseNarrow } from '../../src/domain/narrow.js';
import { selectMessages } from '../../src/realm/queries/message-list.js';
import { contentVersion } from '../../src/domain/message-edits.js';
import { MessageWordIndex } from '../../src/domain/message-word-index.js';
import { MessageBit } from '../../src/domain/message-index.js';
import { prng } from '../../bench/prng.js';


const VOCABULARY = [
  'castle', 'Castle', 'CASTLE', 'gate', 'river', 'deploy', 'deployment', 'the', 'of', 'and', 'café', 'Café',
  'naïve', 'zebra', 'x42', '42', 'rare', 'bug', 'bugs', 'fix', 'fixed', 'hamlet', 'denmark', 'über', 'straße',
];
const PUNCT = [' ', ' ', ' ', ', ', '. ', '! ', '-', '_', '/', ' (', ') ', '\n', ' "', '" ', ': '];

function world(seed: number) {
  const r = smallRealm();
  const { state, ctx, ids: u, streams } = r;
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const bodies = new Map<number, MessageBody>();
  let reads = 0;
  const readBody = (id: number) => {
    reads++;
    return bodies.get(id);
  };
  const apply = (cmd: Command): RealmRecord[] => {
    const records: RealmRecord[] = [];
    const res = applyCommand(state, cmd, ctx, records);
    if (!res.ok) throw new Error(`${cmd.type}: ${res.error.message}`);
    for (const [id, body] of bodiesOf(records)) bodies.set(id, body);
    return records;
  };
  const text = (words: number, punct: readonly string[] = PUNCT) => {
    let s = pick(VOCABULARY);
    for (let i = 1; i < words; i++) s += pick(punct) + pick(VOCABULARY);
    return s;
  };
  const topicText = (words: number) => text(words, PUNCT.filter((p) => p !== '\n'));
  const sentId = (records: RealmRecord[]) => (records.find((x) => x.type === 'message_sent') as { id: number }).id;
  const senders = [u.owner, u.member];
  const sendRandom = (): number => {
    const kind = rand();
    const senderId = pick(senders);
    const records =
      kind < 0.15
        ? apply({ type: 'send_message', senderId, messageType: 'private', to: [senderId === u.owner ? u.member : u.owner], topic: undefined, content: text(1 + Math.floor(rand() * 8)), client: 'test', readBySender: true })
        : apply({
            type: 'send_message', senderId, messageType: 'stream', to: kind < 0.45 ? 'secret' : 'general',
            topic: topicText(1 + Math.floor(rand() * 2)), content: text(1 + Math.floor(rand() * 12)), client: 'test', readBySender: true,
          });
    return sentId(records);
  };
  /** Ids a search returns for `viewerId`, through the index or (`scan`) without it. */
  const search = (viewerId: number, query: string, scan: boolean): number[] => {
    const viewer = state.users.get(viewerId)!;
    const parsed = parseNarrow(JSON.stringify([{ operator: 'search', operand: query }]));
    if (parsed instanceof ZulipError || parsed === null) throw new Error('bad narrow');
    const cleaned = cleanNarrow(state, viewer, parsed);
    if (cleaned instanceof ZulipError) throw cleaned;
    const saved = state.wordIndex;
    if (scan) delete state.wordIndex;
    try {
      const result = selectMessages(state, viewer, { anchor: LARGER_THAN_MAX_MESSAGE_ID, includeAnchor: true, numBefore: 5000, numAfter: 0, narrow: cleaned }, readBody);
      if (result instanceof ZulipError) throw result;
      return result.ids;
    } finally {
      if (saved !== undefined) state.wordIndex = saved;
    }
  };
  const randomQuery = (): string => {
    const n = 1 + Math.floor(rand() * 3);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(rand() < 0.15 ? `"${pick(VOCABULARY)} ${pick(VOCABULARY)}"` : pick(VOCABULARY));
    if (rand() < 0.1) parts.push('unseenword');
    return parts.join(' ');
  };
  const takeReads = () => {
    const n = reads;
    reads = 0;
    return n;
  };
  return { state, ctx, u, streams, rand, pick, bodies, apply, text, topicText, sentId, sendRandom, search, randomQuery, takeReads };
}

type World = ReturnType<typeof world>;

/** Runs `count` random queries for several viewers; returns how many had a non-empty result. */
function compareMany(t: Test, w: World, count: number, label: string): number {
  let nonEmpty = 0;
  let mismatches = 0;
  for (let i = 0; i < count; i++) {
    const q = w.randomQuery();
    for (const viewer of [w.u.member, w.u.other, w.u.guest]) {
      w.takeReads();
      const indexed = w.search(viewer, q, false);
      const indexedReads = w.takeReads();
      const scanned = w.search(viewer, q, true);
      const scanReads = w.takeReads();
      if (indexed.join() !== scanned.join()) {
        mismatches++;
        if (mismatches <= 3) t.same(indexed, scanned, `${label}: ${JSON.stringify(q)} for viewer ${viewer}`);
      }
      if (indexedReads > scanReads) {
        mismatches++;
        t.fail(`${label}: the index read more bodies (${indexedReads}) than the scan (${scanReads}) for ${q}`);
      }
      if (indexed.length > 0) nonEmpty++;
    }
  }
  t.equal(mismatches, 0, `${label}: ${count} queries × 3 viewers agree with the scan`);
  return nonEmpty;
}

t.test('index answers equal the scan over a random corpus', async (t) => {
  const w = world(17);
  for (let i = 0; i < 600; i++) w.sendRandom();
  t.ok(w.state.wordIndex?.complete, 'a realm built by evolve has a complete index');
  const nonEmpty = compareMany(t, w, 300, 'fresh');
  t.ok(nonEmpty > 100, `queries do find messages (${nonEmpty} non-empty answers)`);

  // The index really narrows: a rare word touches only its messages' bodies.
  const rare = w.apply({ type: 'send_message', senderId: w.u.owner, messageType: 'stream', to: 'general', topic: 'misc', content: 'a quixotic word', client: 'test', readBySender: true });
  const rareId = w.sentId(rare);
  w.takeReads();
  t.same(w.search(w.u.member, 'quixotic', false), [rareId]);
  t.equal(w.takeReads(), 1, 'one body read for a word in one message');
  t.same(w.search(w.u.member, 'quixotic', true), [rareId]);
  t.ok(w.takeReads() > 600, 'the scan reads every visible body');
});

t.test('access rules are unchanged: a word only in a private channel', async (t) => {
  const w = world(3);
  const id = w.sentId(w.apply({ type: 'send_message', senderId: w.u.owner, messageType: 'stream', to: 'secret', topic: 'plans', content: 'the zanzibar plan', client: 'test', readBySender: true }));
  t.same(w.search(w.u.member, 'zanzibar', false), [id], 'a subscriber finds it');
  t.same(w.search(w.u.other, 'zanzibar', false), [], 'a non-subscriber does not');
  t.same(w.search(w.u.guest, 'zanzibar', false), [], 'nor does a guest');
  t.same(w.search(w.u.other, 'plans', false), [], 'nor by its topic');
});

t.test('edits, moves and deletions keep the index right', async (t) => {
  const w = world(99);
  const ids: number[] = [];
  for (let i = 0; i < 300; i++) ids.push(w.sendRandom());
  const editable = ids.filter((id) => (w.state.messages.bits.get(id) & MessageBit.exists) !== 0 && w.state.messages.sender.get(id) === w.u.owner);
  const edit = (id: number, over: { content?: string; topic?: string; propagateMode?: 'change_one' | 'change_all' | 'change_later'; streamId?: number }) =>
    w.apply({
      type: 'edit_message', actorId: w.u.owner, messageId: id, propagateMode: 'change_one', sendNotificationToOldThread: false, sendNotificationToNewThread: false,
      body: w.bodies.get(id)!, bodyVersion: contentVersion(w.state, id), ...over,
    });

  // A targeted content edit: the old word goes, the new one comes.
  const target = w.apply({ type: 'send_message', senderId: w.u.owner, messageType: 'stream', to: 'general', topic: 'edits', content: 'alpha beta', client: 'test', readBySender: true });
  const tid = w.sentId(target);
  edit(tid, { content: 'beta gamma' });
  t.same(w.search(w.u.member, 'alpha', false), [], 'the removed word no longer finds it');
  t.equal(w.state.wordIndex!.count('alpha'), 0, 'and its posting is gone');
  t.same(w.search(w.u.member, 'gamma', false), [tid], 'the new word finds it');
  edit(tid, { topic: 'omega topic' });
  t.same(w.search(w.u.member, 'omega', false), [tid], 'a moved message is found by its new topic');
  t.same(w.search(w.u.member, 'edits', false), [], 'not by its old one');

  let streamMoves = 0;
  for (let i = 0; i < 60; i++) {
    const id = w.pick(editable);
    if ((w.state.messages.bits.get(id) & MessageBit.exists) === 0) continue;
    const isChannel = w.state.recipients.get(w.state.messages.recipient.get(id))?.type === 'stream';
    const choice = w.rand();
    if (choice < 0.4) edit(id, { content: w.text(1 + Math.floor(w.rand() * 6)) });
    else if (choice < 0.6 && isChannel) edit(id, { topic: w.topicText(1), propagateMode: w.pick(['change_one', 'change_all', 'change_later'] as const) });
    else if (choice < 0.7 && isChannel) {
      edit(id, { streamId: w.rand() < 0.5 ? w.streams.general : w.streams.secret, topic: w.topicText(1), propagateMode: 'change_all' });
      streamMoves++;
    } else w.apply({ type: 'delete_message', actorId: w.u.owner, messageId: id });
  }
  t.ok(streamMoves > 0, 'channel moves were exercised');
  compareMany(t, w, 200, 'after edits');
});

t.test('a restored state is backfilled in id order, with changes arriving meanwhile', async (t) => {
  const w = world(5);
  const ids: number[] = [];
  for (let i = 0; i < 200; i++) ids.push(w.sendRandom());
  // As after a restore from a snapshot: every existing message unindexed.
  const below = w.state.messages.bits.length;
  const index = new MessageWordIndex(below);
  w.state.wordIndex = index;
  t.notOk(index.complete, 'not complete before the backfill');
  t.same(w.search(w.u.member, 'castle', false), w.search(w.u.member, 'castle', true), 'an incomplete index is not used (the scan answers)');
  const feed = (upTo: number) => {
    for (let id = index.backfillCursor; id < upTo; id++) {
      const exists = (w.state.messages.bits.get(id) & MessageBit.exists) !== 0;
      index.backfill(id, exists ? w.bodies.get(id)?.content : undefined, exists ? w.state.topics.value(w.state.messages.topic.get(id)) : '');
    }
  };
  feed(100);
  // Changes to ids behind and ahead of the cursor, and new messages, during the backfill.
  const owned = ids.filter((id) => w.state.messages.sender.get(id) === w.u.owner && w.state.recipients.get(w.state.messages.recipient.get(id))?.type === 'stream');
  const behind = owned.find((id) => id < 100)!;
  const ahead = owned.find((id) => id > 150)!;
  for (const id of [behind, ahead]) {
    w.apply({
      type: 'edit_message', actorId: w.u.owner, messageId: id, content: `renamed wombat ${id}`, topic: 'koala', propagateMode: 'change_one',
      sendNotificationToOldThread: false, sendNotificationToNewThread: false, body: w.bodies.get(id)!, bodyVersion: contentVersion(w.state, id),
    });
  }
  for (let i = 0; i < 50; i++) w.sendRandom();
  t.throws(() => index.backfill(index.backfillCursor + 1, 'x', ''), /out of order/, 'the backfill must go in order');
  feed(below);
  t.ok(index.complete, 'complete after the last id');
  t.same(w.search(w.u.member, 'wombat', false), [behind, ahead].sort((a, b) => a - b), 'edits behind and ahead of the cursor are indexed');
  t.same(w.search(w.u.member, 'koala', false), [behind, ahead].sort((a, b) => a - b), 'as are their new topics');
  compareMany(t, w, 200, 'after backfill');
  const stats = index.stats();
  t.ok(stats.words > 10 && stats.postings > stats.words && stats.estimatedBytes > stats.postings * 4, `stats: ${JSON.stringify(stats)}`);
});
