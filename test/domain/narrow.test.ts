/**
 * Narrow parsing and compiling (src/domain/narrow.ts), the lookup index
 * (src/domain/recipient-index.ts), search (src/domain/message-search.ts) and the query planner
 * (src/realm/queries/message-list.ts) on a small realm built from real commands. Flags and
 * muting, which no endpoint sets yet, are set directly on the state here.
 */
import t from 'tap';
import { smallRealm } from '../support/realm-fixture.js';
import { applyCommand, bodiesOf } from '../../src/realm/apply-command.js';
import type { MessageBody, RealmRecord } from '../../src/domain/records.js';
import { Flag } from '../../src/domain/message-index.js';
import { ZulipError } from '../../src/errors.js';
import {
  LARGER_THAN_MAX_MESSAGE_ID,
  cleanNarrow,
  includesHistory,
  parseNarrow,
  type NarrowTerm,
} from '../../src/domain/narrow.js';
import { fetchMessageList, selectMessages } from '../../src/realm/queries/message-list.js';
import {
  IdList,
  lowerBound,
  mergeSequences,
  messageLookupIndex,
  upperBound,
  type IdSequence,
} from '../../src/domain/recipient-index.js';
import { escapeTopicHtml, highlightHtml, highlightTopic, matchesSearch, parseSearch } from '../../src/domain/message-search.js';

const seqToArray = (s: IdSequence) => Array.from({ length: s.length }, (_, i) => s.get(i));

/** smallRealm plus a body store and helpers to send and fetch. */
function world() {
  const r = smallRealm();
  const { state, ctx } = r;
  const bodies = new Map<number, MessageBody>();
  let bodyReads = 0;
  const readBody = (id: number) => {
    bodyReads++;
    return bodies.get(id);
  };
  const send = (senderId: number, to: unknown, content: string, topic?: string, readBySender = true) => {
    const records: RealmRecord[] = [];
    const res = applyCommand(
      state,
      { type: 'send_message', senderId, messageType: topic === undefined ? 'private' : 'stream', to, topic, content, client: 'test', readBySender },
      ctx,
      records,
    );
    if (!res.ok) throw res.error;
    for (const [id, body] of bodiesOf(records)) bodies.set(id, body);
    return res.value.id;
  };
  const terms = (viewerId: number, narrow: unknown): NarrowTerm[] | null => {
    if (narrow === undefined) return null;
    const parsed = parseNarrow(JSON.stringify(narrow));
    if (parsed instanceof ZulipError) throw parsed;
    const cleaned = cleanNarrow(state, state.users.get(viewerId)!, parsed);
    if (cleaned instanceof ZulipError) throw cleaned;
    return cleaned;
  };
  const select = (viewerId: number, narrow?: unknown, range: { anchor?: number | null; before?: number; after?: number; include?: boolean } = {}) => {
    const result = selectMessages(
      state,
      state.users.get(viewerId)!,
      {
        anchor: range.anchor === undefined ? LARGER_THAN_MAX_MESSAGE_ID : range.anchor,
        includeAnchor: range.include ?? true,
        numBefore: range.before ?? 1000,
        numAfter: range.after ?? 0,
        narrow: terms(viewerId, narrow),
      },
      readBody,
    );
    if (result instanceof ZulipError) throw result;
    return result;
  };
  const list = (viewerId: number, narrow?: unknown) => select(viewerId, narrow).ids;
  const error = (viewerId: number, narrow: unknown) => {
    try {
      select(viewerId, narrow);
    } catch (e) {
      if (e instanceof ZulipError) return e.toBody();
      throw e;
    }
    return null;
  };
  const setFlags = (userId: number, messageId: number, bits: number) => {
    const rows = state.messages.users.get(userId)!;
    const i = rows.indexOf(messageId);
    if (i < 0) throw new Error('no row');
    rows.flags.set(i, bits);
  };
  const reads = () => {
    const n = bodyReads;
    bodyReads = 0;
    return n;
  };
  return { ...r, bodies, send, select, list, error, setFlags, reads, readBody, terms };
}

