/**
 * The types that carry the API layer's rules (`api/define-endpoint.ts`), checked by `npm run
 * typecheck` (test/tsconfig.json): each `@ts-expect-error` below must stay an error, or tsc fails.
 * At run time the same route table is checked: the rows `route()` builds, the real route index
 * accepted by the dispatcher, and a handler reading typed path parameters and its user.
 */
import t from 'tap';
import { defineEndpoint, route, type PathParamSpecsOf } from '../../src/api/define-endpoint.js';
import { buildRoutes } from '../../src/api/endpoints.js';
import { createDispatcher, type ApiServices } from '../../src/api/registry.js';
import { P } from '../../src/api/params.js';
import { Errors } from '../../src/errors.js';
import { EventQueueManager } from '../../src/events/event-queues.js';
import type { RealmHandle } from '../../src/realm/realm-handle.js';
import type { User } from '../../src/domain/realm-state.js';

const byId = defineEndpoint({
  auth: 'user',
  pathParams: { message_id: 'int' },
  params: { apply_markdown: P.bool({ default: true }) },
  // `realm` and `user` need no `!`; `path.message_id` is a number, `params` are decoded.
  handler: ({ realm, user, path, params }) => ({ realm: realm.id, user: user.id, id: path.message_id + 0, md: params.apply_markdown }),
});
const byEmail = defineEndpoint({
  auth: 'user',
  pathParams: { email: 'string' },
  params: {},
  handler: ({ path }) => ({ lower: path.email.toLowerCase() }),
});
const open = defineEndpoint({
  auth: 'none',
  params: {},
  handler: ({ realm, user }) => ({ realm: realm?.id ?? null, user }),
});

defineEndpoint({
  auth: 'none',
  params: {},
  // @ts-expect-error -- an unauthenticated endpoint has no user
  handler: ({ user }) => ({ id: user.id }),
});
defineEndpoint({
  auth: 'user',
  params: {},
  // @ts-expect-error -- no placeholder declared, none to read
  handler: ({ path }) => ({ id: path.message_id }),
});

// @ts-expect-error -- the template has a placeholder the endpoint does not declare
route('/messages/{message_id}', { GET: open });
// @ts-expect-error -- the endpoint reads a placeholder the template lacks
route('/messages', { GET: byId });
// @ts-expect-error -- same name, other kind (string vs integer)
route('/messages/{message_id:string}', { GET: byId });
// @ts-expect-error -- not an endpoint
route('/messages', { GET: 42 });
// @ts-expect-error -- not a method
route('/messages/{message_id}', { FETCH: byId });

const sameSpecs: PathParamSpecsOf<'/users/{user_id}/subscriptions/{stream_id}'> = { user_id: 'int', stream_id: 'int' };
const stringSpecs: PathParamSpecsOf<'/users/{email:string}/presence'> = { email: 'string' };

t.test('route(): one row per method, in the order given', async (t) => {
  t.same(
    route('/messages/{message_id}', { GET: byId, DELETE: byId }).map((r) => [r.method, r.path, r.endpoint === byId]),
    [
      ['GET', '/messages/{message_id}', true],
      ['DELETE', '/messages/{message_id}', true],
    ],
  );
  t.same([sameSpecs, stringSpecs], [{ user_id: 'int', stream_id: 'int' }, { email: 'string' }]);
});

const realm = { id: 3 } as RealmHandle;
const iago = { id: 7 } as User;
const services: ApiServices = {
  realmForHost: () => realm,
  authenticate: () => ({ realm, user: iago }),
};

t.test('the handler gets the authenticated user, its realm and typed path parameters', async (t) => {
  const dispatch = createDispatcher(
    [route('/m/{message_id}', { GET: byId }), route('/u/{email:string}', { GET: byEmail }), route('/open', { GET: open })].flat(),
    services,
  );
  const get = (path: string, authorization?: string) =>
    dispatch({ method: 'GET', path: `/api/v1${path}`, query: [], body: [], headers: { host: 'x', ...(authorization && { authorization }) }, remoteAddress: '' });
  const basic = `Basic ${Buffer.from(`iago@zulip.com:${'k'.repeat(32)}`).toString('base64')}`;
  t.same((await get('/m/12', basic)).body, { result: 'success', msg: '', realm: 3, user: 7, id: 12, md: true });
  t.same((await get('/u/Iago%40Zulip.com', basic)).body, { result: 'success', msg: '', lower: 'iago@zulip.com' });
  t.same((await get('/open')).body, { result: 'success', msg: '', realm: 3, user: null }, 'no user for auth: none');
  t.same((await get('/m/12')).body, Errors.notLoggedIn().toBody(), 'auth: user without credentials never reaches the handler');
});

t.test('the route index: every row is accepted by the dispatcher, no method+path twice', async (t) => {
  const queues = new EventQueueManager();
  t.teardown(() => queues.shutdown());
  const routes = buildRoutes({ queues });
  t.doesNotThrow(() => createDispatcher(routes, services), 'placeholders match every endpoint’s pathParams');
  const keys = routes.map((r) => `${r.method} ${r.path}`);
  t.equal(new Set(keys).size, keys.length, 'no duplicate rows');
  t.ok(keys.includes('GET /streams') && keys.includes('GET /streams/{stream_id}'), 'channels listed');
});
