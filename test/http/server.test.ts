/**
 * The uWS server with fake dispatchers: port 0, paths, error mapping, HEAD/204, the bench
 * ceiling, clients that abort mid-body, and close() semantics.
 */
import t, { type Test } from 'tap';
import net from 'node:net';
import { startHttpServer, type HttpServerOptions } from '../../src/http/server.js';
import type { ApiRequest, ApiResponse } from '../../src/api/registry.js';
import { Errors } from '../../src/errors.js';
import { collectingLogger, replaceLogger } from '../../src/log.js';

const ok = (extra: Record<string, unknown> = {}): ApiResponse => ({ status: 200, body: { result: 'success', msg: '', ...extra } });

async function start(t: Test, dispatch: HttpServerOptions['dispatch'], extra: Partial<HttpServerOptions> = {}) {
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, dispatch, ...extra });
  t.teardown(() => server.close());
  return { server, base: `http://127.0.0.1:${server.port}` };
}

/**
 * Sends each request on one keep-alive connection, waiting `gapMs` after each one (uWS does not
 * answer pipelined requests whose responses are asynchronous), and returns everything received.
 */
function sequential(port: number, requests: string[], gapMs = 100): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (c) => (data += c.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(data));
    let i = 0;
    const next = () => {
      if (i === requests.length) return socket.destroy();
      socket.write(requests[i++]!);
      setTimeout(next, gapMs);
    };
    socket.on('connect', next);
  });
}

/** Captures the server's error log lines (pino, `src/log.ts`) for the test's duration. */
const silenceErrors = (t: Test) => {
  const logged: Array<Record<string, unknown>> = [];
  const original = replaceLogger(collectingLogger(logged, 'error'));
  t.teardown(() => {
    replaceLogger(original);
  });
  return logged;
};

t.test('port 0 picks a real port; request fields reach the dispatcher', async (t) => {
  let seen: ApiRequest | null = null;
  const { server, base } = await start(t, (req) => {
    seen = req;
    return ok();
  });
  t.ok(server.port > 0 && server.port < 65536, `port ${server.port}`);
  const r = await fetch(`${base}//api/v1//users/me?x=1&y=%20`, { headers: { 'X-Custom': 'A', Authorization: 'Basic abc' } });
  t.equal(r.status, 200);
  t.equal(await r.text(), '{"result":"success","msg":""}\n');
  const req = seen as unknown as ApiRequest;
  t.equal(req.method, 'GET');
  t.equal(req.path, '/api/v1/users/me', 'duplicate slashes collapsed');
  t.strictSame(req.query, [['x', '1'], ['y', ' ']]);
  t.strictSame(req.body, []);
  t.equal(req.headers['x-custom'], 'A', 'header names lower-cased');
  t.equal(req.headers.authorization, 'Basic abc');
  t.equal(req.remoteAddress, '127.0.0.1');
});

t.test('outside /api/v1/ and /json/ → JSON 404 without dispatching', async (t) => {
  let calls = 0;
  const { base } = await start(t, () => {
    calls++;
    return ok();
  });
  for (const path of ['/', '/jsonx', '/api/v1', '/static/x.js']) {
    const r = await fetch(base + path, { method: 'POST', body: 'a=1' });
    t.equal(r.status, 404, path);
    t.equal(r.headers.get('content-type'), 'application/json');
    t.strictSame(await r.json(), { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });
  }
  t.equal(calls, 0);
  t.equal((await fetch(base + '/json/messages', { method: 'POST', body: 'a=1' })).status, 200, '/json/ is dispatched');
  t.equal(calls, 1);
});

t.test('dispatch failures: ZulipError as is, anything else → 500 logged, no internals', async (t) => {
  const logged = silenceErrors(t);
  const { base } = await start(t, (req) => {
    if (req.path.endsWith('/throw')) throw new Error('secret detail');
    if (req.path.endsWith('/reject')) return Promise.reject(new TypeError('secret detail'));
    if (req.path.endsWith('/zulip')) throw Errors.invalidApiKey();
    if (req.path.endsWith('/cycle')) {
      const body: Record<string, unknown> = { result: 'success', msg: '' };
      body.self = body;
      return { status: 200, body };
    }
    return ok();
  });
  for (const p of ['throw', 'reject', 'cycle']) {
    const r = await fetch(`${base}/api/v1/${p}`);
    t.equal(r.status, 500, p);
    const text = await r.text();
    t.equal(text, '{"result":"error","msg":"Internal server error","code":"INTERNAL_SERVER_ERROR"}\n', p);
  }
  t.equal(logged.length, 3, 'each logged');
  t.match(logged[0], { level: 50, msg: 'unhandled error', method: 'GET', path: '/api/v1/throw', err: { type: 'Error', stack: String } }, 'with the stack');
  const r = await fetch(`${base}/api/v1/zulip`);
  t.equal(r.status, 401);
  t.equal(r.headers.get('www-authenticate'), 'Basic realm="zulip"');
  t.strictSame(await r.json(), { result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });
});

