/**
 * Expired-queue recovery with zulip-js against a real server process: event queues live in
 * memory only, so after a restart the old queue answers BAD_EVENT_QUEUE_ID (with `queue_id`); the
 * client registers a new queue and receives events again. (zulip-js's own callOnEachEvent never
 * re-registers; this drives its queues/events API the way a recovering client does.)
 */
import t from 'tap';
import { createRequire } from 'node:module';
import { DEFAULT_DEMO_PASSWORD, fetchApiKey, makeTempDir, startServer } from '../support/server-process.js';

const require = createRequire(import.meta.url);
const zulip = require('zulip-js') as (config: Record<string, string>) => Promise<any>;

t.test('after a restart the old queue is gone and a new one works', async (t) => {
  const dataDir = makeTempDir(t);
  const first = await startServer({ t, dataDir, demoPassword: DEFAULT_DEMO_PASSWORD });
  const { api_key: apiKey } = await fetchApiKey(first.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD);
  const before = await zulip({ username: 'hamlet@zulip.com', apiKey, realm: first.url });
  const registered = await before.queues.register({ event_types: ['message'] });
  t.equal(registered.result, 'success');
  const oldQueue: string = registered.queue_id;
  t.same((await before.events.retrieve({ queue_id: oldQueue, last_event_id: -1, dont_block: true })).events, []);
  await first.stop('SIGTERM');

  const second = await startServer({ t, dataDir, demoPassword: DEFAULT_DEMO_PASSWORD });
  const after = await zulip({ username: 'hamlet@zulip.com', apiKey, realm: second.url });
  const stale = await after.events.retrieve({ queue_id: oldQueue, last_event_id: -1, dont_block: true });
  t.same(stale, { result: 'error', msg: `Bad event queue ID: ${oldQueue}`, code: 'BAD_EVENT_QUEUE_ID', queue_id: oldQueue });

  const fresh = await after.queues.register({ event_types: ['message'] });
  t.equal(fresh.result, 'success');
  t.not(fresh.queue_id, oldQueue);
  const { api_key: othelloKey } = await fetchApiKey(second.url, 'othello@zulip.com', DEFAULT_DEMO_PASSWORD);
  const othello = await zulip({ username: 'othello@zulip.com', apiKey: othelloKey, realm: second.url });
  const sent = await othello.messages.send({ type: 'stream', to: 'Verona', topic: 'recovery', content: 'after the restart' });
  t.equal(sent.result, 'success');
  const events = await after.events.retrieve({ queue_id: fresh.queue_id, last_event_id: -1 });
  t.equal(events.events.length, 1);
  t.match(events.events[0], { id: 0, type: 'message', message: { id: sent.id, content: 'after the restart', subject: 'recovery' } });
});
