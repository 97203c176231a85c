/**
 * Reads see only durable messages (RealmHandle.durableMessageId): a message applied in the realm's
 * memory whose log record is not yet durable is invisible to GET /messages (anchors, narrows,
 * search, first_unread), GET /messages/{id} and GET /messages/matches_narrow, and appears once the
 * flush completes. The flush is held with the actor's `afterAppend` test hook.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';

/** A gate the test closes and opens; every append waits on it while closed. */
function gate() {
  let open: (() => void) | null = null;
  let held: Promise<void> | null = null;
  return {
    hook: () => held ?? Promise.resolve(),
    close() {
      held = new Promise<void>((r) => (open = r));
    },
    open() {
      held = null;
      open?.();
    },
  };
}

t.test('a message in memory but not yet durable is invisible to reads', async (t) => {
  const flush = gate();
  const s = await startTestServer(t, {}, { afterAppend: flush.hook });
  t.teardown(() => flush.open());
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const realm = s.server.registry.bySubdomainName('')!;
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
