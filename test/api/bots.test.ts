/**
 * Bots over HTTP (Zulip's zerver/views/users.py `get_bots_backend`, `patch_bot_backend`,
 * `deactivate_bot_backend`, `regenerate_bot_api_key`, `add_bot_backend`; https://zulip.com/api/update-bot):
 * rules and error strings with "state unchanged after error", `realm_bot` events through
 * verifyAction, and the `realm_bots` register state.
 */
import t from 'tap';
import { startTestServer, type Caller, type TestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const bad = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
const success = { result: 'success', msg: '' };
type Json = Record<string, any>;

async function realmBots(caller: Caller): Promise<Json[]> {
  return (await caller.call('POST', '/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots as Json[];
}

function basic(email: string, key: string): Record<string, string> {
  return { Authorization: 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64') };
}

async function defaultBot(s: TestServer, iago: Caller): Promise<Json> {
  void s;
  return (await realmBots(iago)).find((b) => b.email === 'default-bot@zulip.com')!;
}

t.test('GET /bots: the caller\'s own active bots only', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const mine = (await hamlet.call('GET', '/bots')).body;
  t.match(mine, { result: 'success', bots: [{ username: 'default-bot@zulip.com', full_name: 'Zulip Default Bot', api_key: /^[A-Za-z0-9]{32}$/, default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false }] });
  t.equal(mine.bots.length, 1);
  t.same((await iago.call('GET', '/bots')).body.bots, [], 'administrators list only their own bots here');
  const bot = await defaultBot(s, iago);
  t.same((await hamlet.call('DELETE', `/bots/${bot.user_id}`)).body, success);
  t.same((await hamlet.call('GET', '/bots')).body.bots, [], 'deactivated bots are not listed');
});

t.test('PATCH /bots/{bot_id}: access and validation errors change nothing', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const bot = (await defaultBot(s, iago)).user_id as number;
  const before = await realmBots(iago);
  t.same((await hamlet.call('PATCH', '/bots/9999', { full_name: 'X Bot' })).body, bad('No such bot'));
  t.same((await hamlet.call('PATCH', `/bots/${cordelia.userId}`, { full_name: 'X Bot' })).body, bad('No such bot'), 'a human is no bot');
  t.same((await cordelia.call('PATCH', `/bots/${bot}`, { full_name: 'X Bot' })).body, bad('Insufficient permission'));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { full_name: 'x' })).body, bad('Name too short!'));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { full_name: 'King Hamlet' })).body, bad('Name is already in use!'));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { bot_owner_id: 9999 })).body, bad('Failed to change owner, no such user'));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { bot_owner_id: bot })).body, bad("Failed to change owner, bots can't own other bots"));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { default_sending_stream: 'nowhere' })).body, bad("Invalid channel name 'nowhere'"));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { role: 200 })).body, bad('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { service_payload_url: '"http://127.0.0.1:1/"' })).body, bad('This bot has no outgoing webhook service'));
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { full_name: 'Fine Bot', default_events_register_stream: 'nowhere' })).body, bad("Invalid channel name 'nowhere'"), 'one bad value fails all');
  t.same(await realmBots(iago), before, 'state unchanged after errors');
});

t.test('PATCH /bots/{bot_id}: name, defaults and owner, with events', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const bot = (await defaultBot(s, iago)).user_id as number;

  const renamed = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', `/bots/${bot}`, { full_name: 'Helpful Bot', default_sending_stream: 'Verona', default_all_public_streams: true }),
    stateChangeExpected: true,
  });
  t.match(renamed.actionResult.body, { result: 'success', full_name: 'Helpful Bot', default_sending_stream: 'Verona', default_events_register_stream: null, default_all_public_streams: true, bot_owner: 'hamlet@zulip.com' });
  t.same(renamed.events.map((e) => [e.type, e.person ?? e.bot]), [
    ['realm_user', { user_id: bot, full_name: 'Helpful Bot' }],
    ['realm_bot', { user_id: bot, full_name: 'Helpful Bot' }],
    ['realm_bot', { user_id: bot, default_sending_stream: 'Verona' }],
    ['realm_bot', { user_id: bot, default_all_public_streams: true }],
  ]);
  t.match((await hamlet.call('GET', '/bots')).body.bots, [{ full_name: 'Helpful Bot', default_sending_stream: 'Verona', default_all_public_streams: true }]);
  // '' clears a default channel.
  const cleared = await verifyAction(t, s, iago, { action: () => hamlet.call('PATCH', `/bots/${bot}`, { default_sending_stream: '' }), numEvents: 1, stateChangeExpected: true });
  t.same(cleared.events[0]!.bot, { user_id: bot, default_sending_stream: null });

  // Owner change: the old owner (not an administrator) gets delete, the new owner add, admins update.
  const toOld = await verifyAction(t, s, hamlet, { action: () => hamlet.call('PATCH', `/bots/${bot}`, { bot_owner_id: othello.userId }), stateChangeExpected: true });
  t.same(toOld.events.map((e) => [e.type, e.op]), [['realm_bot', 'delete'], ['realm_user', 'update']]);
  t.same(toOld.after.realm_bots, []);
  t.same((await hamlet.call('PATCH', `/bots/${bot}`, { full_name: 'Mine Again' })).body, bad('Insufficient permission'), 'the old owner lost access');
  const toAdmin = await verifyAction(t, s, iago, { action: () => othello.call('PATCH', `/bots/${bot}`, { bot_owner_id: hamlet.userId }), stateChangeExpected: true });
  t.same(toAdmin.events.map((e) => [e.type, e.op, e.bot ?? e.person]), [
    ['realm_bot', 'update', { user_id: bot, owner_id: hamlet.userId }],
    ['realm_user', 'update', { user_id: bot, bot_owner_id: hamlet.userId }],
  ]);
  const toNew = await verifyAction(t, s, othello, { action: () => iago.call('PATCH', `/bots/${bot}`, { bot_owner_id: othello.userId }), stateChangeExpected: true });
  t.match(toNew.events[0], { type: 'realm_bot', op: 'add', bot: { user_id: bot, owner_id: othello.userId, full_name: 'Helpful Bot' } });
});