t.test('HEAD sends headers and Content-Length without a body; 204 has no body', async (t) => {
  const { server } = await start(t, (req) =>
    req.path.endsWith('/options') ? { status: 204, headers: { Allow: 'GET, POST' }, body: null } : ok({ x: 1 }),
  );
  const text = await sequential(server.port, [
    'HEAD /api/v1/x HTTP/1.1\r\nHost: h\r\n\r\n',
    'OPTIONS /api/v1/options HTTP/1.1\r\nHost: h\r\n\r\n',
    'GET /api/v1/x HTTP/1.1\r\nHost: h\r\n\r\n',
  ]);
  const responses = text.split(/(?=HTTP\/1\.1 )/);
  t.equal(responses.length, 3, 'all three answered on one keep-alive connection');
  t.match(responses[0], /^HTTP\/1\.1 200 OK\r\n/);
  t.match(responses[0], /Content-Length: 36\r\n/);
  t.ok(responses[0]!.endsWith('\r\n\r\n'), 'no body after HEAD headers');
  t.match(responses[1], /^HTTP\/1\.1 204 No Content\r\n/);
  t.match(responses[1], /Allow: GET, POST\r\n/);
  t.notMatch(responses[1], /Content-Type/);
  t.ok(responses[1]!.endsWith('\r\n\r\n'));
  t.ok(responses[2]!.endsWith('\r\n\r\n{"result":"success","msg":"","x":1}\n'));
});

t.test('bench ceiling: answered by uWS when enabled, a normal 404 otherwise', async (t) => {
  let calls = 0;
  const dispatch = () => {
    calls++;
    return { status: 404, body: Errors.notFound().toBody() };
  };
  const on = await start(t, dispatch, { benchCeiling: true });
  let r = await fetch(`${on.base}/api/v1/bench/ceiling`);
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'application/json');
  t.equal(await r.text(), '{"result":"success","msg":""}\n');
  t.equal(calls, 0, 'not dispatched');
  const off = await start(t, dispatch);
  r = await fetch(`${off.base}/api/v1/bench/ceiling`);
  t.equal(r.status, 404);
  t.equal(calls, 1);
});

t.test('a client that aborts mid-body: no dispatch, no crash, next request answered', async (t) => {
  let calls = 0;
  const { server, base } = await start(t, () => {
    calls++;
    return ok();
  });
  await new Promise<void>((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1', () => {
      socket.write('POST /api/v1/messages HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ncontent=half');
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 50);
    });
  });
  await new Promise((r) => setTimeout(r, 50));
  const r = await fetch(`${base}/api/v1/messages`, { method: 'POST', body: 'a=1' });
  t.equal(r.status, 200);
  t.equal(calls, 1, 'only the complete request was dispatched');
});

t.test('a client that aborts while the dispatcher works: the late reply is dropped', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let finished = false;
  const { server, base } = await start(t, async (req) => {
    if (req.path.endsWith('/slow')) {
      await gate;
      finished = true;
    }
    return ok();
  });
  const controller = new AbortController();
  const pending = fetch(`${base}/api/v1/slow`, { signal: controller.signal }).catch((e: Error) => e.name);
  await new Promise((r) => setTimeout(r, 50));
  controller.abort();
  t.equal(await pending, 'AbortError');
  await new Promise((r) => setTimeout(r, 50));
  release();
  await new Promise((r) => setTimeout(r, 20));
  t.ok(finished, 'dispatcher completed after the abort');
  const r = await fetch(`${base}/api/v1/fast`);
  t.equal(r.status, 200, 'server still up');
  await server.close();
});

t.test('close(): stops accepting, waits for in-flight requests, then resolves', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    dispatch: async (req) => {
      if (req.path.endsWith('/slow')) await gate;
      return ok({ path: req.path });
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  const slow = fetch(`${base}/api/v1/slow`).then((r) => r.json());
  await new Promise((r) => setTimeout(r, 50));
  let closed = false;
  const closing = server.close().then(() => (closed = true));
  t.equal(server.close(), server.close(), 'idempotent');
  await new Promise((r) => setTimeout(r, 50));
  t.notOk(closed, 'still waiting for the in-flight request');
  const refused = await fetch(`${base}/api/v1/other`, { headers: { connection: 'close' } }).then(
    () => 'answered',
    () => 'refused',
  );
  t.equal(refused, 'refused', 'no new connections');
  release();
  t.strictSame(await slow, { result: 'success', msg: '', path: '/api/v1/slow' }, 'in-flight request answered');
  await closing;
  t.ok(closed);
});

t.test('close() with idle keep-alive connections resolves promptly', async (t) => {
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, dispatch: () => ok() });
  const r = await fetch(`http://127.0.0.1:${server.port}/api/v1/x`);
  await r.text();
  const started = Date.now();
  await server.close();
  t.ok(Date.now() - started < 1000, 'did not wait for the idle connection to time out');
});

t.test('listening on a taken port rejects', async (t) => {
  const { server } = await start(t, () => ok());
  await t.rejects(startHttpServer({ host: '127.0.0.1', port: server.port, dispatch: () => ok() }), /cannot listen/);
});
