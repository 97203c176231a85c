/**
 * The real zulip-js 2.1.0 client from npm against a real server process (dist/cli.js on a
 * temporary data directory with the demo organization). zulip-js sends multipart/form-data
 * bodies, duplicates `message_id` into the query string of getById, identifies itself with the
 * User-Agent `node-fetch/1.0 (...)` (so Zulip's client name is `node-fetch`), and never checks
 * HTTP statuses: every call resolves with the parsed JSON body, errors included.
 */
import t from 'tap';
import { createRequire } from 'node:module';
import { api, DEFAULT_DEMO_PASSWORD, fetchApiKey, startServer } from '../support/server-process.js';

/** The slice of zulip-js's (untyped, CommonJS) API this test uses. */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface ZulipClient {
  config: { username: string; apiKey?: string; realm: string; apiURL: string };
  accounts: { retrieve(): Promise<Json> };
  server: { settings(params?: Json): Promise<Json> };
  users: { retrieve(params?: Json): Promise<Json>; me: { getProfile(): Promise<Json> } };
  streams: { subscriptions: { retrieve(params?: Json): Promise<Json> } };
  messages: {
    send(params: Json): Promise<Json>;
    getById(params: Json): Promise<Json>;
    render(params: string | Json): Promise<Json>;
  };
}
type ZulipFactory = (config: { username: string; password?: string; apiKey?: string; realm: string }) => Promise<ZulipClient>;

const require = createRequire(import.meta.url);
const zulip = require('zulip-js') as ZulipFactory;

const PW = DEFAULT_DEMO_PASSWORD;
const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';

