/**
 * Consuming a reusable invitation link (https://zulip.com/api/create-invite-link; Zulip's
 * zerver/views/registration.py `accounts_home_from_multiuse_invite`): `GET /join/{key}/`
 * serves the registration page; its form creates the account with the invited role, channels
 * (realm defaults only on request) and groups; malformed, unknown, revoked and expired links are
 * 404 pages; a link is reusable; errors create nothing.
 */
import t from 'tap';
import { startTestServer, DEMO_PASSWORD, type TestServer } from '../support/test-server.js';
import { decide, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { LINK_EXPIRED, emailNotInRealmDomains } from '../../src/realm/handlers/invites.js';

async function join(s: TestServer, link: string, method = 'GET', form?: Record<string, string>) {
  const path = new URL(link).pathname;
  const res = await fetch(`${s.url}${path}`, {
    method,
    redirect: 'manual',
    ...(form && { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }),
  });
  return { status: res.status, type: res.headers.get('content-type'), location: res.headers.get('location'), cookies: res.headers.getSetCookie(), text: await res.text() };
}

t.test('GET/POST /join/{key}/ creates the account with the invite\'s role, channels and groups', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const rome = (await iago.call('GET', '/get_stream_id', { stream: 'Rome' })).body.stream_id as number;
  const group = await iago.call('POST', '/user_groups/create', { name: 'newcomers', description: 'new', members: [] });
  t.equal(group.status, 200);
  const groupId = (await iago.call('GET', '/user_groups')).body.user_groups.find((g: any) => g.name === 'newcomers').id as number;
  const created = await iago.call('POST', '/invites/multiuse', { invite_as: 300, stream_ids: [rome], group_ids: [groupId] });
  t.equal(created.status, 200, JSON.stringify(created.body));
  const link = created.body.invite_link as string;

  const page = await join(s, link);
  t.equal(page.status, 200);
  t.match(page.type, /text\/html/);
  t.match(page.text, /<form method="post"/);

  const missing = await join(s, link, 'POST', { full_name: 'Viola', email: 'viola@zulip.com', password: '' });
  t.equal(missing.status, 400);
  const done = await join(s, link, 'POST', { full_name: 'Viola', email: 'viola@zulip.com', password: 'viola-secret' });
  t.equal(done.status, 302, 'sign-up ends logged in: to the app');
  t.equal(done.location, '/');
  const session = done.cookies.find((c) => c.startsWith('sessionid='));
  t.match(session, /HttpOnly/i, 'with an HttpOnly session cookie');
  t.ok(done.cookies.some((c) => c.startsWith('csrftoken=')), 'and a CSRF token');
  const app = await fetch(`${s.url}/json/users/me`, { headers: { Cookie: session!.split(';')[0]! } });
  t.equal((await app.json()).email, 'viola@zulip.com', 'the session is Viola\'s');

  const login = await s.request('POST', '/fetch_api_key', { params: { username: 'viola@zulip.com', password: 'viola-secret' } });
  t.equal(login.status, 200);
  const viola = await s.as('viola@zulip.com').catch(() => null);
  t.equal(viola, null, 'the demo password does not work for her');
  const auth = 'Basic ' + Buffer.from(`viola@zulip.com:${login.body.api_key}`).toString('base64');
  const me = await (await fetch(`${s.url}/api/v1/users/me`, { headers: { Authorization: auth } })).json();
  t.equal(me.role, 300, 'invited role');
  const subs = await (await fetch(`${s.url}/api/v1/users/me/subscriptions`, { headers: { Authorization: auth } })).json();
  t.same(subs.subscriptions.map((x: any) => x.name), ['Rome'], 'exactly the invite\'s channels, no defaults');
  const groups = (await iago.call('GET', '/user_groups')).body.user_groups;
  t.ok(groups.find((g: any) => g.id === groupId).members.includes(me.user_id), 'added to the invite\'s group');

  const dup = await join(s, link, 'POST', { full_name: 'Viola', email: 'viola@zulip.com', password: 'x' });
  t.equal(dup.status, 400, 'email already in use');
  const weak = await join(s, link, 'POST', { full_name: 'Sebastian', email: 'sebastian@zulip.com', password: 'qwerty123' });
  t.match(weak.text, /The password is too weak\./, 'guessable password refused');
  t.equal((await s.request('POST', '/fetch_api_key', { params: { username: 'sebastian@zulip.com', password: 'qwerty123' } })).status, 401, 'no account after a weak password');
  const again = await join(s, link, 'POST', { full_name: 'Sebastian', email: 'sebastian@zulip.com', password: 'tempest-isle-42' });
  t.equal(again.status, 302, 'a multiuse link is reusable');

  // Defaults on request.
  const withDefaults = await iago.call('POST', '/invites/multiuse', { include_realm_default_subscriptions: true, welcome_message_custom_text: 'Welcome, **friend**!' });
  t.equal((await join(s, withDefaults.body.invite_link, 'POST', { full_name: 'Olivia', email: 'olivia@zulip.com', password: 'tempest-isle-42' })).status, 302);
  const oKey = (await s.request('POST', '/fetch_api_key', { params: { username: 'olivia@zulip.com', password: 'tempest-isle-42' } })).body.api_key;
  const oAuth = { Authorization: 'Basic ' + Buffer.from(`olivia@zulip.com:${oKey}`).toString('base64') };
  const oSubs = await (await fetch(`${s.url}/api/v1/users/me/subscriptions`, { headers: oAuth })).json();
  const defaults = (await iago.call('POST', '/register', { fetch_event_types: ['default_streams'] })).body.realm_default_streams;
  if (Array.isArray(defaults)) {
    t.same(oSubs.subscriptions.map((x: any) => x.stream_id).sort(), defaults.map((d: any) => (typeof d === 'number' ? d : d.stream_id)).sort(), 'realm defaults on request');
  }
  const msgs = await (await fetch(`${s.url}/api/v1/messages?anchor=newest&num_before=5&num_after=0&narrow=${encodeURIComponent('[{"operator":"dm","operand":"welcome-bot@zulip.com"}]')}`, { headers: oAuth })).json();
  t.same(msgs.messages.map((m: any) => m.sender_full_name), ['Welcome Bot', 'Welcome Bot'], 'Welcome Bot: the welcome message, then the custom text');
  t.match(msgs.messages[0]?.content ?? '', /welcome to Zulip/);
  t.match(msgs.messages[1]?.content ?? '', /Welcome, <strong>friend<\/strong>!/, 'the invitation\'s custom text');
  // Welcome Bot is a cross-realm bot: in cross_realm_bots, not in realm_users or GET /users.
  const reg = await (await fetch(`${s.url}/api/v1/register`, { method: 'POST', headers: oAuth })).json();
  t.same(reg.cross_realm_bots.map((b: any) => [b.email, b.is_system_bot]), [['notification-bot@zulip.com', true], ['welcome-bot@zulip.com', true]]);
  t.notOk(reg.realm_users.some((u: any) => u.email === 'welcome-bot@zulip.com'));
  const members = (await iago.call('GET', '/users')).body.members;
  t.notOk(members.some((u: any) => u.email === 'welcome-bot@zulip.com'));
  void DEMO_PASSWORD;

  // Revoked, malformed, unknown.
  const id = (await iago.call('GET', '/invites')).body.invites.find((i: any) => i.link_url === link).id;
  await iago.call('DELETE', `/invites/multiuse/${id}`);
  const revoked = await join(s, link);
  t.equal(revoked.status, 404);
  t.match(revoked.text, /expired or been deactivated/);
  const post = await join(s, link, 'POST', { full_name: 'Late', email: 'late@zulip.com', password: 'tempest-isle-42' });
  t.equal(post.status, 404);
  t.equal((await s.request('POST', '/fetch_api_key', { params: { username: 'late@zulip.com', password: 'tempest-isle-42' } })).status, 401, 'no account');
  t.match((await join(s, `${s.url}/join/short/`)).text, /malformed/);
  t.equal((await join(s, `${s.url}/join/aaaaaaaaaaaaaaaaaaaaaaaa/`)).status, 404);
});

