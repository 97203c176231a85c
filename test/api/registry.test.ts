/**
 * The dispatcher (Zulip's zproject/urls.py, Zulip's zerver/lib/typed_endpoint.py `typed_endpoint`,
 * https://zulip.com/api/rest-error-handling, https://zulip.com/api/http-headers): routing, method
 * dispatch, authentication,
 * client names, parameter decoding and the success/error envelope, with fake services.
 */
import t from 'tap';
import Type from 'typebox';
import { createDispatcher, clientNameFromUserAgent, type ApiRequest, type ApiServices } from '../../src/api/registry.js';
import { defineEndpoint, route, type PathParamSpecs, type Route, type UserRequestContext } from '../../src/api/define-endpoint.js';
import { P } from '../../src/api/params.js';
import { Errors, ZulipError } from '../../src/errors.js';
import type { RealmHandle } from '../../src/realm/realm-handle.js';
import type { User } from '../../src/domain/realm-state.js';
import { collectingLogger, replaceLogger } from '../../src/log.js';

const realm = { id: 1, subdomain: '' } as unknown as RealmHandle;
const iago = { id: 7, email: 'iago@zulip.com', apiKey: 'k'.repeat(32) } as unknown as User;
const services: ApiServices = {
  realmForHost: (host) => (host === 'zulip.example' ? realm : null),
  authenticate: (r, email, apiKey) => {
    if (r === null) return Errors.wrongSubdomain();
    if (apiKey !== iago.apiKey) return Errors.invalidApiKey();
    return email === iago.email ? { realm: r, user: iago } : Errors.invalidApiKey();
  },
};

let lastCtx: UserRequestContext<unknown, PathParamSpecs> | null = null;
const record = (ctx: UserRequestContext<unknown, PathParamSpecs>) => {
  lastCtx = ctx;
  return { echo: ctx.params, path: ctx.path };
};

const message = { message_id: 'int' } as const;
const routes: Route[] = [
  route('/messages/{message_id}', {
    GET: defineEndpoint({ auth: 'user', pathParams: message, params: { apply_markdown: P.bool({ default: true }) }, handler: record }),
    PATCH: defineEndpoint({
      auth: 'user',
      pathParams: message,
      dialect: 'typed',
      params: { content: P.string(), topic: P.string({ aliases: ['subject'] }) },
      handler: async (ctx) => record(ctx),
    }),
    DELETE: defineEndpoint({ auth: 'user', pathParams: message, params: {}, handler: record }),
  }),
  route('messages/render', { GET: defineEndpoint({ auth: 'user', params: {}, handler: () => ({ static: true }) }) }),
  route('/users/{email:string}', {
    GET: defineEndpoint({ auth: 'user', pathParams: { email: 'string' }, params: {}, handler: (ctx) => ({ email: ctx.path.email }) }),
  }),
  route('/users/{user_id}', {
    GET: defineEndpoint({ auth: 'user', pathParams: { user_id: 'int' }, params: {}, handler: (ctx) => ({ id: ctx.path.user_id }) }),
  }),
  route('/server_settings', {
    GET: defineEndpoint({
      auth: 'none',
      params: {},
      handler: (ctx) => ({ realm: ctx.realm?.id ?? null, user: ctx.user, client: ctx.clientName }),
    }),
  }),
  route('/register', { POST: defineEndpoint({ auth: 'user', params: { n: P.int({ required: true }) }, handler: record }) }),
  route('/fail', { POST: defineEndpoint({ auth: 'none', params: {}, handler: () => Errors.invalidMessage() }) }),
  route('/throw', {
    POST: defineEndpoint({
      auth: 'none',
      params: {},
      handler: () => {
        throw new Error('secret internals');
      },
    }),
  }),
  route('/reject', { POST: defineEndpoint({ auth: 'none', params: {}, handler: async () => Promise.reject(new TypeError('boom')) }) }),
  route('/throw-zulip', {
    POST: defineEndpoint({
      auth: 'none',
      params: {},
      handler: () => {
        throw Errors.badRequest('thrown on purpose');
      },
    }),
  }),
].flat();

const dispatch = createDispatcher(routes, services);
const basic = `Basic ${Buffer.from(`${iago.email}:${iago.apiKey}`).toString('base64')}`;