const op = (operator: string, operand: unknown, negated?: boolean) =>
  negated === undefined ? { operator, operand } : { operator, operand, negated };

t.test('parseNarrow', async (t) => {
  t.equal(parseNarrow('[]'), null);
  t.same(parseNarrow('[["stream", "Verona"], {"operator": "is", "operand": "dm", "negated": true}, {"operator": "dm", "operand": [1, 2]}]'), [
    { operator: 'stream', operand: 'Verona', negated: false },
    { operator: 'is', operand: 'dm', negated: true },
    { operator: 'dm', operand: [1, 2], negated: false },
  ]);
  t.same(parseNarrow('[{"operator": "sender", "operand": 7, "extra": 1}]'), [{ operator: 'sender', operand: 7, negated: false }], 'extra keys ignored');
  const err = (raw: string) => {
    const r = parseNarrow(raw);
    return r instanceof ZulipError ? r.toBody() : r;
  };
  const badValue = (raw: string) => ({
    result: 'error', msg: `Bad value for 'narrow': ${raw}`, code: 'REQUEST_VARIABLE_INVALID', var_name: 'narrow', bad_value: raw,
  });
  const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
  for (const raw of ['x', '{}', '"is"', '[1]', '[null]', '[["a"]]', '[["a", "b", "c"]]', '[["id", 5]]']) t.same(err(raw), badValue(raw), raw);
  t.same(err('[{"operand": "x"}]'), bad('operator key is missing from elem'));
  t.same(err('[{"operator": 5, "operand": "x"}]'), bad('elem["operator"] is not a string'));
  t.same(err('[{"operator": "is"}]'), bad('operand key is missing from elem'));
  t.same(err('[{"operator": "id", "operand": 1.5}]'), bad('elem["operand"] is not a string or integer'));
  t.same(err('[{"operator": "with", "operand": null}]'), bad('elem["operand"] is not a string or integer'));
  t.same(err('[{"operator": "dm", "operand": 5}]'), bad('elem["operand"] is not a string or an integer list'));
  t.same(err('[{"operator": "pm-with", "operand": [1, "a"]}]'), bad('elem["operand"][1] is not an integer'));
  t.same(err('[{"operator": "pm_with", "operand": [1]}]'), bad('elem["operand"] is not a string'), 'underscored alias: strings only');
  t.same(err('[{"operator": "search", "operand": ""}]'), bad('elem["operand"] cannot be blank.'));
  t.same(err('[{"operator": "search", "operand": 3}]'), bad('elem["operand"] is not a string'));
  t.same(err('[{"operator": "is", "operand": ["dm"]}]'), bad('elem["operand"] is not a string'));
  t.same(err('[{"operator": "is", "operand": "dm", "negated": 1}]'), bad('elem["negated"] is not a boolean'));
  t.same(err('[["is", "dm"], {"operand": 1}]'), bad('operator key is missing from elem'), 'first bad element');
});

t.test('cleanNarrow: empty-topic name and with', async (t) => {
  const w = world();
  const { state, ids: u } = w;
  const m1 = w.send(u.member, 'general', 'one', 'Alpha');
  const m2 = w.send(u.member, [u.other], 'dm');
  const member = state.users.get(u.member)!;
  const clean = (narrow: NarrowTerm[]) => cleanNarrow(state, member, narrow);
  const t1 = (operator: string, operand: NarrowTerm['operand'], negated = false): NarrowTerm => ({ operator, operand, negated });
  t.same(clean([t1('topic', 'general chat'), t1('topic', 'general chat')]), [t1('topic', ''), t1('topic', 'general chat')], 'first topic term only');
  t.same(clean([t1('with', m1), t1('channel', 'secret'), t1('is', 'unread')]), [
    t1('channel', w.streams.general), t1('topic', 'Alpha'), t1('is', 'unread'),
  ]);
  t.same(clean([t1('with', String(m2))]), [t1('dm', [u.member, u.other])]);
  const guest = state.users.get(u.guest)!;
  t.same(cleanNarrow(state, guest, [t1('with', m1), t1('channel', 'general'), t1('topic', 'x')]), [t1('channel', 'general'), t1('topic', 'x')]);
  t.same((cleanNarrow(state, guest, [t1('with', m1)]) as ZulipError).toBody(), {
    result: 'error', msg: "Invalid narrow operator: Invalid 'with' operator", code: 'BAD_NARROW', desc: "Invalid 'with' operator",
  });
  t.equal(cleanNarrow(state, member, null), null);
});

