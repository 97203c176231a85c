/**
 * Request bodies (as Zulip's request parsing reads them): urlencoded, multipart as zulip-js and
 * python-zulip-api send it (incl. the empty body), malformed multipart, oversized bodies, query
 * parsing, and the query+body merge through a real server and the real dispatcher.
 */
import t from 'tap';
import net from 'node:net';
import { parseForm, parseQuery } from '../../src/http/request.js';
import { startHttpServer } from '../../src/http/server.js';
import { createDispatcher, type ApiRequest, type ApiResponse } from '../../src/api/registry.js';
import { defineEndpoint } from '../../src/api/define-endpoint.js';
import { P } from '../../src/api/params.js';
import { ZulipError } from '../../src/errors.js';

const BOUNDARY = '--------------------------cdbc8230e4c4bb37b5a80c21';
const ZULIP_JS_TYPE = `multipart/form-data;boundary=${BOUNDARY}`;
const multipart = (fields: [string, string][], boundary = BOUNDARY) =>
  fields.map(([n, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('') +
  `--${boundary}--\r\n`;

/** Awaits a parse and returns its fields, or the ZulipError wire body it rejected with. */
const parse = async (type: string | undefined, body: string | Buffer) => {
  try {
    return await parseForm(type, Buffer.isBuffer(body) ? body : Buffer.from(body));
  } catch (e) {
    if (e instanceof ZulipError) return { status: e.status, ...e.toBody() };
    throw e;
  }
};

t.test('urlencoded bodies (python-zulip-api)', async (t) => {
  t.strictSame(
    await parse('application/x-www-form-urlencoded', 'type=stream&to=general&topic=acceptance&content=channel+message+%2A%2Abold%2A%2A'),
    [['type', 'stream'], ['to', 'general'], ['topic', 'acceptance'], ['content', 'channel message **bold**']],
  );
  t.strictSame(await parse('application/x-www-form-urlencoded; charset=UTF-8', 'to=%5B%22bob%40example.com%22%5D&x=%C3%A9'), [
    ['to', '["bob@example.com"]'],
    ['x', 'é'],
  ]);
  t.strictSame(await parse('Application/X-WWW-Form-Urlencoded', 'a=1&a=2'), [['a', '1'], ['a', '2']], 'case-insensitive type, repeats kept');
});

t.test('multipart bodies', async (t) => {
  const body = multipart([['type', 'stream'], ['to', 'général'], ['content', 'line 1\r\nline 2']]);
  t.strictSame(await parse(ZULIP_JS_TYPE, body), [['type', 'stream'], ['to', 'général'], ['content', 'line 1\r\nline 2']], "zulip-js: no space before 'boundary='");
  t.strictSame(await parse(`multipart/form-data; boundary=${BOUNDARY}`, body), [['type', 'stream'], ['to', 'général'], ['content', 'line 1\r\nline 2']]);
  t.strictSame(await parse(ZULIP_JS_TYPE, ''), [], 'empty body = zero fields');
  t.strictSame(await parse(ZULIP_JS_TYPE, `--${BOUNDARY}--\r\n`), [], 'closing boundary only');
  const upload =
    `--b05e\r\nContent-Disposition: form-data; name="/home/user/acceptance-o649cdyx.txt"; filename="acceptance-o649cdyx.txt"\r\n\r\n` +
    `hello\r\n--b05e\r\nContent-Disposition: form-data; name="after"\r\n\r\nfile\r\n--b05e--\r\n`;
  t.strictSame(await parse('multipart/form-data; boundary=b05e', upload), [['after', 'file']], 'file parts drained and dropped');
  const long = 'x'.repeat(2 * 1024 * 1024);
  const big = await parse(ZULIP_JS_TYPE, multipart([['content', long]]));
  t.ok(Array.isArray(big) && big[0]![1] === long, 'fields over busboy’s 1 MB default are not truncated');
});

t.test('malformed multipart → 400 BAD_REQUEST', async (t) => {
  t.strictSame(await parse(ZULIP_JS_TYPE, multipart([['a', '1']]).slice(0, 70)), {
    status: 400,
    result: 'error',
    msg: 'Malformed multipart/form-data request body: Unexpected end of form',
    code: 'BAD_REQUEST',
  });
  t.strictSame(await parse('multipart/form-data', multipart([['a', '1']])), {
    status: 400,
    result: 'error',
    msg: 'Malformed multipart/form-data request body: Multipart: Boundary not found',
    code: 'BAD_REQUEST',
  });
});

t.test('other or missing content types: body ignored', async (t) => {
  t.strictSame(await parse('application/json', '{"a":1}'), []);
  t.strictSame(await parse('text/plain', 'a=1'), []);
  t.strictSame(await parse(undefined, 'a=1'), []);
});

t.test('query strings', async (t) => {
  t.strictSame(parseQuery(''), []);
  t.strictSame(parseQuery('queue_id=3383de89%3A0&last_event_id=-1&x=a+b&flag'), [
    ['queue_id', '3383de89:0'],
    ['last_event_id', '-1'],
    ['x', 'a b'],
    ['flag', ''],
  ]);
});

// ---------------------------------------------------------------------------------------------
// Through a real server.

/** Sends raw bytes, resolves with the raw response text once a full response (or EOF) arrived. */
function raw(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const done = () => {
      socket.destroy();
      resolve(data);
    };
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /content-length: (\d+)/i.exec(data.slice(0, end));
      if (m && Buffer.byteLength(data.slice(end + 4)) >= Number(m[1])) done();
    });
    socket.on('end', done);
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? done() : reject(e)));
    socket.write(text);
  });
}

