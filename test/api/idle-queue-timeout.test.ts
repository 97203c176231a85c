/**
 * `POST /register`'s `idle_queue_timeout` (https://zulip.com/api/register-queue): `"mobile"`
 * gets the 12-hour lifetime Zulip gives mobile apps, a number of seconds is honoured (capped at 7
 * days), anything else is refused; the response says the lifetime in `idle_queue_timeout_secs`,
 * and the queue manager's garbage collection keeps to it.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { MOBILE_QUEUE_TIMEOUT_SECONDS } from '../../src/api/idle-queue-timeout.js';
import { MAX_QUEUE_LIFESPAN_SECONDS } from '../../src/events/event-queues.js';

t.test('idle_queue_timeout: mobile, seconds, cap, errors, garbage collection', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const register = (params: Record<string, unknown>) => hamlet.call('POST', '/register', { fetch_event_types: ['realm_user'], ...params });
  const lifetime = (queueId: string) => {
    const queue = s.server.queues.get(queueId, s.server.registry.all()[0]!.id, hamlet.userId)!;
    return s.server.queues.idleTimeoutSeconds(queue);
  };

  const cases: Array<[Record<string, unknown>, number]> = [
    [{}, 600],
    [{ idle_queue_timeout: 'mobile' }, MOBILE_QUEUE_TIMEOUT_SECONDS],
    [{ idle_queue_timeout: 90 }, 90],
    [{ idle_queue_timeout: 10 ** 9 }, MAX_QUEUE_LIFESPAN_SECONDS],
    [{ queue_lifespan_secs: 120 }, 120],
    [{ idle_queue_timeout: 'mobile', queue_lifespan_secs: 120 }, MOBILE_QUEUE_TIMEOUT_SECONDS],
  ];
  for (const [params, seconds] of cases) {
    const reply = await register(params);
    t.equal(reply.status, 200, JSON.stringify(params));
    t.equal(reply.body.idle_queue_timeout_secs, seconds, `${JSON.stringify(params)}: answered`);
    t.equal(lifetime(reply.body.queue_id), seconds, `${JSON.stringify(params)}: the queue has it`);
  }
  t.equal(MOBILE_QUEUE_TIMEOUT_SECONDS, 12 * 3600);

  for (const value of ['desktop', 0, -5, 1.5, '[1]']) {
    const reply = await register({ idle_queue_timeout: value });
    t.equal(reply.status, 400, `${JSON.stringify(value)} refused`);
    t.same(reply.body, { result: 'error', msg: 'Invalid idle_queue_timeout', code: 'BAD_REQUEST' });
  }

  // The garbage collector keeps to each queue's lifetime.
  const short = (await register({ idle_queue_timeout: 1 })).body.queue_id as string;
  const mobile = (await register({ idle_queue_timeout: 'mobile' })).body.queue_id as string;
  const normal = (await register({})).body.queue_id as string;
  await new Promise((resolve) => setTimeout(resolve, 2100));
  s.server.queues.collectIdle();
  const poll = (queueId: string) => hamlet.call('GET', '/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  t.equal((await poll(short)).body.code, 'BAD_EVENT_QUEUE_ID', 'a 1 s queue is gone after 2 s idle');
  t.equal((await poll(mobile)).status, 200, 'the mobile queue lives on');
  t.equal((await poll(normal)).status, 200, 'the default queue lives on');
});