t.test('DELETE /bots/{bot_id} and POST /bots/{bot_id}/api_key/regenerate', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const botInfo = await defaultBot(s, iago);
  const bot = botInfo.user_id as number;
  const oldKey = botInfo.api_key as string;

  t.same((await cordelia.call('POST', `/bots/${bot}/api_key/regenerate`)).body, bad('Insufficient permission'));
  t.same((await hamlet.call('POST', `/bots/${hamlet.userId}/api_key/regenerate`)).body, bad('No such bot'));
  t.equal((await defaultBot(s, iago)).api_key, oldKey, 'key unchanged after errors');
  const rekeyed = await verifyAction(t, s, iago, { action: () => hamlet.call('POST', `/bots/${bot}/api_key/regenerate`), numEvents: 1, stateChangeExpected: true });
  const newKey = rekeyed.actionResult.body.api_key as string;
  t.match(newKey, /^[A-Za-z0-9]{32}$/);
  t.not(newKey, oldKey);
  t.same(rekeyed.events[0]!.bot, { user_id: bot, api_key: newKey });
  t.equal((await s.request('GET', '/users/me', { headers: basic('default-bot@zulip.com', oldKey) })).status, 401, 'the old key no longer works');
  t.equal((await s.request('GET', '/users/me', { headers: basic('default-bot@zulip.com', newKey) })).body.user_id, bot);
  t.same((await hamlet.call('GET', `/bots/${bot}/api_key`)).body, { ...success, api_key: newKey }, 'GET /bots/{id}/api_key: the current key, for the owner');
  t.equal((await iago.call('GET', `/bots/${bot}/api_key`)).body.api_key, newKey, 'and for an administrator');
  t.same((await cordelia.call('GET', `/bots/${bot}/api_key`)).body, bad('Insufficient permission'));
  t.same((await hamlet.call('GET', `/bots/${hamlet.userId}/api_key`)).body, bad('No such bot'));

  t.same((await cordelia.call('DELETE', `/bots/${bot}`)).body, bad('Insufficient permission'));
  t.same((await iago.call('DELETE', `/bots/${cordelia.userId}`)).body, bad('No such bot'));
  const off = await verifyAction(t, s, hamlet, { action: () => hamlet.call('DELETE', `/bots/${bot}`), stateChangeExpected: true });
  t.same(off.actionResult.body, success);
  t.match(off.events.filter((e) => e.type === 'realm_bot'), [{ op: 'update', bot: { user_id: bot, is_active: false } }]);
  t.match(off.after.realm_bots, [{ user_id: bot, is_active: false }]);
  t.same((await hamlet.call('DELETE', `/bots/${bot}`)).body, success, 'deactivating again is a no-op');
  t.equal((await s.request('GET', '/users/me', { headers: basic('default-bot@zulip.com', newKey) })).status, 401);
});

t.test('POST /bots: webhook bot types, services and default channels', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const before = await realmBots(iago);
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Out Bot', short_name: 'out', bot_type: 3 })).body, bad('payload_url is not a URL'));
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Out Bot', short_name: 'out', bot_type: 3, payload_url: '"ftp://x/"' })).body, bad('payload_url is not a URL'));
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Out Bot', short_name: 'out', bot_type: 3, payload_url: '"http://x/"', interface_type: 7 })).body, bad('Invalid interface type'));
  t.same((await hamlet.call('POST', '/bots', { full_name: 'Emb Bot', short_name: 'emb', bot_type: 4 })).body, bad('Invalid bot type'));
  t.same((await hamlet.call('POST', '/bots', { full_name: 'In Bot', short_name: 'in', bot_type: 2, default_sending_stream: 'nowhere' })).body, bad("Invalid channel name 'nowhere'"));
  t.same(await realmBots(iago), before, 'state unchanged after errors');

  const out = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/bots', { full_name: 'Out Bot', short_name: 'out', bot_type: 3, payload_url: '"http://127.0.0.1:9/hook"', default_sending_stream: 'Verona' }),
    stateChangeExpected: true,
  });
  t.match(out.actionResult.body, { result: 'success', default_sending_stream: 'Verona' });
  const added = out.events.find((e) => e.type === 'realm_bot')!;
  t.match(added.bot, { bot_type: 3, default_sending_stream: 'Verona', services: [{ base_url: 'http://127.0.0.1:9/hook', interface: 1, token: /^[A-Za-z0-9]{32}$/ }] });
  const outId = out.actionResult.body.user_id as number;
  const moved = await verifyAction(t, s, iago, {
    action: () => hamlet.call('PATCH', `/bots/${outId}`, { service_payload_url: '"http://127.0.0.1:9/other"', service_interface: 2 }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.match(moved.actionResult.body, { service_payload_url: 'http://127.0.0.1:9/other', service_interface: 2 });
  t.match(moved.events[0]!.bot, { user_id: outId, services: [{ base_url: 'http://127.0.0.1:9/other', interface: 2, token: added.bot.services[0].token }] });

  const incoming = await hamlet.call('POST', '/bots', { full_name: 'In Bot', short_name: 'in', bot_type: 2 });
  t.match(incoming.body, { result: 'success', user_id: Number });
  t.match((await realmBots(hamlet)).find((b) => b.user_id === incoming.body.user_id), { bot_type: 2, services: [] });
});
