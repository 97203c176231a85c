/** POST /messages, GET /messages/{id}, POST /messages/render through the real HTTP stack. */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';

t.test('send to a channel and read it back', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'api test', content: 'Hello **bold**' });
  t.equal(sent.status, 200);
  // A new topic: Zulip's default automatic follow (https://zulip.com/api/update-stream last row).
  t.same(Object.keys(sent.body).sort(), ['automatic_new_visibility_policy', 'id', 'msg', 'result']);
  t.equal(sent.body.automatic_new_visibility_policy, 3);
  const got = await hamlet.call('GET', `/messages/${sent.body.id}`);
  t.equal(got.status, 200);
  t.equal(got.body.raw_content, 'Hello **bold**');
  t.match(got.body.message, {
    id: sent.body.id,
    sender_id: hamlet.userId,
    sender_email: 'hamlet@zulip.com',
    sender_full_name: 'King Hamlet',
    content: '<p>Hello <strong>bold</strong></p>',
    content_type: 'text/html',
    subject: 'api test',
    type: 'stream',
    display_recipient: 'Verona',
    is_me_message: false,
    reactions: [],
    submessages: [],
    topic_links: [],
    sender_realm_str: '',
    client: 'node',
  });
  t.same(got.body.message.flags, [], 'non-website client: unread for the sender');
  t.type(got.body.message.timestamp, 'number');
  t.type(got.body.message.recipient_id, 'number');
  t.type(got.body.message.stream_id, 'number');
  t.match(got.body.message.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);

  const raw = await hamlet.call('GET', `/messages/${sent.body.id}`, { apply_markdown: false });
  t.equal(raw.body.message.content, 'Hello **bold**');
  t.equal(raw.body.message.content_type, 'text/x-markdown');

  const othello = await s.as('othello@zulip.com');
  const theirs = await othello.call('GET', `/messages/${sent.body.id}`);
  t.same(theirs.body.message.flags, [], 'a subscriber has an unread row');
  const guest = await s.as('polonius@zulip.com');
  t.equal((await guest.call('GET', `/messages/${sent.body.id}`)).status, 200, 'guest subscribed to Verona');
  const venice = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Venice', topic: 'canals', content: 'x' });
  t.equal(venice.status, 200, 'anyone but guests may post to a public channel unsubscribed');
  const denied = await guest.call('GET', `/messages/${venice.body.id}`);
  t.equal(denied.status, 400);
  t.same(denied.body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
});

t.test('aliases, channel/direct types, read_by_sender, subject alias, ignored parameters', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const r = await hamlet.call('POST', '/messages', { type: 'channel', to: '"Denmark"', subject: 'via subject', content: 'x', read_by_sender: true, bogus: 1 });
  t.equal(r.status, 200);
  t.same(r.body.ignored_parameters_unsupported, ['bogus']);
  const got = await hamlet.call('GET', `/messages/${r.body.id}`);
  t.equal(got.body.message.subject, 'via subject');
  t.same(got.body.message.flags, ['read']);
  const both = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', subject: 'a', topic: 'b', content: 'x' });
  t.same(both.body, { result: 'error', msg: "Can't decide between 'topic' and 'subject' arguments", code: 'REQUEST_CONFUSING_VAR', var_name1: 'topic', var_name2: 'subject' });
  const badType = await hamlet.call('POST', '/messages', { type: 'mail', to: 'Denmark', content: 'x' });
  t.same(badType.body, { result: 'error', msg: 'Invalid type', code: 'BAD_REQUEST' });
  const missing = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'x' });
  t.same(missing.body, { result: 'error', msg: "Missing 'content' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'content' });
  const noLocal = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'x', content: 'y', queue_id: 'q' });
  t.equal(noLocal.status, 400);
});

t.test('direct messages: sender, recipient, third party', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const dm = await hamlet.call('POST', '/messages', { type: 'direct', to: [othello.userId], content: 'secret plan' });
  t.equal(dm.status, 200);
  const seen = await othello.call('GET', `/messages/${dm.body.id}`);
  t.equal(seen.body.message.type, 'private');
  t.equal(seen.body.message.subject, '');
  t.same(
    seen.body.message.display_recipient.map((r: { email: string }) => r.email),
    ['hamlet@zulip.com', 'othello@zulip.com'],
  );
  t.notOk('stream_id' in seen.body.message);
  const reply = await othello.call('POST', '/messages', { type: 'private', to: 'hamlet@zulip.com', content: 'agreed' });
  const replyMsg = await hamlet.call('GET', `/messages/${reply.body.id}`);
  t.equal(replyMsg.body.message.recipient_id, seen.body.message.recipient_id, 'one recipient id for both directions');
  const denied = await iago.call('GET', `/messages/${dm.body.id}`);
  t.same(denied.body, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
  const unknown = await iago.call('GET', '/messages/99999');
  t.same(unknown.body, denied.body, 'unknown and invisible give the same error');
});

t.test('render', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const r = await hamlet.call('POST', '/messages/render', { content: '*hi* <script>' });
  t.same(r.body, { result: 'success', msg: '', rendered: '<p><em>hi</em> &lt;script&gt;</p>' });
  const missing = await hamlet.call('POST', '/messages/render', {});
  t.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
});

t.test('demo data is there for clients', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const first = await hamlet.call('GET', '/messages/1');
  t.match(first.body.message, { display_recipient: 'Verona', subject: 'welcome', sender_email: 'iago@zulip.com' });
});
