/**
 * Cached message JSON (src/events/wire/message-json.ts, src/domain/message-wire-cache.ts): after every
 * kind of change a user can make, `GET /messages` and `GET /messages/{id}` answer exactly what a
 * server with an empty cache answers, in every view (`apply_markdown` × `client_gravatar` ×
 * `allow_empty_topic_name`); the cache is really used; `encodeBody` splices raw JSON only.
 */
import t, { type Test } from 'tap';
import { startTestServer, type Caller, type Reply, type TestServer } from '../support/test-server.js';
import { messageWireCache, wireCacheBytes, WIRE_CACHE_MAX_BYTES } from '../../src/domain/message-wire-cache.js';
import { flagsSuffix, messageJsonPrefix } from '../../src/events/wire/message-json.js';
import { RawJson, encodeBody } from '../../src/api/raw-json.js';
import type { MessageBody } from '../../src/domain/records.js';

const realmOf = (s: TestServer) => s.server.registry.all()[0]!;

const VIEWS = [false, true].flatMap((apply_markdown) =>
  [false, true].flatMap((client_gravatar) => [false, true].map((allow_empty_topic_name) => ({ apply_markdown, client_gravatar, allow_empty_topic_name }))),
);

/** Every message hamlet can see, in every view, plus each message fetched alone. */
async function readAll(c: Caller, ids: readonly number[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const view of VIEWS) {
    out.push((await c.call('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, ...view })).body);
    out.push((await c.call('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify([{ operator: 'search', operand: 'cached' }]), ...view })).body);
  }
  for (const id of ids) out.push((await c.call('GET', `/messages/${id}`, { allow_empty_topic_name: true })).body);
  return out;
}

/** Asserts that reads through the warm cache equal reads after the cache was dropped. */
async function sameAsUncached(t: Test, s: TestServer, c: Caller, ids: readonly number[], after: string): Promise<void> {
  const cached = await readAll(c, ids);
  t.ok(messageWireCache(realmOf(s).state).isFilled, `${after}: the reads filled the cache`);
  messageWireCache(realmOf(s).state).clear();
  t.same(cached, await readAll(c, ids), `${after}: cached reads = uncached reads`);
}

t.test('cached message objects follow every change', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const send = async (c: Caller, params: Record<string, unknown>) => (await c.call('POST', '/messages', params)).body.id as number;
  const ids = [
    await send(hamlet, { type: 'stream', to: 'Verona', topic: 'cached', content: 'cached **one** #123' }),
    await send(iago, { type: 'stream', to: 'Verona', topic: '', content: 'cached two, empty topic' }),
    await send(iago, { type: 'direct', to: JSON.stringify(['hamlet@zulip.com', 'othello@zulip.com']), content: 'cached direct' }),
    await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'other', content: 'cached three' }),
  ];
  const [one, two, , three] = ids as [number, number, number, number];
  await sameAsUncached(t, s, hamlet, ids, 'start');

  const changes: Array<[string, () => Promise<Reply>]> = [
    ['content edit', () => hamlet.call('PATCH', `/messages/${one}`, { content: 'cached **edited**' })],
    ['topic move', () => hamlet.call('PATCH', `/messages/${one}`, { topic: 'cached moved #7', propagate_mode: 'change_all' })],
    ['channel move', () => iago.call('PATCH', `/messages/${three}`, { stream_id: realmStreamId(s, 'Scotland') })],
    ['reaction added', () => hamlet.call('POST', `/messages/${two}/reactions`, { emoji_name: 'octopus' })],
    ['reaction removed', () => hamlet.call('DELETE', `/messages/${two}/reactions`, { emoji_name: 'octopus' })],
    ['submessage', () => hamlet.call('POST', '/submessage', { message_id: one, msg_type: 'widget', content: '{"type":"vote"}' })],
    ['sender renamed', () => hamlet.call('PATCH', '/settings', { full_name: 'Prince Hamlet' })],
    ['sender email visibility', () => hamlet.call('PATCH', '/settings', { email_address_visibility: 4 })],
    ['channel renamed', () => iago.call('PATCH', `/streams/${realmStreamId(s, 'Verona')}`, { new_name: 'Verona renamed' })],
    ['linkifier added', () => iago.call('POST', '/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' })],
    ['edit history hidden', () => iago.call('PATCH', '/realm', { allow_edit_history: 'false' })],
    ['message deleted', () => iago.call('DELETE', `/messages/${two}`)],
  ];
  for (const [name, change] of changes) {
    // Warm every variant, change, then compare the warm cache with a cold one.
    const live = ids.filter((id) => id !== two || name !== 'message deleted');
    const before = await readAll(hamlet, live);
    t.equal((await change()).body.result, 'success', `${name} succeeds`);
    t.notSame(await readAll(hamlet, live), before, `${name} changes what is read (or this step tests nothing)`);
    await sameAsUncached(t, s, hamlet, live, name);
  }
});

/** The id of the channel named `name`. */
function realmStreamId(s: TestServer, name: string): number {
  for (const stream of realmOf(s).state.streams.values()) if (stream.name === name) return stream.id;
  throw new Error(`no channel ${name}`);
}

t.test('a cached message is served without reading its body again', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const id = (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 't', content: 'hello' })).body.id as number;
  const realm = realmOf(s);
  const view = { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: false };
  let reads = 0;
  const readBody = (mid: number): MessageBody | undefined => {
    reads++;
    return realm.messageBody(mid);
  };
  const first = messageJsonPrefix(realm.state, id, readBody, view);
  const second = messageJsonPrefix(realm.state, id, readBody, view);
  t.equal(reads, 1, 'one body read for two builds');
  t.equal(second, first, 'the same bytes, not a copy');
  const user = [...realm.state.users.values()].find((u) => u.email === 'hamlet@zulip.com')!;
  const message = JSON.parse(Buffer.concat([first!, flagsSuffix(realm.state, user, id)]).toString()) as Record<string, unknown>;
  t.equal(message.content, '<p>hello</p>');
  t.same(message, (await hamlet.call('GET', `/messages/${id}`)).body.message, 'the object GET /messages/{id} answers');
  t.equal(messageJsonPrefix(realm.state, 999_999, () => undefined, view), undefined, 'no body: nothing');
  messageWireCache(realm.state).forget([id]);
  t.equal(messageJsonPrefix(realm.state, 999_999, () => undefined, view), undefined, 'still nothing after a forget');
  reads = 0;
  t.same(messageJsonPrefix(realm.state, id, readBody, view), first, 'forgotten: built again, same bytes');
  t.equal(reads, 1, 'from its body');
});

