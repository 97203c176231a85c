/**
 * WebSocket event push (`GET /api/v1/events/socket`, a parley extension) against a real
 * in-process server, with the `ws` client: register, subscribe, receive a message event with the
 * same id GET /events gives, resume after a disconnect, authentication on the upgrade, shutdown.
 */
import t from 'tap';
import WebSocket from 'ws';
import { startTestServer, type Caller } from '../support/test-server.js';

type Frame = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A connected client socket with a frame inbox. */
interface Client {
  ws: WebSocket;
  /** Resolves with the next frame matching `pred` (frames before it that don't match are kept). */
  next(pred?: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  send(frame: Frame): void;
  closed: Promise<{ code: number; reason: string }>;
}

const basic = (c: Caller) => 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');

function connect(url: string, headers: Record<string, string>, query = ''): Promise<Client> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/events/socket${query}`, { headers });
  const inbox: Frame[] = [];
  const waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame;
    const i = waiters.findIndex((w) => w.pred(frame));
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(frame);
    else inbox.push(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const client: Client = {
    ws,
    closed,
    send: (frame) => ws.send(JSON.stringify(frame)),
    next(pred = () => true, timeoutMs = 5000) {
      const i = inbox.findIndex(pred);
      if (i >= 0) return Promise.resolve(inbox.splice(i, 1)[0]!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching frame in time')), timeoutMs);
        waiters.push({
          pred,
          resolve: (f) => {
            clearTimeout(timer);
            resolve(f);
          },
        });
      });
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

/** Status, headers and JSON body of a refused upgrade. */
function refusedUpgrade(url: string, headers: Record<string, string>, query = '') {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/events/socket${query}`, { headers });
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Frame }>((resolve, reject) => {
    ws.on('open', () => reject(new Error('upgrade unexpectedly accepted')));
    ws.on('error', () => {}); // ws reports the refusal as an error too, after unexpected-response
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
  });
}

const isEvents = (f: Frame) => f.type === 'events';

t.test('WebSocket event push against a real server', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');

  const reg = await hamlet.call('POST', '/register', { event_types: ['message'] });
  t.equal(reg.status, 200);
  const queueId: string = reg.body.queue_id;
  t.equal(reg.body.last_event_id, -1);

  // Connect and subscribe.
  const a = await connect(s.url, { Authorization: basic(hamlet) });
  a.send({ op: 'ping' });
  t.same(await a.next(), { type: 'pong' });
  a.send({ op: 'subscribe', queue_id: queueId, last_event_id: -1 });
  const confirm = await a.next();
  t.same(confirm, { result: 'success', msg: '', type: 'subscribed', queue_id: queueId, last_event_id: -1 });

  // A message sent over REST arrives over the socket.
  const sent = await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'socket', content: 'over the wire' });
  t.equal(sent.status, 200);
  const frame = await a.next(isEvents);
  t.equal(frame.result, 'success');
  t.equal(frame.queue_id, queueId);
  t.equal(frame.events.length, 1);
  const event = frame.events[0];
  t.equal(event.type, 'message');
  t.equal(event.message.id, sent.body.id);
  t.equal(event.message.content, 'over the wire');

  // GET /events (non-blocking, so the socket keeps the queue) returns the same event, same id.
  const polled = await hamlet.call('GET', '/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  t.equal(polled.status, 200);
  t.same(polled.body.events, [event], 'identical event object and id');

  // Acknowledge, disconnect, miss a message, resume with the last processed id.
  a.send({ op: 'ack', last_event_id: event.id });
  a.ws.close();
  t.equal((await a.closed).code, 1005);
  const missed = await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'socket', content: 'while away' });
  t.equal(missed.status, 200);

  const b = await connect(s.url, { Authorization: basic(hamlet) });
  b.send({ op: 'subscribe', queue_id: queueId, last_event_id: event.id });
  t.equal((await b.next()).type, 'subscribed');
  const resumed = await b.next(isEvents);
  t.same(resumed.events.map((e: Frame) => e.id), [event.id + 1], 'only the missed event');
  t.equal(resumed.events[0].message.id, missed.body.id);
  t.equal(resumed.events[0].message.content, 'while away', 'raw Markdown (register without apply_markdown)');
  b.ws.close();
  await b.closed;

  // Subscribing through the URL; the event not acknowledged is sent again.
  const c = await connect(s.url, { Authorization: basic(hamlet) }, `?queue_id=${encodeURIComponent(queueId)}&last_event_id=${event.id}`);
  t.equal((await c.next()).type, 'subscribed');
  t.same((await c.next(isEvents)).events.map((e: Frame) => e.id), [event.id + 1], 'unacknowledged → re-sent');

  // Another user cannot subscribe to hamlet's queue.
  const o = await connect(s.url, { Authorization: basic(othello) });
  o.send({ op: 'subscribe', queue_id: queueId, last_event_id: -1 });
  t.same(await o.next(), { result: 'error', msg: `Bad event queue ID: ${queueId}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: queueId });
  t.same(await o.closed, { code: 1000, reason: 'BAD_EVENT_QUEUE_ID' });

  // DELETE /events ends the subscription.
  const del = await hamlet.call('DELETE', '/events', { queue_id: queueId });
  t.equal(del.status, 200);
  t.same(await c.next(), { result: 'error', msg: `Bad event queue ID: ${queueId}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: queueId });
  t.equal((await c.closed).code, 1000);
});