t.test('includesHistory (ok_to_include_history)', async (t) => {
  const w = world();
  const { state, ids: u } = w;
  const shared = w.state.streams.get(
    applyCommand(state, { type: 'create_channel', actorId: null, name: 'shared', description: '', inviteOnly: true, historyPublicToSubscribers: true, isWebPublic: false, isDefault: false, subscriberIds: [u.owner] }, w.ctx).ok
      ? state.streamsByName.get('shared')!
      : -1,
  )!;
  const h = (userId: number, narrow: unknown) => includesHistory(state, state.users.get(userId)!, w.terms(userId, narrow));
  t.equal(h(u.member, undefined), false);
  t.equal(h(u.member, [op('channel', 'general')]), true);
  t.equal(h(u.member, [op('channel', 'empty')]), true, 'public, unsubscribed');
  t.equal(h(u.guest, [op('channel', 'general')]), false, 'guests: no public history');
  t.equal(h(u.member, [op('channel', 'secret')]), false, 'protected history');
  t.equal(h(u.owner, [op('channel', shared.id)]), true, 'shared history, subscribed');
  t.equal(h(u.member, [op('channel', 'shared')]), false, 'shared history, not subscribed');
  t.equal(h(u.member, [op('channel', 'general', true)]), false, 'negated');
  t.equal(h(u.member, [op('channels', 'public')]), true);
  t.equal(h(u.guest, [op('channels', 'public')]), false);
  t.equal(h(u.member, [op('channel', 'general'), op('is', 'starred')]), false, 'is: terms use rows');
  t.equal(h(u.member, [op('channel', 'general'), op('is', 'resolved')]), true);
  t.equal(h(u.member, [op('channel', 'general'), op('channel', 'secret')]), false, 'the last channel term decides');
});

t.test('access: protected and shared history, admins, guests', async (t) => {
  const w = world();
  const { state, ids: u, streams } = w;
  applyCommand(state, { type: 'create_channel', actorId: null, name: 'shared', description: '', inviteOnly: true, historyPublicToSubscribers: true, isWebPublic: false, isDefault: false, subscriberIds: [u.owner] }, w.ctx);
  const s1 = w.send(u.owner, 'secret', 'protected one', 't');
  const h1 = w.send(u.owner, 'shared', 'shared one', 't');
  const g1 = w.send(u.owner, 'general', 'public one', 't');
  const e1 = w.send(u.owner, 'empty', 'nobody here', 't');
  applyCommand(state, { type: 'subscribe', streamId: streams.secret, userIds: [u.other] }, w.ctx);
  applyCommand(state, { type: 'subscribe', streamId: state.streamsByName.get('shared')!, userIds: [u.other] }, w.ctx);
  applyCommand(state, { type: 'subscribe', streamId: streams.general, userIds: [u.guest] }, w.ctx);
  const s2 = w.send(u.owner, 'secret', 'protected two', 't');

  t.same(w.list(u.other, [op('channel', 'secret')]), [s2], 'protected history: only messages since subscribing');
  t.same(w.list(u.other, [op('channel', 'shared')]), [h1], 'shared history: earlier messages too');
  t.same(w.select(u.other, [op('channel', 'shared')]).ids, [h1]);
  t.same(w.list(u.other), [g1, s2], 'without a narrow: rows only');
  t.same(w.list(u.admin, [op('channel', 'secret')]), [], 'admins may name a private channel but not read it');
  t.same(w.error(u.member, [op('channel', 'shared')])?.msg, 'Invalid narrow operator: unknown channel shared');
  t.same(w.list(u.guest), [], 'guest subscribed after the public message: no row');
  t.same(w.list(u.guest, [op('channel', 'general')]), [g1], 'but a subscribed guest reads the history (can_access_stream_history)');
  t.same(w.list(u.guest, [op('channels', 'public')]), [], 'channels:public gives guests no history');
  t.same(w.list(u.member, [op('channel', 'empty')]), [e1], 'history of a public channel nobody is in');
  t.same(w.list(u.member, [op('channels', 'public')]), [g1, e1]);
  t.same(w.list(u.bot), [], 'bots: rows only');

  const flags = fetchMessageList(state, state.users.get(u.member)!, {
    anchor: LARGER_THAN_MAX_MESSAGE_ID, includeAnchor: true, numBefore: 10, numAfter: 0,
    narrow: w.terms(u.member, [op('channel', 'empty')]), applyMarkdown: false, clientGravatar: true, allowEmptyTopicName: false,
  }, w.readBody) as { messagesJson: Uint8Array[] };
  const messages = JSON.parse(Buffer.concat(flags.messagesJson).toString()) as Array<{ flags: string[]; content: string }>;
  t.same(messages.map((m) => [m.content, m.flags]), [['nobody here', ['read', 'historical']]]);
  void s1;
});

