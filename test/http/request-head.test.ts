/**
 * Request heads up to 16 KiB (http/uws-env.ts sets uWS's UWS_HTTP_MAX_HEADERS_SIZE before the
 * native module loads), and malformed requests that reach parley answered with JSON errors.
 * Raw bytes over a TCP socket, against the real server (demo organization).
 */
import t from 'tap';
import net from 'node:net';
import { startTestServer } from '../support/test-server.js';
import { MAX_REQUEST_HEAD_BYTES } from '../../src/http/uws-env.js';

/** One raw request on a fresh connection; resolves with status, headers and body text. */
function raw(port: number, request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 20 s')), 20_000);
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split < 0 ? text.length : split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: split < 0 ? '' : text.slice(split + 4) });
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One answer is enough: stop at the end of a Content-Length body.
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /content-length: *(\d+)/i.exec(text);
      const split = text.indexOf('\r\n\r\n');
      if (m && split >= 0 && Buffer.byteLength(text.slice(split + 4)) >= Number(m[1])) socket.end();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (chunks.length > 0) finish();
      else reject(error);
    });
    socket.write(request);
  });
}

const auth = (email: string, key: string) => 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64');

t.test('the limit is 16 KiB unless the environment says otherwise', async (t) => {
  t.equal(MAX_REQUEST_HEAD_BYTES, 16384);
  t.equal(process.env.UWS_HTTP_MAX_HEADERS_SIZE, '16384', 'set before uWebSockets.js loaded');
});

t.test('a GET with a ~12 KiB query string (a long search narrow) is answered', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const words = Array.from({ length: 2300 }, (_, i) => `w${i}`).join(' ');
  const narrow = JSON.stringify([{ operator: 'search', operand: words }]);
  const query = new URLSearchParams({ anchor: 'newest', num_before: '10', num_after: '0', narrow }).toString();
  t.ok(query.length > 11 * 1024 && query.length < 13 * 1024, `query string is ${query.length} bytes`);
  const reply = await raw(s.server.port, `GET /api/v1/messages?${query} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth(hamlet.email, hamlet.apiKey)}\r\nConnection: close\r\n\r\n`);
  t.equal(reply.status, 200, 'not 431');
  t.match(JSON.parse(reply.body), { result: 'success', messages: [], found_newest: true });

  const tooBig = await raw(s.server.port, `GET /api/v1/server_settings?x=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  t.equal(tooBig.status, 431, 'a 20 KiB head is over the limit (uWS answers it before parley sees it)');
});

t.test('malformed requests that reach parley get JSON errors', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const authz = `Authorization: ${auth(hamlet.email, hamlet.apiKey)}\r\n`;
  const head = (line: string, extra = '') => `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n`;
  const cases: Array<[string, string | Buffer, number]> = [
    ['multipart without a boundary', head('POST /api/v1/messages', `${authz}Content-Type: multipart/form-data\r\nContent-Length: 5\r\n`) + '\r\nhello', 400],
    ['truncated multipart', head('POST /api/v1/messages', `${authz}Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 18\r\n`) + '\r\n--XX\r\nContent-Disp', 400],
    ['bad percent escapes in the query', head('GET /api/v1/messages?anchor=%ZZ&num_before=%E0%A4&num_after=1', authz) + '\r\n', 400],
    ['invalid UTF-8 in a form body', Buffer.concat([Buffer.from(head('POST /api/v1/messages/render', `${authz}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n`) + '\r\n'), Buffer.from([0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x3d, 0xff, 0xfe])]), 200],
    ['garbage Authorization', head('GET /api/v1/users/me', 'Authorization: Basic !!!not-base64!!!\r\n') + '\r\n', 401],
    ['a NUL byte in a path segment (a user email)', head('GET /api/v1/users/%00me', authz) + '\r\n', 400],
    ['an unknown method', head('BREW /api/v1/users/me', authz) + '\r\n', 405],
    ['a declared body over the limit', head('POST /api/v1/messages', `${authz}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${6 * 1024 * 1024}\r\n`) + '\r\n', 413],
    ['a JSON narrow that is not JSON', head(`GET /api/v1/messages?anchor=newest&num_before=1&num_after=0&narrow=${encodeURIComponent('[{')}`, authz) + '\r\n', 400],
  ];
  for (const [name, request, status] of cases) {
    const reply = await raw(s.server.port, request);
    t.equal(reply.status, status, `${name}: ${status}`, { body: reply.body });
    t.equal(reply.headers['content-type'], 'application/json', `${name}: JSON`);
    let body: { result?: string } = {};
    try {
      body = JSON.parse(reply.body);
    } catch {
      t.fail(`${name}: body is not JSON: ${reply.body.slice(0, 100)}`);
    }
    t.equal(body.result, status === 200 ? 'success' : 'error', `${name}: a Zulip envelope`);
  }
});
