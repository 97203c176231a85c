/**
 * Reads see only durable messages (RealmHandle.durableMessageId): a message applied in the realm's
 * memory whose log record is not yet durable is invisible to GET /messages (anchors, narrows,
 * search, first_unread), GET /messages/{id} and GET /messages/matches_narrow, and appears once the
 * flush completes. The flush is held with the actor's `afterAppend` test hook.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { appendGate } from '../support/append-gate.js';

/** A test server whose appends wait at `flush` (opened at teardown), with hamlet and othello logged in. */
async function gatedServer(t: Parameters<typeof startTestServer>[0]) {
  const flush = appendGate();
  const s = await startTestServer(t, {}, { afterAppend: flush.hook });
  t.teardown(() => flush.open());
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  return { flush, s, hamlet, othello, realm: s.server.registry.bySubdomainName('')! };
}

t.test('a message in memory but not yet durable is invisible to reads', async (t) => {
  const { flush, hamlet, othello, realm } = await gatedServer(t);
  const newest = async (extra: Record<string, unknown> = {}) =>
    (await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, ...extra })).body;

  const before = await newest();
  const lastSeen = before.messages.at(-1).id as number;
  t.equal(realm.durableMessageId, lastSeen, 'the watermark starts at the newest recovered message');

  flush.close();
  const sending = othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'durable', content: 'zanzibar pending' });
  let answered = false;
  void sending.then(() => (answered = true));
  const deadline = Date.now() + 10_000;
  while (realm.state.nextIds.message <= lastSeen + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const pendingId = realm.state.nextIds.message - 1;
  t.equal(pendingId, lastSeen + 1, 'the send is applied in memory');
  t.equal(realm.durableMessageId, lastSeen, 'but not durable');

  const during = await newest();
  t.equal(during.messages.at(-1).id, lastSeen, 'GET /messages anchor=newest stops at the durable message');
  t.equal(during.found_newest, true);
  const narrowed = await newest({ narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'durable' }]) });
  t.same(narrowed.messages, [], 'a channel + topic narrow does not see it');
  const searched = await newest({ narrow: JSON.stringify([{ operator: 'search', operand: 'zanzibar' }]) });
  t.same(searched.messages, [], 'nor does a search');
  const around = (await hamlet.call('GET', '/messages', { anchor: pendingId, num_before: 0, num_after: 5 })).body;
  t.equal(around.found_anchor, false, 'anchoring on its id does not find it');
  t.same(around.messages, []);
  const unread = (await hamlet.call('GET', '/messages', { anchor: 'first_unread', num_before: 0, num_after: 1, narrow: JSON.stringify([{ operator: 'topic', operand: 'durable' }]) })).body;
  t.same(unread.messages, [], 'first_unread does not land on it');
  const one = await hamlet.call('GET', `/messages/${pendingId}`);
  t.equal(one.status, 400);
  t.match(one.body, { code: 'BAD_REQUEST', msg: 'Invalid message(s)' }, 'GET /messages/{id}: as if it did not exist');
  const mine = await othello.call('GET', `/messages/${pendingId}`);
  t.equal(mine.status, 400, 'not even its sender reads it before it is durable');
  const matches = await hamlet.call('GET', '/messages/matches_narrow', { msg_ids: JSON.stringify([lastSeen, pendingId]), narrow: '[]' });
  t.same(Object.keys(matches.body.messages), [String(lastSeen)], 'matches_narrow leaves it out');
  t.equal(answered, false, 'the send is not answered while its record is not durable');

  flush.open();
  const sent = await sending;
  t.equal(sent.status, 200);
  t.equal(sent.body.id, pendingId);
  t.equal(realm.durableMessageId, pendingId, 'durable now');
  t.equal((await newest()).messages.at(-1).id, pendingId, 'GET /messages shows it');
  t.equal((await hamlet.call('GET', `/messages/${pendingId}`)).body.raw_content, 'zanzibar pending');
  t.same((await newest({ narrow: JSON.stringify([{ operator: 'search', operand: 'zanzibar' }]) })).messages.map((m: { id: number }) => m.id), [pendingId]);
  const matchesAfter = await hamlet.call('GET', '/messages/matches_narrow', { msg_ids: JSON.stringify([pendingId]), narrow: '[]' });
  t.same(Object.keys(matchesAfter.body.messages), [String(pendingId)]);
});

/**
 * Every other change (edit, move, star, reaction, deletion) is in memory before its record is
 * durable; a read that ran meanwhile is answered only once that record is durable
 * (api/durable-read.ts), so nobody sees a change a crash could take back.
 */
