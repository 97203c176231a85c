/**
 * The WebSocket event-push protocol (src/api/event-socket.ts) against a fake socket: subscribe,
 * backlog, acknowledgement, resume, ownership, request errors, backpressure, queue loss.
 */
import t from 'tap';
import { EventQueueManager } from '../../src/events/event-queues.js';
import { MAX_QUEUE_EVENTS, type QueueSettings } from '../../src/events/event-queue.js';
import type { RealmEvent } from '../../src/events/realm-event.js';
import {
  authorizeSocket,
  CloseCode,
  EventSocketSession,
  type SocketTransport,
} from '../../src/api/event-socket.js';
import type { ApiServices } from '../../src/api/registry.js';
import { Errors } from '../../src/errors.js';

const settings = (over: Partial<QueueSettings> = {}): QueueSettings => ({
  eventTypes: null, applyMarkdown: true, clientGravatar: false, slimPresence: false, allPublicStreams: false,
  narrow: null, clientCapabilities: {}, ...over,
});
const timing = { idleTimeoutSeconds: 600, heartbeatSeconds: 3600, heartbeatJitterSeconds: 0, gcIntervalSeconds: 3600 };
/** A typing event whose sender id `n` tells the events apart. */
const typing = (userIds: number[], n = 0): RealmEvent => {
  const sender = { user_id: n, email: `user${n}@example.com` };
  return { userIds, payload: { type: 'typing', op: 'start', message_type: 'direct', sender, recipients: [sender] } };
};
const typingFrame = (n: number, id: number) => {
  const sender = { user_id: n, email: `user${n}@example.com` };
  return { type: 'typing', op: 'start', message_type: 'direct', sender, recipients: [sender], id };
};

type Frame = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A socket that records frames; `buffered` is what `bufferedAmount()` reports. */
class FakeSocket implements SocketTransport {
  frames: Frame[] = [];
  buffered = 0;
  ended: { code: number; reason: string } | null = null;
  session: EventSocketSession | null = null;
  send(text: string): boolean {
    if (this.ended) throw new Error('send after end');
    this.frames.push(JSON.parse(text));
    return true;
  }
  bufferedAmount(): number {
    return this.buffered;
  }
  end(code: number, reason: string): void {
    this.ended = { code, reason };
    this.session?.closed(); // uWS runs the close handler synchronously
  }
  /** Frames since the last call. */
  take(): Frame[] {
    const out = this.frames;
    this.frames = [];
    return out;
  }
  /** Event ids of the events frames since the last call. */
  takeIds(): number[] {
    return this.take().flatMap((f) => (f.type === 'events' ? f.events.map((e: Frame) => e.id) : []));
  }
}

function setup(t: { teardown(fn: () => unknown): void }, options: { thresholdBytes?: number; maxFrameChars?: number } = {}) {
  const queues = new EventQueueManager(timing);
  t.teardown(() => queues.shutdown());
  const open = (userId = 1, realmId = 1) => {
    const socket = new FakeSocket();
    socket.session = new EventSocketSession(socket, queues, realmId, userId, options);
    return { socket, session: socket.session };
  };
  let seq = 0;
  const publish = (count: number, userIds = [1]) => {
    for (let i = 0; i < count; i++) queues.publish(1, ++seq, [typing(userIds, seq)]);
  };
  return { queues, open, publish };
}

const send = (session: EventSocketSession, frame: unknown) => session.receive(JSON.stringify(frame));

t.test('subscribe: confirmation, then the backlog, then live events', async (t) => {
  const { queues, open, publish } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  publish(3);
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  const [confirm, backlog, ...rest] = socket.take();
  t.same(confirm, { result: 'success', msg: '', type: 'subscribed', queue_id: q.id, last_event_id: 2 });
  t.equal(backlog!.result, 'success');
  t.equal(backlog!.type, 'events');
  t.equal(backlog!.queue_id, q.id);
  t.same(backlog!.events, [
    typingFrame(1, 0),
    typingFrame(2, 1),
    typingFrame(3, 2),
  ], 'exactly the queued event objects');
  t.same(rest, []);
  t.ok(q.attached, 'the socket is the queue consumer');
  publish(2);
  t.same(socket.takeIds(), [3, 4], 'live events pushed as they arrive');
  t.equal(session.lastSent, 4);
  t.equal(q.size, 5, 'nothing pruned before an ack');
});

