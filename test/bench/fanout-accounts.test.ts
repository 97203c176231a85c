/**
 * The fan-out bench's receivers (bench/fanout-accounts.ts): more queues than the demo users may hold
 * (`MAX_QUEUES_PER_USER` each) get created, subscribed accounts, and every queue then stays alive.
 */
import t from 'tap';
import { startTestServer, DEMO_PASSWORD } from '../support/test-server.js';
import { api } from '../support/server-process.js';
import { fanoutReceivers, type ApiCall } from '../../bench/fanout-accounts.js';
import { MAX_QUEUES_PER_USER } from '../../src/events/event-queues.js';

const DEMO = ['hamlet@zulip.com', 'othello@zulip.com'];

t.test('receivers for more queues than the demo users hold', async (t) => {
  const s = await startTestServer(t, { rateLimits: false });
  const call: ApiCall = async (account, method, path, params) => (await api(s.url, account?.email ?? null, account?.key ?? null, method, path, params)).body;

  const few = await fanoutReceivers(call, DEMO, DEMO_PASSWORD, 'desdemona@zulip.com', 2 * MAX_QUEUES_PER_USER, 'Verona');
  t.same(few.map((a) => a.email), DEMO, 'enough demo users: nobody is created');

  const queues = 2 * MAX_QUEUES_PER_USER + 1;
  const accounts = await fanoutReceivers(call, DEMO, DEMO_PASSWORD, 'desdemona@zulip.com', queues, 'Verona');
  t.same(accounts.map((a) => a.email), [...DEMO, 'fanout-1@zulip.com'], 'one account created for the extra queue');
  const created = accounts[2]!;
  const subs = await call(created, 'GET', '/users/me/subscriptions', {});
  t.ok((subs.subscriptions as Array<{ name: string }>).some((x) => x.name === 'Verona'), 'the created account is in the channel');

  const ids: Array<[number, string]> = [];
  for (let i = 0; i < queues; i++) {
    const body = await call(accounts[i % accounts.length]!, 'POST', '/register', { event_types: '["message"]', fetch_event_types: '[]' });
    t.equal(body.result, 'success');
    ids.push([i % accounts.length, body.queue_id as string]);
  }
  const sent = await call(accounts[0]!, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'fan-out', content: 'to every queue' });
  t.equal(sent.result, 'success');
  let alive = 0;
  for (const [owner, id] of ids) {
    const polled = await call(accounts[owner]!, 'GET', '/events', { queue_id: id, last_event_id: '-1', dont_block: 'true' });
    if (polled.result === 'success' && (polled.events as Array<{ type: string }>).some((e) => e.type === 'message')) alive++;
  }
  t.equal(alive, queues, 'every queue is alive and got the message');

  await t.rejects(fanoutReceivers(call, DEMO, 'wrong password', 'desdemona@zulip.com', queues, 'Verona'), /fetch_api_key for hamlet@zulip.com failed/, 'a failed login says so');
});