const request = (over: Partial<ApiRequest> & { path: string }): ApiRequest => ({
  method: 'GET',
  query: [],
  body: [],
  headers: { host: 'zulip.example', authorization: basic },
  remoteAddress: '127.0.0.1',
  ...over,
});

const notFound = { status: 404, headers: {}, body: { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' } };

t.test('routing: 404 JSON for unknown paths, non-integer segments, outside /api/v1 and /json', async (t) => {
  for (const path of ['/api/v1/nope', '/api/v1/messages/abc', '/api/v1/messages/12/', '/json/nope', '/jsonx/messages/1', '/api/v1', '/api/v1/messages/-1']) {
    t.strictSame(await dispatch(request({ path })), notFound, path);
  }
});

t.test('routing: integer placeholders, static segments, string placeholders', async (t) => {
  let r = await dispatch(request({ path: '/api/v1/messages/42' }));
  t.strictSame(r, { status: 200, body: { result: 'success', msg: '', echo: { apply_markdown: true }, path: { message_id: 42 } } });
  r = await dispatch(request({ path: '/api/v1/messages/render' }));
  t.strictSame(r.body, { result: 'success', msg: '', static: true }, 'static segment');
  r = await dispatch(request({ path: '/api/v1/users/12' }));
  t.strictSame(r.body, { result: 'success', msg: '', id: 12 }, 'integer wins over string');
  r = await dispatch(request({ path: '/api/v1/users/iago%40zulip.com' }));
  t.strictSame(r.body, { result: 'success', msg: '', email: 'iago@zulip.com' }, 'string placeholder URL-decoded');
});

t.test('methods: 405 with allowed_methods and no code, OPTIONS, HEAD, override', async (t) => {
  t.strictSame(await dispatch(request({ method: 'PUT', path: '/api/v1/messages/1' })), {
    status: 405,
    headers: { Allow: 'DELETE, GET, PATCH' },
    body: { result: 'error', msg: 'Method Not Allowed', allowed_methods: ['DELETE', 'GET', 'PATCH'] },
  });
  t.strictSame(await dispatch(request({ method: 'OPTIONS', path: '/api/v1/messages/1', headers: {} })), {
    status: 204,
    headers: { Allow: 'DELETE, GET, PATCH' },
    body: null,
  }, 'OPTIONS needs no auth');
  const head = await dispatch(request({ method: 'HEAD', path: '/api/v1/messages/3' }));
  t.strictSame(head, { status: 200, body: { result: 'success', msg: '', echo: { apply_markdown: true }, path: { message_id: 3 } } });
  t.strictSame((await dispatch(request({ method: 'HEAD', path: '/api/v1/register' }))).status, 405, 'HEAD without GET');

  const patched = await dispatch(
    request({ method: 'POST', path: '/api/v1/messages/5', body: [['method', 'PATCH'], ['subject', 'new']] }),
  );
  t.strictSame(patched, {
    status: 200,
    body: { result: 'success', msg: '', echo: { content: undefined, topic: 'new' }, path: { message_id: 5 } },
  }, 'POST with method=PATCH runs the PATCH handler; method is consumed');
  const viaQuery = await dispatch(request({ method: 'POST', path: '/api/v1/messages/5', query: [['method', 'PATCH']] }));
  t.equal(viaQuery.status, 405, 'the override is read from the form body only');
});

t.test('ignored_parameters_unsupported: absent, present, sorted, deduplicated, body and query', async (t) => {
  let r = await dispatch(request({ path: '/api/v1/messages/1', query: [['apply_markdown', 'false']] }));
  t.notOk(r.body && 'ignored_parameters_unsupported' in r.body, 'absent when all consumed');
  r = await dispatch(
    request({
      method: 'PATCH',
      path: '/api/v1/messages/1',
      body: [['topic', 't'], ['zeta', '1'], ['message_id', '1']],
      query: [['alpha', '2'], ['zeta', '3'], ['client', 'ZulipMobile']],
    }),
  );
  t.strictSame(r.body, {
    result: 'success',
    msg: '',
    echo: { content: undefined, topic: 't' },
    path: { message_id: 1 },
    ignored_parameters_unsupported: ['alpha', 'message_id', 'zeta'],
  });
  t.equal(lastCtx?.clientName, 'ZulipMobile', 'client param names the client and is never ignored');
  r = await dispatch(request({ method: 'POST', path: '/api/v1/fail', body: [['unused', '1']] }));
  t.strictSame(r, {
    status: 400,
    headers: {},
    body: { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' },
  }, 'never on errors');
});

t.test('authentication', async (t) => {
  const path = '/api/v1/messages/1';
  const www = { 'WWW-Authenticate': 'Basic realm="zulip"' };
  t.strictSame(await dispatch(request({ path, headers: { host: 'zulip.example' } })), {
    status: 401,
    headers: www,
    body: { result: 'error', msg: 'Not logged in: API authentication or user session required', code: 'UNAUTHORIZED' },
  });
  t.strictSame(await dispatch(request({ path, headers: { host: 'zulip.example', authorization: 'Basic !!' } })), {
    status: 401,
    headers: www,
    body: { result: 'error', msg: 'Invalid authorization header for basic auth', code: 'UNAUTHORIZED' },
  });
  t.strictSame(await dispatch(request({ path, headers: { host: 'zulip.example', authorization: 'Token abc' } })), {
    status: 400,
    headers: {},
    body: { result: 'error', msg: 'This endpoint requires HTTP basic authentication.', code: 'BAD_REQUEST' },
  });
  const wrongKey = `Basic ${Buffer.from(`${iago.email}:${'x'.repeat(32)}`).toString('base64')}`;
  t.strictSame(await dispatch(request({ path, headers: { host: 'zulip.example', authorization: wrongKey } })), {
    status: 401,
    headers: www,
    body: { result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' },
  });
  t.strictSame((await dispatch(request({ path, headers: { host: 'other.example', authorization: basic } }))).body, {
    result: 'error',
    msg: 'Account is not associated with this subdomain',
    code: 'UNAUTHORIZED',
  }, 'realm from Host passed to authenticate');
  await dispatch(request({ path, headers: { host: 'ZULIP.example', authorization: basic } }));
  t.equal(lastCtx?.user, iago);
  t.equal(lastCtx?.realm, realm, 'Host is lower-cased');
  t.notOk(lastCtx && 'host' in lastCtx, 'no Host in the context: URLs come from configuration');
  t.equal(lastCtx?.remoteAddress, '127.0.0.1');
  t.equal(lastCtx?.scheme, 'http');
});

t.test("auth: 'none' ignores even a bad Authorization header", async (t) => {
  const r = await dispatch(
    request({ path: '/api/v1/server_settings', headers: { host: 'nowhere', authorization: 'Garbage', 'user-agent': 'ZulipPython/0.9.1 (Debian)' } }),
  );
  t.strictSame(r, { status: 200, body: { result: 'success', msg: '', realm: null, user: null, client: 'ZulipPython' } });
});

t.test('client name: param, else User-Agent product token, else Unspecified', async (t) => {
  t.equal(clientNameFromUserAgent('ZulipMobile/27.1 (Android 14)'), 'ZulipMobile');
  t.equal(clientNameFromUserAgent('Mozilla/5.0 (X11; Linux x86_64)'), 'Mozilla');
  t.equal(clientNameFromUserAgent('node-fetch/1.0 (+https://github.com/bitinn/node-fetch)'), 'node-fetch');
  t.equal(clientNameFromUserAgent('ZulipTerminal/0.7.0+git Linux-6.1-x86_64-with-glibc2.36 (Debian GNU/Linux; 12)'), 'ZulipTerminal');
  t.equal(clientNameFromUserAgent('curl'), 'curl');
  t.equal(clientNameFromUserAgent(undefined), 'Unspecified');
  t.equal(clientNameFromUserAgent(''), 'Unspecified');
  const r = await dispatch(request({ path: '/api/v1/server_settings', query: [['client', 'website']] }));
  t.equal(r.body?.client, 'website', 'query client param');
  const r2 = await dispatch(request({ path: '/api/v1/server_settings' }));
  t.equal(r2.body?.client, 'Unspecified');
});

t.test('parameter errors come out as responses', async (t) => {
  t.strictSame(await dispatch(request({ method: 'POST', path: '/api/v1/register' })), {
    status: 400,
    headers: {},
    body: { result: 'error', msg: "Missing 'n' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'n' },
  });
  t.strictSame((await dispatch(request({ method: 'POST', path: '/api/v1/register', body: [['n', 'x']] }))).body, {
    result: 'error',
    msg: 'Argument "n" is not valid JSON.',
    code: 'BAD_REQUEST',
  });
  t.strictSame((await dispatch(request({ method: 'PATCH', path: '/api/v1/messages/1', body: [['topic', 'a'], ['subject', 'b']] }))).body, {
    result: 'error',
    msg: "Can't decide between 'topic' and 'subject' arguments",
    code: 'REQUEST_CONFUSING_VAR',
    var_name1: 'topic',
    var_name2: 'subject',
  });
  t.strictSame((await dispatch(request({ method: 'POST', path: '/api/v1/register', query: [['n', '3']] }))).body, {
    result: 'success',
    msg: '',
    echo: { n: 3 },
    path: {},
  }, 'POST params may come from the query string');
});

t.test('thrown errors: ZulipError → itself; anything else → 500 without internals', async (t) => {
  const errors: Array<Record<string, unknown>> = [];
  const original = replaceLogger(collectingLogger(errors, 'error'));
  try {
    const internal = { status: 500, headers: {}, body: { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' } };
    t.strictSame(await dispatch(request({ method: 'POST', path: '/api/v1/throw' })), internal);
    t.strictSame(await dispatch(request({ method: 'POST', path: '/api/v1/reject' })), internal);
    t.equal(errors.length, 2, 'both logged');
    t.match(errors[0], { msg: 'unhandled error', method: 'POST', path: '/api/v1/throw', err: { stack: String } });
    t.strictSame((await dispatch(request({ method: 'POST', path: '/api/v1/throw-zulip' }))).body, {
      result: 'error',
      msg: 'thrown on purpose',
      code: 'BAD_REQUEST',
    });
  } finally {
    replaceLogger(original);
  }
});

t.test('startup errors: duplicate route, bad template, placeholders unlike pathParams', async (t) => {
  const ep = (path: string, pathParams: PathParamSpecs = {}): Route => ({
    method: 'GET',
    path,
    endpoint: { auth: 'none', pathParams, params: {}, handler: () => ({}) },
  });
  t.throws(() => createDispatcher([ep('/a'), ep('a')], services), /duplicate route/);
  t.throws(() => createDispatcher([ep('/a/{b-c}')], services), /bad path template/);
  t.throws(() => createDispatcher([ep('/a/{id}')], services), /path parameters of GET \/a\/\{id\} do not match/, 'undeclared placeholder');
  t.throws(() => createDispatcher([ep('/a', { id: 'int' })], services), /do not match/, 'declared but absent');
  t.throws(() => createDispatcher([ep('/a/{id}', { id: 'string' })], services), /do not match/, 'other kind');
  t.throws(() => createDispatcher([ep('/a/{id}', { id: 'int', x: 'int' })], services), /do not match/, 'one too many');
  t.doesNotThrow(() => createDispatcher([ep('/a/{id}/{name:string}', { id: 'int', name: 'string' })], services));
  t.throws(() => createDispatcher([ep('/a/{rest:path}/b', { rest: 'path' })], services), /a path placeholder must come last/);
  t.ok(ZulipError);
});

t.test('a {name:path} placeholder takes the rest of the path, raw or percent-encoded slashes alike', async (t) => {
  const seen: string[] = [];
  const own = createDispatcher(
    route('/views/{fragment:path}', {
      GET: defineEndpoint({ auth: 'none', pathParams: { fragment: 'path' }, params: {}, handler: ({ path }) => (seen.push(path.fragment), {}) }),
    }),
    services,
  );
  for (const path of ['/api/v1/views/inbox', '/api/v1/views/narrow/is/alerted', '/api/v1/views/narrow%2Fis%2Fstarred']) t.equal((await own(request({ path }))).status, 200, path);
  t.same(seen, ['inbox', 'narrow/is/alerted', 'narrow/is/starred']);
  t.strictSame(await own(request({ path: '/api/v1/views/' })), notFound, 'an empty rest is no match');
  t.strictSame(await own(request({ path: '/api/v1/views' })), notFound);
});