t.test('handler: expiry honoured; defaults only on request', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const inv = run(state, {
    type: 'create_multiuse_invite', actorId: ids.admin, expiresInMinutes: 1, invitedAs: 600, streamIds: [streams.empty], groupIds: [],
    includeRealmDefaultSubscriptions: false, welcomeMessageCustomText: null,
  }, ctx);
  const accept = (email: string) => ({ type: 'accept_multiuse_invite' as const, key: inv.key, email, fullName: 'New Person', passwordHash: 'h', timezone: '' });
  const r = decide(state, accept('new@example.com'), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.records.map((x) => x.type), ['user_created', 'subscriptions_added']);
  t.equal((r.value.records[0] as any).role, 600);
  const late = { now: () => ctx.now() + 61, randomToken: ctx.randomToken };
  const expired = decide(state, accept('later@example.com'), late);
  t.equal(expired.ok ? 'ok' : expired.error.message, LINK_EXPIRED);
});

t.test('handler: an address outside the realm\'s email domains is refused, state unchanged', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const inv = run(state, {
    type: 'create_multiuse_invite', actorId: ids.admin, expiresInMinutes: 60, invitedAs: 400, streamIds: [], groupIds: [],
    includeRealmDefaultSubscriptions: false, welcomeMessageCustomText: null,
  }, ctx);
  run(state, { type: 'add_realm_domain', actorId: ids.admin, domain: 'example.com', allowSubdomains: false }, ctx);
  run(state, { type: 'update_realm', actorId: ids.admin, settings: { emails_restricted_to_domains: true } }, ctx);
  const accept = (email: string) => ({ type: 'accept_multiuse_invite' as const, key: inv.key, email, fullName: 'New Person', passwordHash: 'h', timezone: '' });
  rejects(t, state, accept('someone@elsewhere.org'), ctx, emailNotInRealmDomains('someone@elsewhere.org'));
  t.ok(decide(state, accept('someone@example.com'), ctx).ok, 'an address in the domain joins');
});

t.test('join pages: a malformed %-escape is a 404 page; counted per IP like other unauthenticated calls', async (t) => {
  const s = await startTestServer(t, { rateLimits: true });
  const malformed = await fetch(`${s.url}/join/%ZZ${'a'.repeat(21)}/`);
  t.equal(malformed.status, 404, 'not a 500');
  t.match(await malformed.text(), /malformed/);
  const before = s.server.registry.bySubdomainName('')!.state.users.size;
  let limited: Response | null = null;
  const post = async () => {
    const res = await fetch(`${s.url}/join/${'b'.repeat(24)}/`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'full_name=x&email=x%40x.com&password=pw' });
    await res.text();
    return res;
  };
  // Concurrent batches, so the burst outruns the refill (one call per 0.6 s) even on a slow machine.
  for (let i = 0; i < 30 && limited === null; i++) {
    for (const res of await Promise.all(Array.from({ length: 10 }, post))) if (res.status === 429) limited ??= res;
  }
  t.ok(limited, 'an IP posting sign-ups is eventually refused');
  t.match(limited!.headers.get('content-type'), /text\/html/);
  t.ok(Number(limited!.headers.get('retry-after')) > 0, 'with Retry-After');
  t.equal(limited!.headers.get('x-ratelimit-remaining'), '0');
  t.equal(s.server.registry.bySubdomainName('')!.state.users.size, before, 'no account created');
});
