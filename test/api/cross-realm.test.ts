/**
 * Two organizations on one server: a user of one realm can never read or change another realm's
 * data (issue "Users and organization data" / Permissions). The second realm `team` is reached by
 * its Host, `team.localhost`; the demo realm is the root.
 */
import t from 'tap';
import { formEncode, rawRequest, startTestServer, type TestServer } from '../support/test-server.js';
import { Role } from '../../src/domain/realm-state.js';

interface Account {
  host: string;
  email: string;
  key: string;
}

async function call(s: TestServer, who: Account, method: string, path: string, params: Record<string, unknown> = {}) {
  const encoded = formEncode(params);
  const isGet = method === 'GET';
  const headers: Record<string, string> = {
    Host: who.host,
    Authorization: 'Basic ' + Buffer.from(`${who.email}:${who.key}`).toString('base64'),
  };
  if (!isGet) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  return rawRequest(s.url, method, `/api/v1${path}${isGet && encoded ? `?${encoded}` : ''}`, headers, isGet ? '' : encoded);
}

async function twoRealms(t: Parameters<typeof startTestServer>[0]) {
  const s = await startTestServer(t);
  let annKey = '';
  await s.server.registry.createRealm('team', 'Team', '', (run) => {
    const ann = run({ type: 'create_user', email: 'ann@team.example', fullName: 'Ann Team', role: Role.owner, passwordHash: null, isBot: false, botType: null, botOwnerId: null, timezone: '' });
    annKey = ann.apiKey;
    run({ type: 'create_channel', actorId: null, name: 'plans', description: '', inviteOnly: false, isWebPublic: false, isDefault: true, subscriberIds: [ann.userId] });
    run({ type: 'send_message', senderId: ann.userId, messageType: 'stream', to: 'plans', topic: 'secret', content: 'team-only content', client: 'test' });
  });
  const hamlet = await s.as('hamlet@zulip.com');
  const root: Account = { host: '127.0.0.1', email: 'hamlet@zulip.com', key: hamlet.apiKey };
  const team: Account = { host: 'team.localhost', email: 'ann@team.example', key: annKey };
  return { s, root, team };
}

t.test('credentials only work on their own realm', async (t) => {
  const { s, root, team } = await twoRealms(t);
  const wrong = { result: 'error', msg: 'Account is not associated with this subdomain', code: 'UNAUTHORIZED' };
  t.same((await call(s, { ...team, host: '127.0.0.1' }, 'GET', '/users/me')).body, wrong);
  t.same((await call(s, { ...root, host: 'team.localhost' }, 'GET', '/users/me')).body, wrong);
  t.equal((await call(s, team, 'GET', '/users/me')).body.email, 'ann@team.example');
});

t.test('reads never cross realms', async (t) => {
  const { s, root, team } = await twoRealms(t);
  const teamMessage = await call(s, team, 'GET', '/messages/1');
  t.equal(teamMessage.body.raw_content, 'team-only content');
  const rootMessage = await call(s, root, 'GET', '/messages/1');
  t.not(rootMessage.body.raw_content, 'team-only content', 'the same id in the root realm is a different message');
  const users = (await call(s, team, 'GET', '/users')).body.members as Array<{ email: string }>;
  t.same(users.map((u) => u.email), ['ann@team.example']);
  const streams = (await call(s, team, 'GET', '/streams')).body.streams as Array<{ name: string }>;
  t.same(streams.map((x) => x.name), ['plans']);
  const search = await call(s, root, 'GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'search', operand: 'team-only' }] });
  t.same(search.body.messages, [], 'no search hit from the other realm');
  t.equal((await call(s, root, 'GET', '/users/ann@team.example')).body.msg, 'No such user');
});

t.test('writes and events never cross realms', async (t) => {
  const { s, root, team } = await twoRealms(t);
  const reg = await call(s, team, 'POST', '/register', { event_types: ['message'] });
  const rootQueue = await call(s, root, 'POST', '/register', { event_types: ['message'] });
  t.equal((await call(s, root, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'x', content: 'root news' })).status, 200);
  const teamEvents = await call(s, team, 'GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  t.same(teamEvents.body.events, [], 'no event from the other realm');
  const stolen = await call(s, team, 'GET', '/events', { queue_id: rootQueue.body.queue_id, last_event_id: -1, dont_block: true });
  t.equal(stolen.body.code, 'BAD_EVENT_QUEUE_ID', "another realm's queue is unknown");
  const toRootChannel = await call(s, team, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'x', content: 'y' });
  t.equal(toRootChannel.body.code, 'STREAM_DOES_NOT_EXIST');
  const toRootUser = await call(s, team, 'POST', '/messages', { type: 'direct', to: ['hamlet@zulip.com'], content: 'y' });
  t.same(toRootUser.body, { result: 'error', msg: "Invalid email 'hamlet@zulip.com'", code: 'BAD_REQUEST' });
  const rootStreamsBefore = (await call(s, root, 'GET', '/streams')).body.streams;
  const rootDenmarkBefore = (await call(s, root, 'GET', '/streams/2/members')).body.subscribers;
  const subscribe = await call(s, team, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'Denmark' }] });
  t.same(Object.values(subscribe.body.subscribed), [['Denmark']], "the team gets its own new 'Denmark'");
  t.same((await call(s, root, 'GET', '/streams/2/members')).body.subscribers, rootDenmarkBefore, "the root realm's Denmark is untouched");
  t.same((await call(s, root, 'GET', '/streams')).body.streams, rootStreamsBefore, 'root channel list unchanged');
  t.same(((await call(s, team, 'GET', '/streams')).body.streams as Array<{ name: string }>).map((x) => x.name), ['Denmark', 'plans']);
});