const statusOf = (response: string) => Number(response.split(' ')[1]);
const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

t.test('server: bodies reach the dispatcher; limits', async (t) => {
  const seen: ApiRequest[] = [];
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1000,
    dispatch: (req): ApiResponse => {
      seen.push(req);
      return { status: 200, body: { result: 'success', msg: '', body: req.body, query: req.query } };
    },
  });
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${server.port}/api/v1/register`;

  let r = await fetch(url + '?a=1', {
    method: 'POST',
    headers: { 'content-type': ZULIP_JS_TYPE },
    body: multipart([['event_types', '["message"]']]),
  });
  t.strictSame(await r.json(), { result: 'success', msg: '', body: [['event_types', '["message"]']], query: [['a', '1']] });

  r = await fetch(url, { method: 'POST', headers: { 'content-type': ZULIP_JS_TYPE, 'content-length': '0' } });
  t.strictSame(await r.json(), { result: 'success', msg: '', body: [], query: [] }, 'zulip-js empty multipart POST');

  r = await fetch(url, { method: 'DELETE', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'queue_id=3383de89%3A0' });
  t.strictSame((await r.json()).body, [['queue_id', '3383de89:0']], 'DELETE bodies are parsed');

  r = await fetch(url + '?x=1', { method: 'GET' });
  t.strictSame(await r.json(), { result: 'success', msg: '', body: [], query: [['x', '1']] });

  r = await fetch(url, { method: 'POST', headers: { 'content-type': ZULIP_JS_TYPE }, body: multipart([['a', '1']]).slice(0, 60) });
  t.equal(r.status, 400);
  t.strictSame(await r.json(), {
    result: 'error',
    msg: 'Malformed multipart/form-data request body: Unexpected end of form',
    code: 'BAD_REQUEST',
  });

  const tooLarge = { result: 'error', msg: 'Request body too large (limit: 1000 bytes)', code: 'PAYLOAD_TOO_LARGE' };
  const declared = await raw(
    server.port,
    `POST /api/v1/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000000\r\n\r\na=1`,
  );
  t.equal(statusOf(declared), 413, 'declared Content-Length over the limit');
  t.strictSame(bodyOf(declared), tooLarge);

  const chunk = 'a='.padEnd(600, 'x');
  const streamed = await raw(
    server.port,
    `POST /api/v1/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${chunk.length.toString(16)}\r\n${chunk}\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
  );
  t.equal(statusOf(streamed), 413, 'chunked body crossing the limit');
  t.strictSame(bodyOf(streamed), tooLarge);

  const before = seen.length;
  const exact = 'a='.padEnd(1000, 'y');
  r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: exact });
  t.equal(r.status, 200, 'exactly at the limit is fine');
  t.equal(seen.length, before + 1, 'oversized requests never reached the dispatcher');
});

t.test('server + real dispatcher: body wins over query; unconsumed names reported', async (t) => {
  const dispatch = createDispatcher(
    [
      defineEndpoint({
        method: 'POST',
        path: '/messages',
        auth: 'none',
        params: { to: P.jsonOrString({ required: true }), topic: P.string({ aliases: ['subject'] }) },
        handler: (ctx) => ({ to: ctx.params.to, topic: ctx.params.topic ?? null, client: ctx.clientName }),
      }),
    ],
    { realmForHost: () => null, authenticate: () => new ZulipError('UNAUTHORIZED', 'no', 401) },
  );
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, dispatch });
  t.teardown(() => server.close());
  const r = await fetch(`http://127.0.0.1:${server.port}//api/v1/messages?to=query&dont_block=true`, {
    method: 'POST',
    headers: { 'content-type': ZULIP_JS_TYPE, 'user-agent': 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)' },
    body: multipart([['to', '["bob@example.com"]'], ['subject', 'hi']]),
  });
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'application/json');
  t.equal(r.headers.get('cache-control'), 'no-store, no-cache, must-revalidate, max-age=0');
  t.equal(await r.text(), '{"result":"success","msg":"","to":["bob@example.com"],"topic":"hi","client":"node-fetch","ignored_parameters_unsupported":["dont_block"]}\n');
});