t.test('flags: starred, mentioned, alerted, unread', async (t) => {
  const w = world();
  const { ids: u } = w;
  const m = [1, 2, 3, 4, 5, 6].map((i) => w.send(u.owner, 'general', `message ${i}`, 't', true));
  w.setFlags(u.member, m[0]!, Flag.read | Flag.starred);
  w.setFlags(u.member, m[1]!, Flag.mentioned);
  w.setFlags(u.member, m[2]!, Flag.stream_wildcard_mentioned | Flag.read);
  w.setFlags(u.member, m[3]!, Flag.topic_wildcard_mentioned | Flag.read);
  w.setFlags(u.member, m[4]!, Flag.group_mentioned | Flag.has_alert_word | Flag.read);
  t.same(w.list(u.member, [op('is', 'starred')]), [m[0]]);
  t.same(w.list(u.member, [op('is', 'mentioned')]), [m[1], m[2], m[3], m[4]]);
  t.same(w.list(u.member, [op('is', 'alerted')]), [m[4]]);
  t.same(w.list(u.member, [op('is', 'unread')]), [m[1], m[5]]);
  t.same(w.list(u.member, [op('is', 'mentioned', true)]), [m[0], m[5]]);
  t.same(w.list(u.member, [op('is', 'unread'), op('is', 'mentioned')]), [m[1]]);
  t.equal(w.select(u.member, undefined, { anchor: null, before: 0, after: 0 }).anchor, m[1], 'first unread');
});

t.test('muting: is:muted, in:home, first_unread', async (t) => {
  const w = world();
  const { state, ids: u, streams } = w;
  const g = w.send(u.owner, 'general', 'in general', 't', true);
  const s = w.send(u.owner, 'secret', 'in secret', 't', true);
  const d = w.send(u.owner, [u.member], 'a dm', undefined, true);
  state.subscriptions.get(streams.general)!.get(u.member)!.isMuted = true;
  t.same(w.list(u.member, [op('is', 'muted')]), [g]);
  t.same(w.list(u.member, [op('is', 'muted', true)]), [s, d]);
  t.same(w.list(u.member, [op('in', 'home')]), [s, d]);
  t.same(w.list(u.member, [op('in', 'home', true)]), [g]);
  t.equal(w.select(u.member, undefined, { anchor: null }).anchor, s, 'first unread skips muted channels');
  t.equal(w.select(u.member, [op('channel', 'general')], { anchor: null }).anchor, g, 'unless the narrow names a channel');
  t.equal(w.select(u.member, [op('channel', 'secret', true)], { anchor: null }).anchor, g,
    'any channel term, even negated, turns off channel muting (Zulip: the first channel term)');
  t.equal(w.select(u.member, [op('is', 'dm')], { anchor: null }).anchor, d);
  t.equal(w.select(u.other, undefined, { anchor: null }).anchor, g, 'muting is per user');
});