t.test('zulip-js against a real parley process', async (t) => {
  const server = await startServer({ t });
  const realm = server.url;

  // Password login: zulip() calls POST /fetch_api_key (multipart, no Authorization header).
  const client = await zulip({ username: HAMLET, password: PW, realm });
  const apiKey = client.config.apiKey;
  t.type(apiKey, 'string', 'zulip() stored the api_key from fetch_api_key');
  t.match(apiKey, /^[A-Za-z0-9]{32}$/, 'API key format: 32 alphanumerics');
  t.equal(client.config.apiURL, `${realm}/api/v1`);
  const login = await fetchApiKey(realm, HAMLET, PW);
  t.equal(login.api_key, apiKey, 'a second login returns the same key');
  t.equal(login.email, HAMLET);
  const hamletId = login.user_id;
  t.type(hamletId, 'number');

  await t.test('server.settings', async (t) => {
    const s = await client.server.settings();
    t.equal(s.result, 'success');
    t.equal(s.msg, '');
    t.equal(s.zulip_feature_level, 417);
    t.type(s.zulip_version, 'string');
    t.equal(s.realm_name, 'Zulip Dev');
    t.equal(s.realm_url, realm, 'realm_url is the URL the client used');
    t.equal(s.realm_uri, realm);
    t.equal(s.authentication_methods?.password, true);
    t.equal(s.email_auth_enabled, true);
    t.equal(s.require_email_format_usernames, true);
    t.equal(s.push_notifications_enabled, false);
    t.equal(s.is_incompatible, false);
  });

  await t.test('users.me.getProfile', async (t) => {
    const me = await client.users.me.getProfile();
    t.match(me, {
      result: 'success',
      msg: '',
      user_id: hamletId,
      email: HAMLET,
      delivery_email: HAMLET,
      full_name: 'King Hamlet',
      role: 400,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      is_bot: false,
      is_active: true,
      profile_data: {},
    });
    t.type(me.max_message_id, 'number');
    t.type(me.avatar_url, 'string');
    t.type(me.date_joined, 'string');
  });

  // Ids the assertions need, discovered through zulip-js itself.
  const subs = await client.streams.subscriptions.retrieve();
  t.equal(subs.result, 'success');
  const verona = (subs.subscriptions as Json[]).find((s) => s.name === 'Verona');
  t.ok(verona, 'hamlet is subscribed to Verona');
  const veronaId = verona!.stream_id as number;
  const users = await client.users.retrieve();
  t.equal(users.result, 'success');
  const othello = (users.members as Json[]).find((u) => u.email === OTHELLO);
  t.ok(othello, 'othello is a member');
  const othelloId = othello!.user_id as number;

  const before = Math.floor(Date.now() / 1000);
  const channelContent = 'Hello from **zulip-js**, with `code` and a [link](https://zulip.com)';
  const sentChannel = await client.messages.send({ type: 'stream', to: 'Verona', topic: 'zulip-js e2e', content: channelContent });
  t.match(sentChannel, { result: 'success', msg: '' }, 'channel send succeeded');
  t.type(sentChannel.id, 'number');

  // zulip-js examples pass `to` as a bare email string for direct messages.
  const dmContent = 'psst, _Othello_';
  const sentDm = await client.messages.send({ type: 'private', to: OTHELLO, content: dmContent });
  t.match(sentDm, { result: 'success', msg: '' }, 'direct send succeeded');
  t.ok(sentDm.id > sentChannel.id, 'message ids increase');
  const after = Math.floor(Date.now() / 1000);

  await t.test('getById: channel message', async (t) => {
    const got = await client.messages.getById({ message_id: sentChannel.id });
    t.equal(got.result, 'success');
    t.equal(got.raw_content, channelContent);
    const m = got.message as Json;
    t.equal(m.id, sentChannel.id);
    t.equal(
      m.content,
      '<p>Hello from <strong>zulip-js</strong>, with <code>code</code> and a <a href="https://zulip.com">link</a></p>',
    );
    t.equal(m.content_type, 'text/html');
    t.equal(m.type, 'stream');
    t.equal(m.display_recipient, 'Verona');
    t.equal(m.stream_id, veronaId);
    t.equal(m.subject, 'zulip-js e2e');
    t.same(m.flags, [], 'own message from a non-UI client (node-fetch) is not auto-read');
    t.equal(m.sender_id, hamletId);
    t.equal(m.sender_email, HAMLET);
    t.equal(m.sender_full_name, 'King Hamlet');
    t.equal(m.client, 'node-fetch', 'client name = User-Agent token before "/"');
    t.equal(m.is_me_message, false);
    t.same(m.reactions, []);
    t.same(m.submessages, []);
    t.same(m.topic_links, []);
    t.ok(m.timestamp >= before && m.timestamp <= after, `timestamp ${m.timestamp} within [${before}, ${after}]`);
  });

  await t.test('getById: channel message with apply_markdown=false', async (t) => {
    const got = await client.messages.getById({ message_id: sentChannel.id, apply_markdown: false });
    t.equal(got.result, 'success');
    t.equal(got.message.content, channelContent);
    t.equal(got.message.content_type, 'text/x-markdown');
  });

  await t.test('getById: direct message', async (t) => {
    const got = await client.messages.getById({ message_id: sentDm.id });
    t.equal(got.result, 'success');
    t.equal(got.raw_content, dmContent);
    const m = got.message as Json;
    t.equal(m.id, sentDm.id);
    t.equal(m.content, '<p>psst, _Othello_</p>', 'Zulip Markdown has no underscore emphasis');
    t.equal(m.type, 'private');
    t.equal(m.subject, '', 'direct messages have an empty subject');
    t.notOk('stream_id' in m, 'no stream_id on a direct message');
    const expected = [
      { id: hamletId, email: HAMLET, full_name: 'King Hamlet', is_mirror_dummy: false },
      { id: othelloId, email: OTHELLO, full_name: 'Othello, the Moor of Venice', is_mirror_dummy: false },
    ].sort((a, b) => a.id - b.id);
    t.same(m.display_recipient, expected, 'display_recipient: both participants, by id');
    t.same(m.flags, []);

    // The recipient sees it too (unread), a third user does not.
    const othelloClient = await zulip({ username: OTHELLO, password: PW, realm });
    const asOthello = await othelloClient.messages.getById({ message_id: sentDm.id });
    t.equal(asOthello.result, 'success');
    t.equal(asOthello.raw_content, dmContent);
    t.same(asOthello.message.flags, [], 'unread for the recipient');
    const cordelia = await zulip({ username: 'cordelia@zulip.com', password: PW, realm });
    const denied = await cordelia.messages.getById({ message_id: sentDm.id });
    t.match(denied, { result: 'error', code: 'BAD_REQUEST', msg: 'Invalid message(s)' }, 'no access to others’ DMs');
  });

  await t.test('direct message with `to` as a JSON list of user ids, type=direct', async (t) => {
    const sent = await client.messages.send({ type: 'direct', to: [othelloId], content: 'by id' });
    t.equal(sent.result, 'success');
    const got = await client.messages.getById({ message_id: sent.id });
    t.equal(got.message.type, 'private');
    t.same(
      (got.message.display_recipient as Json[]).map((r) => r.id),
      [hamletId, othelloId].sort((a, b) => a - b),
    );
  });

  await t.test('messages.render', async (t) => {
    const r1 = await client.messages.render('**bold** and *italic*');
    t.same(r1, { result: 'success', msg: '', rendered: '<p><strong>bold</strong> and <em>italic</em></p>' });
    const r2 = await client.messages.render({ content: '`x`' });
    t.equal(r2.rendered, '<p><code>x</code></p>');
  });

  await t.test('error paths', async (t) => {
    // zulip() does not check the login result: it resolves with apiKey undefined.
    const bad = await zulip({ username: HAMLET, password: 'wrong password', realm });
    t.equal(bad.config.apiKey, undefined, 'zulip-js swallows the failed login');
    const retry = await bad.accounts.retrieve();
    t.same(retry, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
    // Every later call then sends "hamlet@zulip.com:undefined": 401 UNAUTHORIZED on /api/v1.
    const me = await bad.users.me.getProfile();
    t.match(me, { result: 'error', code: 'UNAUTHORIZED' });
    const raw = await api(realm, HAMLET, 'undefined', 'GET', 'users/me');
    t.equal(raw.status, 401);
    t.equal(raw.headers.get('www-authenticate'), 'Basic realm="zulip"');

    const unknownUser = await zulip({ username: 'nobody@zulip.com', password: PW, realm });
    t.equal(unknownUser.config.apiKey, undefined);

    const missing = await client.messages.getById({ message_id: 999_999 });
    t.same(missing, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });

    const noStream = await client.messages.send({ type: 'stream', to: 'Atlantis', topic: 'x', content: 'y' });
    t.match(noStream, { result: 'error', code: 'STREAM_DOES_NOT_EXIST', stream: 'Atlantis' });
  });
});