t.test('the upgrade is authenticated like the REST API', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');

  const noAuth = await refusedUpgrade(s.url, {});
  t.equal(noAuth.status, 401);
  t.equal(noAuth.headers['www-authenticate'], 'Basic realm="zulip"');
  t.same(noAuth.body, { result: 'error', msg: 'Not logged in: API authentication or user session required', code: 'UNAUTHORIZED' });

  const wrongKey = await refusedUpgrade(s.url, {
    Authorization: 'Basic ' + Buffer.from(`hamlet@zulip.com:${'x'.repeat(32)}`).toString('base64'),
  });
  t.equal(wrongKey.status, 401);
  t.equal(wrongKey.headers['www-authenticate'], 'Basic realm="zulip"');
  t.same(wrongKey.body, { result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });

  const badQueue = await refusedUpgrade(s.url, { Authorization: basic(hamlet) }, '?queue_id=nope&last_event_id=-1');
  t.equal(badQueue.status, 400);
  t.same(badQueue.body, { result: 'error', msg: 'Bad event queue ID: nope', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'nope' });

  // A plain GET (no upgrade) is an ordinary unrouted API path.
  const plain = await hamlet.call('GET', '/events/socket');
  t.equal(plain.status, 404);
});

t.test('server shutdown closes open sockets with 1001', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const reg = await hamlet.call('POST', '/register', {});
  const a = await connect(s.url, { Authorization: basic(hamlet) }, `?queue_id=${encodeURIComponent(reg.body.queue_id)}&last_event_id=-1`);
  t.equal((await a.next()).type, 'subscribed');
  const closing = s.close();
  t.equal((await a.closed).code, 1001);
  await closing;
});

t.test('a client that stops reading is held back, then catches up in order', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const reg = await hamlet.call('POST', '/register', {});
  const queueId: string = reg.body.queue_id;
  const realm = s.server.registry.realmForHost(new URL(s.url).host)!;
  const queue = s.server.queues.get(queueId, realm.id, hamlet.userId)!;
  const a = await connect(s.url, { Authorization: basic(hamlet) }, `?queue_id=${encodeURIComponent(queueId)}&last_event_id=-1`);
  t.equal((await a.next()).type, 'subscribed');

  const socket = (a.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  socket.pause(); // the client stops reading: kernel buffers fill, then uWS buffers
  const padding = 'x'.repeat(20_000);
  const count = 400; // ~8 MB: far beyond the 1 MiB threshold and the kernel buffers
  for (let i = 0; i < count; i++) {
    queue.push({ type: 'test_padding', n: i, padding });
    if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 100));
  socket.resume();
  const ids: number[] = [];
  while (ids.length < count) {
    const frame = await a.next(isEvents, 10_000);
    for (const e of frame.events) ids.push(e.id);
  }
  t.same(ids, Array.from({ length: count }, (_, i) => i), 'every event exactly once, in order');
  a.ws.close();
});
