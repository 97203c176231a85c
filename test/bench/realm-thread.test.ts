/**
 * bench/realm-thread.ts, the probe's parley on a worker thread: requests built here reach a real
 * realm there and come back with their real answers (bodies nested under "result"); an error is
 * still a Zulip error; a send is durable on the worker's store (read back after more sends).
 */
import t from 'tap';
import type { ApiRequest, ApiResponse } from '../../src/api/registry.js';
import { encodeBody } from '../../src/api/raw-json.js';
import { startRealmThread } from '../../bench/realm-thread.js';

const request = (method: string, path: string, body: Array<[string, string]>, auth?: string): ApiRequest => ({
  method,
  path: `/api/v1${path}`,
  query: [],
  body,
  headers: { host: '127.0.0.1', ...(auth !== undefined && { authorization: auth }) },
  remoteAddress: '127.0.0.1',
});

/** The worker's body, unnested. */
const bodyOf = (r: ApiResponse): Record<string, unknown> => (JSON.parse(encodeBody(r.body!).toString()) as { result: Record<string, unknown> }).result;

t.test('a parley on a worker thread answers real requests', async (t) => {
  const thread = await startRealmThread();
  t.teardown(() => thread.stop());

  const denied = await thread.dispatch(request('POST', '/fetch_api_key', [['username', 'hamlet@zulip.com'], ['password', 'not the password']]));
  t.equal(denied.status, 401, 'a wrong password is refused');
  t.match(bodyOf(denied), { result: 'error', code: 'AUTHENTICATION_FAILED' });

  const login = await thread.dispatch(request('POST', '/fetch_api_key', [['username', 'hamlet@zulip.com'], ['password', 'bench']]));
  t.equal(login.status, 200);
  const key = bodyOf(login).api_key as string;
  t.match(key, /^\w{32}$/);
  const auth = `Basic ${Buffer.from(`hamlet@zulip.com:${key}`).toString('base64')}`;

  // Several sends in one turn: one batch to the worker, each answered with its own id.
  const contents = ['first', 'second', 'third'];
  const sent = await Promise.all(
    contents.map((content) => thread.dispatch(request('POST', '/messages', [['type', 'stream'], ['to', 'Verona'], ['topic', 'thread probe'], ['content', content]], auth))),
  );
  const ids = sent.map((r) => bodyOf(r).id as number);
  t.same(sent.map((r) => r.status), [200, 200, 200]);
  t.equal(new Set(ids).size, 3, 'three distinct message ids');

  for (const [i, id] of ids.entries()) {
    const read = await thread.dispatch(request('GET', `/messages/${id}`, [], auth));
    t.equal(read.status, 200);
    t.match(bodyOf(read), { result: 'success', raw_content: contents[i] }, `message ${id} reads back`);
  }
  const missing = await thread.dispatch(request('GET', '/messages/999999', [], auth));
  t.equal(missing.status, 400, 'an unknown message is a Zulip error');
  t.match(bodyOf(missing), { result: 'error', code: 'BAD_REQUEST' });
});