t.test('an edit, move, flag, reaction or deletion not yet durable: reads wait for it', async (t) => {
  const { flush, s, hamlet, othello, realm } = await gatedServer(t);
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'held', content: 'original words' });
  t.equal(sent.status, 200);
  const id = sent.body.id as number;

  /** Holds the flush, starts `write`, and returns once it is applied in memory (not durable). */
  const held = async (write: () => Promise<{ status: number }>) => {
    flush.close();
    const writing = write();
    const deadline = Date.now() + 10_000;
    while (realm.readBarrier() === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    t.not(realm.readBarrier(), null, 'the change is applied in memory, its record not durable');
    return { writing }; // wrapped: an async function would wait for the held write itself
  };
  /** Starts reads; after a pause none may have answered; then the flush is released. */
  const readsWait = async (reads: Record<string, () => Promise<{ status: number; body: any }>>, writing: Promise<{ status: number }>) => {
    const answered: string[] = [];
    const pending = Object.entries(reads).map(([name, read]) => read().then((r) => (answered.push(name), r)));
    await new Promise((r) => setTimeout(r, 300));
    t.same(answered, [], 'no read answered while the change is not durable');
    flush.open();
    t.equal((await writing).status, 200, 'the write succeeds once durable');
    const results = await Promise.all(pending);
    return Object.fromEntries(Object.keys(reads).map((name, i) => [name, results[i]!]));
  };
  const getOne = () => hamlet.call('GET', `/messages/${id}`);
  const newest = (narrow: unknown[] = []) => hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify(narrow) });

  // Edit: content, history, search.
  let { writing } = await held(() => hamlet.call('PATCH', `/messages/${id}`, { content: 'edited words' }));
  t.equal(realm.messageBody(id)!.content, 'edited words', 'memory already has the edit');
  let r = await readsWait(
    {
      one: getOne,
      history: () => hamlet.call('GET', `/messages/${id}/history`),
      search: () => newest([{ operator: 'search', operand: 'edited' }]),
      matches: () => hamlet.call('GET', '/messages/matches_narrow', { msg_ids: JSON.stringify([id]), narrow: JSON.stringify([{ operator: 'search', operand: 'edited' }]) }),
    },
    writing,
  );
  t.equal(r.one!.body.raw_content, 'edited words', 'GET /messages/{id} answers with the durable edit');
  t.equal(r.history!.body.message_history.length, 2, 'history has the edit');
  t.same(r.search!.body.messages.map((m: { id: number }) => m.id), [id], 'search finds the new words');
  t.same(Object.keys(r.matches!.body.messages), [String(id)], 'matches_narrow too');

  // Move to another topic.
  ({ writing } = await held(() => hamlet.call('PATCH', `/messages/${id}`, { topic: 'moved', propagate_mode: 'change_one' })));
  r = await readsWait({ topic: () => newest([{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'moved' }]), one: getOne }, writing);
  t.same(r.topic!.body.messages.map((m: { id: number }) => m.id), [id], 'the topic narrow answers after the move is durable');
  t.equal(r.one!.body.message.subject, 'moved');

  // Star: the is:starred narrow.
  ({ writing } = await held(() => hamlet.call('POST', '/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'starred' })));
  r = await readsWait({ starred: () => newest([{ operator: 'is', operand: 'starred' }]) }, writing);
  t.same(r.starred!.body.messages.map((m: { id: number }) => m.id), [id], 'is:starred answers after the flag is durable');

  // Reaction: visible in message objects.
  ({ writing } = await held(() => othello.call('POST', `/messages/${id}/reactions`, { emoji_name: 'octopus' })));
  r = await readsWait({ one: getOne }, writing);
  t.match(r.one!.body.message.reactions, [{ emoji_name: 'octopus' }], 'the reaction shows once durable');

  // Deletion: "Invalid message(s)" is state too.
  const admin = await s.as('iago@zulip.com');
  ({ writing } = await held(() => admin.call('DELETE', `/messages/${id}`)));
  r = await readsWait({ one: getOne, list: () => newest([{ operator: 'topic', operand: 'moved' }]) }, writing);
  t.match(r.one!.body, { result: 'error', msg: 'Invalid message(s)' }, 'the deletion is answered once durable');
  t.notOk(r.list!.body.messages.some((m: { id: number }) => m.id === id), 'and gone from its topic');

  t.equal(realm.readBarrier(), null, 'nothing pending at the end');
  // A plain send does not hold reads (the watermark hides the new message instead).
  flush.close();
  const sending = hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'held', content: 'quick' });
  const deadline = Date.now() + 10_000;
  const before = realm.durableMessageId;
  while (realm.state.nextIds.message - 1 <= before && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
  t.equal(realm.readBarrier(), null, 'a send raises no barrier');
  t.equal((await newest()).status, 200, 'reads answer at once during a send');
  flush.open();
  await sending;
});
