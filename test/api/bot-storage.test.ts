/**
 * Bot storage (Zulip's zerver/views/storage.py): a bot puts, reads and removes its own string
 * entries; another user's storage is separate; missing keys, non-string values and the size limit
 * answer Zulip's errors with nothing changed; entries survive a snapshot.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { BOT_STORAGE_LIMIT_CHARS, botStorageOf } from '../../src/domain/bot-storage.js';

t.test('a bot stores, reads and removes its entries over HTTP', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const created = (await hamlet.call('POST', '/bots', { full_name: 'Keeper Bot', short_name: 'keeper' })).body;
  const email = (await iago.call('GET', `/users/${created.user_id}`)).body.user.delivery_email as string;
  const auth = { Authorization: 'Basic ' + Buffer.from(`${email}:${created.api_key}`).toString('base64') };
  const bot = (method: string, params: Record<string, unknown> = {}) => s.request(method, '/bot_storage', { params, headers: auth });

  t.same((await bot('GET')).body, { result: 'success', msg: '', storage: {} });
  t.equal((await bot('PUT', { storage: { score: '3', name: 'Keeper' } })).status, 200);
  t.equal((await bot('PUT', { storage: { score: '4' } })).status, 200, 'overwrites');
  t.same((await bot('GET')).body.storage, { score: '4', name: 'Keeper' });
  t.same((await bot('GET', { keys: ['name'] })).body.storage, { name: 'Keeper' });
  t.same((await hamlet.call('GET', '/bot_storage')).body.storage, {}, "each user's storage is their own");

  const missing = { result: 'error', msg: 'Key does not exist.', code: 'BAD_REQUEST' };
  t.same((await bot('GET', { keys: ['name', 'nope'] })).body, missing);
  t.same((await bot('DELETE', { keys: ['name', 'nope'] })).body, missing, 'all keys must exist');
  t.same((await bot('GET')).body.storage, { score: '4', name: 'Keeper' }, 'nothing removed after the error');
  t.equal((await bot('PUT', { storage: { n: 5 } })).status, 400, 'values are strings');
  t.equal((await bot('PUT', { storage: '["a"]' })).status, 400, 'storage is an object');

  t.equal((await bot('DELETE', { keys: ['name'] })).status, 200);
  t.same((await bot('GET')).body.storage, { score: '4' });
  t.equal((await bot('DELETE')).status, 200, 'no keys: everything');
  t.same((await bot('GET')).body.storage, {});
});

t.test('handler: size limit, replay, snapshot', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, { type: 'put_bot_storage', actorId: ids.member, entries: [['k', 'v']] }, ctx);
  const big = 'x'.repeat(BOT_STORAGE_LIMIT_CHARS - 2);
  rejects(t, state, { type: 'put_bot_storage', actorId: ids.member, entries: [['b', big]] }, ctx,
    `Request exceeds storage limit by 1 characters. The limit is ${BOT_STORAGE_LIMIT_CHARS} characters.`);
  run(state, { type: 'put_bot_storage', actorId: ids.member, entries: [['k', big.slice(1)]] }, ctx);
  t.equal(botStorageOf(state, ids.member).get('k')!.length, BOT_STORAGE_LIMIT_CHARS - 3, 'replacing a value counts the new size only');
  rejects(t, state, { type: 'remove_bot_storage', actorId: ids.member, keys: ['zz'] }, ctx, 'Key does not exist.');
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(state.id, structuredClone(core), columns);
  t.equal(fingerprint(copy), fingerprint(state));
  t.equal(botStorageOf(copy, ids.member).get('k'), big.slice(1));
});