t.test('range semantics (limit_query_to_range + post_process_limited_query)', async (t) => {
  const w = world();
  const { ids: u } = w;
  const m = [1, 2, 3, 4, 5].map((i) => w.send(u.owner, 'general', `m${i}`, 't'));
  const r = (anchor: number | null, before: number, after: number, include = true) => {
    const s = w.select(u.member, undefined, { anchor, before, after, include });
    return [s.ids, s.foundAnchor, s.foundOldest, s.foundNewest, s.anchor];
  };
  t.same(r(m[2]!, 1, 1), [[m[1], m[2], m[3]], true, false, false, m[2]]);
  t.same(r(m[2]!, 5, 5), [m, true, true, true, m[2]]);
  t.same(r(m[2]!, 2, 0, false), [[m[0], m[1]], false, false, false, m[2]], 'exactly num_before found: not known to be oldest');
  t.same(r(m[2]!, 3, 0, false), [[m[0], m[1]], false, true, false, m[2]]);
  t.same(r(m[2]!, 0, 2, false), [[m[3], m[4]], false, false, false, m[2]]);
  t.same(r(m[2]!, 0, 3, false), [[m[3], m[4]], false, false, true, m[2]]);
  t.same(r(0, 3, 2), [[m[0], m[1]], false, true, false, 0]);
  t.same(r(LARGER_THAN_MAX_MESSAGE_ID, 2, 9), [[m[3], m[4]], false, false, true, LARGER_THAN_MAX_MESSAGE_ID]);
  t.same(r(LARGER_THAN_MAX_MESSAGE_ID, 0, 0), [[], false, false, true, LARGER_THAN_MAX_MESSAGE_ID]);
  t.same(r(0, 0, 0), [[], false, true, false, 0]);
  t.same(r(999, 1, 1), [[m[4]], false, false, true, 999], 'anchor past the end');
  t.same(r(null, 0, 0), [[m[0]], true, false, false, m[0]], 'first_unread');
});

t.test('lookup index', async (t) => {
  const list = new IdList(1);
  for (const id of [2, 5, 9, 12]) list.push(id);
  t.same(seqToArray(list), [2, 5, 9, 12]);
  t.same([lowerBound(list, 5), upperBound(list, 5), lowerBound(list, 1), upperBound(list, 12), lowerBound(list, 13)], [1, 2, 0, 4, 4]);
  const other = new IdList();
  for (const id of [1, 5, 10]) other.push(id);
  t.same(seqToArray(mergeSequences([list, other])), [1, 2, 5, 9, 10, 12], 'union, duplicates once');
  t.same(seqToArray(mergeSequences([])), []);

  const w = world();
  const { state, ids: u, streams } = w;
  const a = w.send(u.owner, 'general', 'a', 'Topic');
  const b = w.send(u.member, 'general', 'b', 'topic');
  const c = w.send(u.member, 'secret', 'c', 'TOPIC');
  const index = messageLookupIndex(state);
  t.equal(messageLookupIndex(state), index, 'one index per realm');
  const rid = (name: string) => state.streams.get(state.streamsByName.get(name)!)!.recipientId;
  t.same(seqToArray(index.byRecipient.get(rid('general'))!), [a, b]);
  t.same(seqToArray(index.bySender.get(u.member)!), [b, c]);
  t.same(index.topicIdsMatching('tOpIc').length, 3);
  const d = w.send(u.owner, 'general', 'd', 'other');
  messageLookupIndex(state);
  t.same(seqToArray(index.byRecipient.get(rid('general'))!), [a, b, d], 'synced by appending');
  t.same(index.topicIdsMatching('OTHER').length, 1, 'new topics too');
  t.same(w.list(u.member, [op('topic', 'topic')]), [a, b, c]);

  // a stale entry (the message was moved elsewhere) is filtered out by the column tests
  state.messages.recipient.set(b, rid('secret'));
  t.same(w.list(u.member, [op('channel', 'general')]), [a, d], 'stale entries are re-checked');
  index.rebuild();
  t.same(seqToArray(index.byRecipient.get(rid('secret'))!), [b, c], 'rebuild re-reads the columns');
  void streams;
});

