/**
 * GET /messages audit (issue 6): the cases `messages-fetch.test.ts` cannot show on its fixed
 * fixture — positive `is:starred` / `is:mentioned` / `is:unread` after flag changes, topic and
 * channel muting (Zulip's `exclude_muting_conditions`: `in:home`, `is:muted`, `is:followed`, and
 * the `first_unread` anchor), deleted messages, and the `date` anchor (not part of FL 417:
 * "Invalid anchor").
 */
import t from 'tap';
import { startTestServer, type Caller, type Reply } from '../support/test-server.js';

const ids = (r: Reply): number[] => {
  if (r.status !== 200) throw new Error(`expected success, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.messages.map((m: { id: number }) => m.id);
};
const op = (operator: string, operand: unknown, negated?: boolean) => (negated === undefined ? { operator, operand } : { operator, operand, negated });

t.test('GET /messages: flags, muting, deletion, anchors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const send = async (who: Caller, params: Record<string, unknown>) => {
    const r = await who.call('POST', '/messages', params);
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body.id as number;
  };
  const get = (who: Caller, narrow: unknown[], extra: Record<string, unknown> = {}) =>
    who.call('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow, ...extra });
  const firstUnread = async (who: Caller, narrow: unknown[] = []) =>
    (await who.call('GET', '/messages', { anchor: 'first_unread', num_before: 0, num_after: 0, narrow })).body.anchor as number;

  // othello's messages 7–11 are unread for hamlet.
  const noise = await send(othello, { type: 'stream', to: 'Verona', topic: 'noise', content: 'blah' });
  const mention = await send(othello, { type: 'stream', to: 'Verona', topic: 'calls', content: 'hey @**King Hamlet**' });
  const castle = await send(othello, { type: 'stream', to: 'Denmark', topic: 'castle', content: 'castle news' });
  const moat = await send(othello, { type: 'stream', to: 'Denmark', topic: 'moat', content: 'moat news' });
  const noise2 = await send(othello, { type: 'stream', to: 'Verona', topic: 'NOISE', content: 'more blah' });
  t.same([noise, mention, castle, moat, noise2], [7, 8, 9, 10, 11], 'setup ids');

  t.test('the date anchor is not part of FL 417', async (t) => {
    const r = await hamlet.call('GET', '/messages', { anchor: 'date', num_before: 1, num_after: 0 });
    t.same(r.body, { result: 'error', msg: 'Invalid anchor', code: 'BAD_REQUEST' });
  });

  t.test('is:mentioned, is:starred, is:unread follow the flags', async (t) => {
    t.same(ids(await get(hamlet, [op('is', 'mentioned')])), [mention], 'a mention');
    t.same(ids(await get(hamlet, [op('is', 'starred')])), [], 'nothing starred yet');
    const star = await hamlet.call('POST', '/messages/flags', { messages: [castle, 2], op: 'add', flag: 'starred' });
    t.equal(star.status, 200);
    t.same(ids(await get(hamlet, [op('is', 'starred')])), [2, castle]);
    t.same(ids(await get(hamlet, [op('is', 'starred'), op('channel', 'Denmark')])), [castle], 'combined with a channel');
    t.same(ids(await get(hamlet, [op('is', 'starred', true), op('channel', 'Denmark')])), [4, moat], 'negated');
    const unreadBefore = ids(await get(hamlet, [op('is', 'unread'), op('channel', 'Verona')]));
    t.ok(unreadBefore.includes(noise));
    await hamlet.call('POST', '/messages/flags', { messages: [noise], op: 'add', flag: 'read' });
    t.same(ids(await get(hamlet, [op('is', 'unread'), op('channel', 'Verona')])), unreadBefore.filter((x) => x !== noise), 'read: no longer unread');
    await hamlet.call('POST', '/messages/flags', { messages: [noise], op: 'remove', flag: 'read' });
  });

  t.test('topic muting: in:home, is:muted, first_unread', async (t) => {
    const all = ids(await get(hamlet, []));
    const before = await firstUnread(hamlet);
    t.equal(before, 1, 'first unread before any muting');
    const setPolicy = (stream_id: number, topic: string, visibility_policy: number) =>
      hamlet.call('POST', '/user_topics', { stream_id, topic, visibility_policy });
    t.equal((await setPolicy(1, 'noise', 1)).status, 200, 'muted Verona > noise');
    t.same(ids(await get(hamlet, [op('is', 'muted')])), [noise, noise2], 'is:muted: the muted topic, case-insensitively');
    t.same(ids(await get(hamlet, [op('in', 'home')])), all.filter((x) => x !== noise && x !== noise2), 'in:home leaves it out');
    t.same(ids(await get(hamlet, [op('in', 'home', true)])), [noise, noise2]);
    t.same(ids(await get(hamlet, [op('channel', 'Verona'), op('topic', 'noise')])), [noise, noise2], 'still readable in its own narrow');

    // first_unread skips muted topics: mark 1–6 read, then the first unread is `noise` unless muted.
    await hamlet.call('POST', '/messages/flags', { messages: [1, 2, 3, 4, 5, 6], op: 'add', flag: 'read' });
    t.equal(await firstUnread(hamlet), mention, 'first unread skips the muted topic');
    t.equal(await firstUnread(hamlet, [op('channel', 'Verona')]), mention, 'also inside its channel');
    t.equal(await firstUnread(hamlet, [op('channel', 'Denmark')]), castle, 'another channel');
    await setPolicy(1, 'noise', 0);
    t.equal(await firstUnread(hamlet), noise, 'unmuted again');
    t.same(ids(await get(hamlet, [op('is', 'muted')])), []);
  });

  t.test('channel muting with unmuted and followed topics', async (t) => {
    const mute = await hamlet.call('POST', '/users/me/subscriptions/properties', {
      subscription_data: [{ stream_id: 2, property: 'is_muted', value: true }],
    });
    t.equal(mute.status, 200, 'Denmark muted');
    t.same(ids(await get(hamlet, [op('is', 'muted')])), [moat], 'Denmark is muted, but not "castle", which hamlet follows (started it: auto-follow)');
    t.same(ids(await get(hamlet, [op('is', 'followed'), op('channel', 'Denmark')])), [4, castle], 'is:followed');
    t.equal((await hamlet.call('POST', '/user_topics', { stream_id: 2, topic: 'MOAT', visibility_policy: 2 })).status, 200);
    t.same(ids(await get(hamlet, [op('is', 'muted')])), [], 'an unmuted topic of a muted channel is not muted');
    t.ok(ids(await get(hamlet, [op('in', 'home')])).includes(moat));
    t.same(ids(await get(hamlet, [op('is', 'followed'), op('channel', 'Denmark')])), [4, castle], 'unmuted is not followed');
    await hamlet.call('POST', '/user_topics', { stream_id: 2, topic: 'moat', visibility_policy: 0 });
    await hamlet.call('POST', '/messages/flags', { messages: [mention, noise, noise2], op: 'add', flag: 'read' });
    t.equal(await firstUnread(hamlet), castle, 'first unread: a followed topic of a muted channel counts');
    await hamlet.call('POST', '/messages/flags', { messages: [castle], op: 'add', flag: 'read' });
    t.equal(await firstUnread(hamlet), 10_000_000_000_000_000, 'moat is muted with its channel: none');
    t.equal(await firstUnread(hamlet, [op('channel', 'Denmark')]), moat, 'naming the channel lifts channel muting');
  });

  t.test('deleted messages never appear', async (t) => {
    const doomed = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'doomed', content: 'a link https://example.com/x' });
    t.same(ids(await get(hamlet, [op('id', doomed)])), [doomed]);
    t.equal((await hamlet.call('DELETE', `/messages/${doomed}`)).status, 200);
    for (const narrow of [[], [op('id', doomed)], [op('has', 'link')], [op('topic', 'doomed')], [op('sender', 'hamlet@zulip.com')], [op('search', 'link')], [op('channels', 'public')]]) {
      t.notOk(ids(await get(hamlet, narrow)).includes(doomed), `absent with ${JSON.stringify(narrow)}`);
    }
    const around = await hamlet.call('GET', '/messages', { anchor: doomed, num_before: 0, num_after: 0 });
    t.same([around.body.found_anchor, ids(around)], [false, []], 'as an anchor: not found');
  });
});