t.test('one cache for every realm, bounded in bytes', async (t) => {
  const s = await startTestServer(t);
  const state = realmOf(s).state;
  const cache = messageWireCache(state);
  const other = messageWireCache({ ...state }); // another realm state object: its own entries
  const text = Buffer.alloc(64 * 1024, 'x');
  const count = Math.ceil((2 * WIRE_CACHE_MAX_BYTES) / text.length);
  for (let id = 1; id <= count; id++) (id % 2 === 0 ? cache : other).set(id, 0, text);
  t.ok(wireCacheBytes() <= WIRE_CACHE_MAX_BYTES, `${wireCacheBytes()} bytes held, at most ${WIRE_CACHE_MAX_BYTES}`);
  t.ok(wireCacheBytes() >= WIRE_CACHE_MAX_BYTES - text.length, 'and the budget is used');
  t.equal(cache.get(state, count, 0), text, 'the newest is there');
  t.equal(cache.get(state, 2, 0), undefined, 'the oldest is gone');
  t.equal(other.get(state, count, 0), undefined, 'realms do not see each other\'s entries');
  t.equal(other.get(state, count - 1, 0), text);
  cache.clear();
  t.equal(cache.get(state, count, 0), undefined, 'clear forgets this realm');
  t.equal(other.get(state, count - 1, 0), text, 'and only this realm');
});

t.test('encodeBody splices top-level raw JSON and is JSON.stringify otherwise', async (t) => {
  const plain = { result: 'success', msg: '', n: 1, list: [1, { a: 'b' }], skip: undefined, nested: { r: new RawJson(['[1]']) } };
  t.equal(encodeBody(plain), JSON.stringify(plain) + '\n', 'no top-level raw: JSON.stringify (a nested RawJson is an ordinary object)');
  const body = { result: 'success', messages: new RawJson(['[', Buffer.from('{"id":1,"s":"é🐙"'), '}]']), gone: undefined, anchor: 5 };
  const encoded = encodeBody(body);
  t.ok(Buffer.isBuffer(encoded), 'bytes when there is raw JSON');
  t.equal(encoded.toString(), '{"result":"success","messages":[{"id":1,"s":"é🐙"}],"anchor":5}\n', 'UTF-8 chunks and strings together');
  t.same(JSON.parse(encodeBody({ only: new RawJson(['"ü"']) }).toString()), { only: 'ü' }, 'strings are encoded as UTF-8');
  t.equal(encodeBody({ a: new RawJson(['1']), b: () => 1, c: undefined }).toString(), '{"a":1}\n', 'functions and undefined are left out as JSON.stringify does');
});
