/**
 * The outgoing webhook HTTP client (http/webhook-client.ts) against real loopback servers: the
 * camo proxy's address rule (loopback refused without the test hook, also through a name that
 * resolves to it), the time limit, the bounded answer, and Python's bytes repr used in owner notices.
 */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../src/http/webhook-client.js';
import { pythonBytesRepr, replyFromAnswer } from '../../src/api/outgoing-webhook-messages.js';

const base = { body: '{}', contentType: 'application/json', timeoutMs: 2000, maxBytes: 8, allowLoopback: true };

t.test('postWebhook', async (t) => {
  let hang = false;
  const server = createServer((req, res) => {
    if (hang) return; // never answers
    req.resume();
    res.end('0123456789abcdef');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  const answer = await postWebhook(`http://127.0.0.1:${port}/`, base);
  t.same(answer, { kind: 'response', status: 200, body: Buffer.from('01234567') }, 'answer cut at maxBytes');
  t.same(await postWebhook(`http://127.0.0.1:${port}/`, { ...base, allowLoopback: false }), { kind: 'refused' });
  t.same(await postWebhook(`http://localhost:${port}/`, { ...base, allowLoopback: false }), { kind: 'refused' }, 'checked after DNS too');
  t.same(await postWebhook('http://10.0.0.1/', { ...base, allowLoopback: true }), { kind: 'refused' }, 'private ranges stay refused');
  t.match(await postWebhook('ftp://127.0.0.1/', base), { kind: 'connection_error' });
  hang = true;
  t.same(await postWebhook(`http://127.0.0.1:${port}/`, { ...base, timeoutMs: 200 }), { kind: 'timeout' });
  server.close();
  server.closeAllConnections();
  t.match(await postWebhook(`http://127.0.0.1:${port}/`, base), { kind: 'connection_error', message: /ECONNREFUSED/ });
});

t.test('answers and notices', async (t) => {
  t.equal(pythonBytesRepr(Buffer.from('oops')), "b'oops'");
  t.equal(pythonBytesRepr(Buffer.from("it's\n")), `b"it's\\n"`);
  t.equal(pythonBytesRepr(Buffer.from([0xff, 0x27, 0x22])), `b'\\xff\\'"'`);
  const generic = { name: 'x', baseUrl: 'http://x/', interface: 1, token: 't' };
  const slack = { ...generic, interface: 2 };
  t.same(replyFromAnswer(generic, '{"content": "hi"}'), { content: 'hi' });
  t.same(replyFromAnswer(generic, '{"response_string": 5}'), { content: '5' });
  t.same(replyFromAnswer(generic, '{"response_not_required": true, "content": "x"}'), { content: null });
  t.same(replyFromAnswer(generic, '{"content": "  "}'), { content: null });
  t.same(replyFromAnswer(generic, '""'), { content: null });
  t.same(replyFromAnswer(generic, '[1]'), { error: 'Invalid response format' });
  t.same(replyFromAnswer(generic, 'nope'), { error: 'Invalid JSON in response' });
  t.same(replyFromAnswer(slack, '{"text": "hey", "content": "no"}'), { content: 'hey' });
});