t.test('the events are the ones GET /events returns, same ids', async (t) => {
  const { queues, open, publish } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  publish(4);
  const polled = await queues.poll(q, -1, true, () => {});
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  const frames = socket.take().filter((f) => f.type === 'events');
  t.same(frames.flatMap((f) => f.events), polled);
});

t.test('subscribe with last_event_id acknowledges and skips what the client has', async (t) => {
  const { queues, open, publish } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  publish(5);
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: 2 });
  t.same(socket.takeIds(), [3, 4]);
  t.equal(q.size, 2, 'events ≤ 2 pruned');
});

t.test('ack prunes exactly like GET /events last_event_id', async (t) => {
  const { queues, open, publish } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  publish(4);
  t.same(socket.takeIds(), [0, 1, 2, 3]);
  send(session, { op: 'ack', last_event_id: 1 });
  t.same(socket.take(), [], 'ack has no reply');
  t.equal(q.size, 2);
  t.same(q.eventsAfter(-1).map((e) => e.id), [2, 3]);
  send(session, { op: 'ack', last_event_id: 3 });
  t.equal(q.size, 0);
  publish(1);
  t.same(socket.takeIds(), [4], 'delivery continues after acks');
});

t.test('resume after a disconnect: no loss, only unacknowledged events again', async (t) => {
  const { queues, open, publish } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  const first = open();
  send(first.session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  publish(3);
  t.same(first.socket.takeIds(), [0, 1, 2]);
  send(first.session, { op: 'ack', last_event_id: 1 }); // processed 0, 1; event 2 in flight
  first.session.closed(); // the connection drops
  t.notOk(q.attached, 'close detaches; the queue lives on');
  t.equal(queues.get(q.id, 1, 1), q);
  publish(2); // arrive while disconnected

  // The client processed event 2 after all? It resumes with the highest id it processed.
  const second = open();
  send(second.session, { op: 'subscribe', queue_id: q.id, last_event_id: 2 });
  t.same(second.socket.takeIds(), [3, 4], 'missed events, no duplicates');

  // A client that never saw event 4 (sent just before the drop) gets it again.
  second.session.closed();
  const third = open();
  send(third.session, { op: 'subscribe', queue_id: q.id, last_event_id: 3 });
  t.same(third.socket.takeIds(), [4], 'the unacknowledged event is re-sent');
  publish(1);
  t.same(third.socket.takeIds(), [5]);
});

t.test('a queue may only be subscribed by its owner', async (t) => {
  const { queues, open } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  for (const [userId, realmId] of [[2, 1], [1, 2]] as const) {
    const { socket, session } = open(userId, realmId);
    send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
    t.same(socket.take(), [
      { result: 'error', msg: `Bad event queue ID: ${q.id}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: q.id },
    ]);
    t.same(socket.ended, { code: CloseCode.normal, reason: 'BAD_EVENT_QUEUE_ID' });
  }
  t.notOk(q.attached, 'the foreign socket never attached');
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: 'nope', last_event_id: -1 });
  t.same(socket.take()[0], { result: 'error', msg: 'Bad event queue ID: nope', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'nope' });
});

t.test('request errors: error frame, the socket stays open', async (t) => {
  const { queues, open } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  const { socket, session } = open();
  session.receive('{not json');
  session.receive('[1,2]');
  send(session, { foo: 1 });
  send(session, { op: 7 });
  send(session, { op: 'dance' });
  send(session, { op: 'ack', last_event_id: 1 });
  send(session, { op: 'subscribe', last_event_id: -1 });
  send(session, { op: 'subscribe', queue_id: 5, last_event_id: -1 });
  send(session, { op: 'subscribe', queue_id: q.id });
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: '3' });
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: 1.5 });
  session.receiveBinary();
  t.same(socket.take(), [
    { result: 'error', msg: 'Malformed JSON', code: 'INVALID_JSON' },
    { result: 'error', msg: 'Frame must be a JSON object', code: 'BAD_REQUEST' },
    { result: 'error', msg: "Missing 'op' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'op' },
    { result: 'error', msg: 'op is not a string', code: 'BAD_REQUEST' },
    { result: 'error', msg: "Unknown op 'dance'", code: 'BAD_REQUEST' },
    { result: 'error', msg: 'Not subscribed to an event queue', code: 'BAD_REQUEST' },
    { result: 'error', msg: "Missing 'queue_id' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'queue_id' },
    { result: 'error', msg: 'queue_id is not a string', code: 'BAD_REQUEST' },
    { result: 'error', msg: "Missing 'last_event_id' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'last_event_id' },
    { result: 'error', msg: 'last_event_id is not an integer', code: 'BAD_REQUEST' },
    { result: 'error', msg: 'last_event_id is not an integer', code: 'BAD_REQUEST' },
    { result: 'error', msg: 'Binary frames are not supported', code: 'BAD_REQUEST' },
  ]);
  t.equal(socket.ended, null);
  send(session, { op: 'ping' });
  t.same(socket.take(), [{ type: 'pong' }]);
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  t.equal(socket.take()[0]!.type, 'subscribed', 'still usable');
});

t.test('backpressure: nothing is sent while the buffer is full, then everything in order', async (t) => {
  const { queues, open, publish } = setup(t, { thresholdBytes: 1000 });
  const q = queues.register(1, 1, settings(), 0);
  publish(2);
  const { socket, session } = open();
  socket.buffered = 5000;
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  t.same(socket.take().map((f) => f.type), ['subscribed'], 'control frame only, no events');
  t.ok(session.isBehind);
  publish(3);
  t.same(socket.take(), [], 'live events held back too');
  socket.buffered = 800; // drained a little, still above the low-water mark (threshold / 2)
  session.drain();
  t.same(socket.take(), []);
  t.ok(session.isBehind);
  socket.buffered = 0;
  session.drain();
  t.same(socket.takeIds(), [0, 1, 2, 3, 4], 'everything after the last id sent, in order');
  t.notOk(session.isBehind);
  publish(1);
  t.same(socket.takeIds(), [5]);

});


t.test('falling behind in the middle of a backlog: the frames already sent are not repeated', async (t) => {
  const { queues, open, publish } = setup(t, { thresholdBytes: 1000, maxFrameChars: 100 });
  const q = queues.register(1, 1, settings(), 0);
  const { socket, session } = open();
  const frames: number[][] = [];
  let sent = 0;
  socket.send = function (text: string) {
    const f = JSON.parse(text);
    if (f.type === 'events') {
      frames.push(f.events.map((e: Frame) => e.id));
      this.buffered += 600 * ++sent; // the second frame pushes the buffer over the threshold
    }
    return true;
  };
  publish(10);
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  t.equal(frames.length, 2, 'stopped once over the threshold');
  t.ok(session.isBehind);
  const sentSoFar = frames.flat();
  t.ok(sentSoFar.length < 10);
  t.same(sentSoFar, Array.from({ length: sentSoFar.length }, (_, i) => i));
  publish(2);
  t.equal(frames.length, 2, 'live events wait too');
  socket.buffered = 0;
  sent = -1_000_000; // keep the buffer low from now on
  session.drain();
  t.same(frames.flat(), Array.from({ length: 12 }, (_, i) => i), 'the rest on drain, in order, no duplicates');
});

t.test('large backlogs are split into bounded frames', async (t) => {
  const { queues, open, publish } = setup(t, { maxFrameChars: 200 });
  const q = queues.register(1, 1, settings(), 0);
  publish(20);
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  const frames = socket.take().filter((f) => f.type === 'events');
  t.ok(frames.length > 3, `${frames.length} frames`);
  t.same(frames.flatMap((f) => f.events.map((e: Frame) => e.id)), Array.from({ length: 20 }, (_, i) => i));
});

t.test('a socket dropping a frame (hard limit) is treated as behind', async (t) => {
  const { queues, open, publish } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  socket.take();
  const realSend = socket.send.bind(socket);
  socket.send = () => false;
  publish(2);
  t.ok(session.isBehind);
  socket.send = realSend;
  session.drain();
  t.same(socket.takeIds(), [0, 1]);
});

t.test('queue overflow while behind: BAD_EVENT_QUEUE_ID, then close', async (t) => {
  const { queues, open, publish } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  socket.take();
  socket.buffered = 10 * 1024 * 1024; // a client that stopped reading
  const errors = console.error;
  console.error = () => {};
  t.teardown(() => (console.error = errors));
  publish(MAX_QUEUE_EVENTS + 1);
  t.same(socket.take(), [{ result: 'error', msg: `Bad event queue ID: ${q.id}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: q.id }]);
  t.same(socket.ended, { code: 1000, reason: 'BAD_EVENT_QUEUE_ID' });
  t.equal(queues.get(q.id, 1, 1), undefined, 'the queue was dropped');
  t.equal(session.queueId, null);
});

t.test('DELETE of the queue, takeover by a long-poll, re-subscribe', async (t) => {
  const { queues, open } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  const a = open();
  send(a.session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  send(a.session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  t.equal(a.socket.ended, null, 're-subscribing the same queue does not evict oneself');
  a.socket.take();
  const poll = queues.poll(q, -1, false, () => {});
  t.same(a.socket.take(), [
    { result: 'error', msg: 'Event queue was taken over by another client', code: 'BAD_REQUEST', queue_id: q.id },
  ]);
  t.same(a.socket.ended, { code: 1000, reason: 'BAD_REQUEST' });

  const b = open();
  send(b.session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  t.same(await poll, [], 'the socket evicted the long-poll (it returns with no events)');
  b.socket.take();
  queues.delete(q);
  t.same(b.socket.take(), [{ result: 'error', msg: `Bad event queue ID: ${q.id}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: q.id }]);
  t.same(b.socket.ended, { code: 1000, reason: 'BAD_EVENT_QUEUE_ID' });
});

t.test('shutdown closes with 1001 and detaches', async (t) => {
  const { queues, open } = setup(t);
  const q = queues.register(1, 1, settings(), 0);
  const { socket, session } = open();
  send(session, { op: 'subscribe', queue_id: q.id, last_event_id: -1 });
  session.shutdown();
  t.same(socket.ended, { code: CloseCode.goingAway, reason: 'server shutting down' });
  t.notOk(q.attached);
  session.receive('{"op":"ping"}'); // ignored after close
});

t.test('authorizeSocket: credentials and the optional subscription in the URL', async (t) => {
  const queues = new EventQueueManager(timing);
  t.teardown(() => queues.shutdown());
  const realm = { id: 1 } as never;
  const services: ApiServices = {
    realmForHost: (host) => (host === 'zulip.test' ? realm : null),
    authenticate: (r, email, apiKey) =>
      r === realm && email === 'hamlet@zulip.com' && apiKey === 'k'.repeat(32) ? { realm, user: { id: 10 } as never } : Errors.invalidApiKey(),
  };
  const basic = (s: string) => 'Basic ' + Buffer.from(s).toString('base64');
  const good = basic(`hamlet@zulip.com:${'k'.repeat(32)}`);
  const q = queues.register(1, 10, settings(), 0);
  const foreign = queues.register(1, 11, settings(), 0);
  const auth = (authorization: string | undefined, query: [string, string][] = [], host = 'zulip.test') =>
    authorizeSocket(services, queues, { host, authorization, query });

  t.same(auth(good), { realmId: 1, userId: 10, subscribe: null });
  t.same(auth(good, [['queue_id', q.id], ['last_event_id', '-1']]), {
    realmId: 1, userId: 10, subscribe: { queueId: q.id, lastEventId: -1 },
  });
  const expectError = (result: unknown, status: number, code: string, msg: string) => {
    t.ok(result instanceof Error, msg);
    const e = result as InstanceType<typeof import('../../src/errors.js').ZulipError>;
    t.equal(e.status, status);
    t.equal(e.code, code);
    t.equal(e.message, msg);
    if (status === 401) t.equal(e.headers['WWW-Authenticate'], 'Basic realm="zulip"');
  };
  expectError(auth(undefined), 401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required');
  expectError(auth(basic(`hamlet@zulip.com:${'x'.repeat(32)}`)), 401, 'UNAUTHORIZED', 'Invalid API key');
  expectError(auth('Basic !!!'), 401, 'UNAUTHORIZED', 'Invalid authorization header for basic auth');
  expectError(auth(good, [], 'other.test'), 401, 'UNAUTHORIZED', 'Invalid API key');
  expectError(auth(good, [['queue_id', foreign.id], ['last_event_id', '-1']]), 400, 'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${foreign.id}`);
  expectError(auth(good, [['queue_id', q.id]]), 400, 'BAD_REQUEST', "Missing 'last_event_id' argument");
  expectError(auth(good, [['last_event_id', '3']]), 400, 'BAD_REQUEST', "Missing 'queue_id' argument");
  const bad = auth(good, [['queue_id', q.id], ['last_event_id', 'x']]);
  t.ok(bad instanceof Error && (bad as { status: number }).status === 400, 'a non-integer last_event_id is a 400');
});