t.test('the planner walks the smallest candidate list', async (t) => {
  const w = world();
  const { ids: u } = w;
  for (let i = 0; i < 200; i++) w.send(u.owner, 'general', `filler ${i} https://example.com/${i}`, 'busy');
  const quiet = w.send(u.other, 'general', 'rare words here', 'quiet');
  for (let i = 0; i < 50; i++) w.send(u.owner, 'general', `more filler ${i}`, 'busy');
  w.reads();
  t.same(w.select(u.member, undefined, { before: 3 }).ids.length, 3);
  t.equal(w.reads(), 0, 'no bodies read without body terms');
  t.same(w.list(u.member, [op('sender', u.other), op('search', 'rare')]), [quiet]);
  t.equal(w.reads(), 1, 'only the sender list was searched');
  t.same(w.list(u.member, [op('topic', 'quiet'), op('has', 'link', true)]), [quiet]);
  t.equal(w.reads(), 1, 'only the topic list was tested for links');
  t.same(w.select(u.member, [op('has', 'link')], { before: 2 }).ids.length, 2);
  t.equal(w.reads(), 53, 'walks back from the anchor (50 + 1 without links) and stops after num_before matches');
});

t.test('search helpers', async (t) => {
  const q = parseSearch('Castle "the gate" of');
  t.same([q.words, q.phrases], [['castle', 'gate'], ['the gate']]);
  t.equal(matchesSearch(q, 'The castle: the gate!', '', true), true);
  t.equal(matchesSearch(q, 'The castle gate', '', true), false, 'phrase missing');
  t.equal(matchesSearch(q, 'the gate', 'CASTLE', true), true, 'words may be in the topic');
  t.equal(matchesSearch(q, 'the gate', 'castle', false), true);
  t.equal(matchesSearch(parseSearch('"x y"'), 'nothing', 'x y', false), false, 'phrases ignore DM topics');
  t.equal(matchesSearch(parseSearch('castles'), 'castle', '', true), false, 'no stemming');
  t.equal(matchesSearch(parseSearch('of the'), 'of the', '', true), false, 'stop words only');
  t.equal(matchesSearch(parseSearch('über'), 'Ein ÜBER-Test', '', true), true, 'Unicode case folding');
  t.equal(
    highlightHtml('<p>A <a href="https://castle.example/castle">castle</a> Castle</p>', parseSearch('castle')),
    '<p>A <a href="https://castle.example/castle"><span class="highlight">castle</span></a> <span class="highlight">Castle</span></p>',
    'never inside tags',
  );
  t.equal(highlightTopic('<b> & castle', parseSearch('castle')), '&lt;b&gt; &amp; <span class="highlight">castle</span>');
  t.equal(escapeTopicHtml(`"it's"`), '&quot;it&#39;s&quot;');
  t.equal(highlightHtml('<p>x</p>', parseSearch('the')), '<p>x</p>');
});

t.test('BAD_NARROW wording', async (t) => {
  const w = world();
  const { ids: u } = w;
  const desc = (narrow: unknown) => w.error(u.member, narrow)?.desc;
  t.equal(desc([op('channel', 'nope')]), 'unknown channel nope');
  t.equal(desc([op('channel', 'secret', true)]), undefined, 'subscribed: fine');
  t.equal(w.error(u.other, [op('channel', 'secret', true)])?.desc, 'unknown channel secret', 'negated terms are looked up too');
  t.equal(desc([op('dm', 'nobody@example.com')]), 'unknown user in nobody@example.com');
  t.equal(desc([op('dm', 'other@example.com,')]), 'unknown user in other@example.com,', 'empty email');
  t.equal(desc([op('group-pm-with', 'x@y.z')]), 'unknown user x@y.z');
  t.equal(desc([op('dm', 'other@example.com'), op('topic', 'x')]), 'No message can be both a channel message and direct message');
  t.equal(desc([op('channels', 'public'), op('is', 'private')]), 'No message can be both a channel message and direct message');
  t.equal(desc([op('channel', 'nope'), op('foo', 'x')]), 'unknown channel nope', 'first term first');
  t.equal(desc([op('foo', 'x'), op('search', 'y')]), 'unknown operator foo');
  t.equal(desc([op('search', 'y', true)]), undefined, 'negated search is accepted (and ignored, as Zulip)');
});
