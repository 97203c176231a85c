/**
 * Scheduled messages and reminders over HTTP (https://zulip.com/api/create-scheduled-message,
 * https://zulip.com/api/update-scheduled-message, https://zulip.com/api/delete-scheduled-message,
 * https://zulip.com/api/get-scheduled-messages, https://zulip.com/api/create-message-reminder,
 * https://zulip.com/api/get-reminders, https://zulip.com/api/delete-reminder): the endpoints'
 * errors with nothing changed, the `scheduled_messages` / `reminders` events and register state
 * (verifyAction), delivery by the job with a controlled clock (sent, and failed with the
 * Notification Bot's message), and delivery after a real restart of the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer, type Caller, type TestServer, basicCall, loginApiKey } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { runDeliveryPass } from '../../src/realm/scheduled-delivery-job.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
// The job's own timer never fires during these tests: passes are run with the test's clock.
const NO_TIMER = { scheduledDelivery: { intervalSeconds: 3600 } };
const DENMARK = 2;

const list = async (c: Caller) => (await c.call('GET', '/scheduled_messages')).body.scheduled_messages as Array<Record<string, any>>;
const pass = (s: TestServer, nowSeconds: number) => runDeliveryPass(s.server.registry.all(), nowSeconds);

t.test('create, edit, delete: errors, events, register state', async (t) => {
  const s = await startTestServer(t, {}, NO_TIMER);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const at = Math.floor(Date.now() / 1000) + 3600;
  const create = (params: Record<string, unknown>) => hamlet.call('POST', '/scheduled_messages', { type: 'stream', to: DENMARK, topic: 'later', content: 'see you', scheduled_delivery_timestamp: at, ...params });

  const errors: Array<[Record<string, unknown>, string]> = [
    [{ type: 'carrier-pigeon' }, 'Invalid type'],
    [{ scheduled_delivery_timestamp: 1000 }, 'Scheduled delivery time must be in the future.'],
    [{ to: 'Denmark' }, 'Invalid data type for channel ID'],
    [{ type: 'direct', to: 'hamlet@zulip.com' }, 'Invalid data type for recipients'],
    [{ content: '' }, 'Message must not be empty'],
  ];
  for (const [params, msg] of errors) {
    const r = await create(params);
    t.equal(r.status, 400, msg);
    t.same(r.body, bad(msg));
  }
  const missing = await hamlet.call('POST', '/scheduled_messages', { type: 'stream', to: DENMARK, content: 'x' });
  t.equal(missing.body.msg, "Missing 'scheduled_delivery_timestamp' argument");
  t.same(await list(hamlet), [], 'nothing was created');

  const { actionResult } = await verifyAction(t, s, hamlet, {
    eventTypes: ['scheduled_messages'],
    action: () => create({}),
    numEvents: 1,
    stateChangeExpected: true,
  });
  const id = actionResult.body.scheduled_message_id as number;
  t.same(await list(hamlet), [{
    scheduled_message_id: id, type: 'stream', to: DENMARK, topic: 'later', content: 'see you',
    rendered_content: '<p>see you</p>', scheduled_delivery_timestamp: at, failed: false,
  }]);
  t.same(await list(othello), [], "another user's list");

  // Edits: another user's id is unknown (404); Zulip's checks; a successful one is an update event.
  const notFound = await othello.call('PATCH', `/scheduled_messages/${id}`, { content: 'mine' });
  t.equal(notFound.status, 404);
  t.same(notFound.body, bad('Scheduled message does not exist'));
  t.same((await hamlet.call('PATCH', `/scheduled_messages/${id}`, {})).body, bad('Nothing to change'));
  t.same((await hamlet.call('PATCH', `/scheduled_messages/${id}`, { type: 'direct' })).body, bad('Recipient required when updating type of scheduled message.'));
  await verifyAction(t, s, hamlet, {
    eventTypes: ['scheduled_messages'],
    action: () => hamlet.call('PATCH', `/scheduled_messages/${id}`, { type: 'direct', to: JSON.stringify([othello.userId]), content: 'a *DM* instead', scheduled_delivery_timestamp: at + 60 }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.match(await list(hamlet), [{ type: 'private', to: [othello.userId], rendered_content: '<p>a <em>DM</em> instead</p>', scheduled_delivery_timestamp: at + 60 }]);
  t.notOk('topic' in (await list(hamlet))[0]!, 'no topic on a direct message');

  t.equal((await othello.call('DELETE', `/scheduled_messages/${id}`)).status, 404);
  await verifyAction(t, s, hamlet, {
    eventTypes: ['scheduled_messages'],
    action: () => hamlet.call('DELETE', `/scheduled_messages/${id}`),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(await list(hamlet), []);
  t.equal((await hamlet.call('DELETE', `/scheduled_messages/${id}`)).status, 404, 'deleted once');
});

t.test('delivery by the job: sent at its time, or failed with a notification', async (t) => {
  const s = await startTestServer(t, {}, NO_TIMER);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const at = Math.floor(Date.now() / 1000) + 3600;
  const id = (await hamlet.call('POST', '/scheduled_messages', { type: 'direct', to: JSON.stringify([othello.userId]), content: 'delivered **later**', scheduled_delivery_timestamp: at })).body.scheduled_message_id;

  t.same(await pass(s, at - 1), {}, 'nothing due yet');
  const { events } = await verifyAction(t, s, hamlet, {
    action: () => pass(s, at + 1),
    stateChangeExpected: true,
  });
  t.same(events.map((e) => `${e.type}${e.op ? `/${e.op}` : ''}`), ['message', 'scheduled_messages/remove']);
  // (register's apply_markdown defaults to false: raw content)
  t.match(events[0]!.message, { sender_id: hamlet.userId, content: 'delivered **later**', type: 'private' });
  t.same(await list(hamlet), []);
  const received = await othello.call('GET', `/messages/${events[0]!.message.id}`);
  t.equal(received.body.raw_content, 'delivered **later**', 'the recipient has it');

  // Due while nobody ran the job for more than 10 minutes: failed and kept, the owner told why.
  const late = (await hamlet.call('POST', '/scheduled_messages', { type: 'stream', to: DENMARK, topic: 'late', content: 'too late', scheduled_delivery_timestamp: at })).body.scheduled_message_id;
  const failed = await verifyAction(t, s, hamlet, {
    action: () => pass(s, at + 601),
    stateChangeExpected: true,
  });
  t.same(failed.actionResult, { '': { delivered: 0, failed: 1 } });
  t.same(failed.events.map((e) => e.type), ['scheduled_messages', 'message']);
  t.match(failed.events[0], { op: 'update', scheduled_message: { scheduled_message_id: late, failed: true } });
  t.match(failed.events[1]!.message, { sender_email: 'notification-bot@zulip.com', content: /was not sent because of the following error:.*Message could not be sent at the scheduled time\./s });
  t.match(await list(hamlet), [{ scheduled_message_id: late, failed: true }]);
  // A new time clears the failure.
  t.same((await hamlet.call('PATCH', `/scheduled_messages/${late}`, { content: 'x' })).body, bad('Scheduled delivery time must be in the future.'));
  t.equal((await hamlet.call('PATCH', `/scheduled_messages/${late}`, { scheduled_delivery_timestamp: at + 60 })).status, 200);
  t.match(await list(hamlet), [{ scheduled_message_id: late, failed: false, scheduled_delivery_timestamp: at + 60 }]);
});

t.test('reminders over HTTP', async (t) => {
  const s = await startTestServer(t, {}, NO_TIMER);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const at = Math.floor(Date.now() / 1000) + 3600;
  const target = (await othello.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'castle', content: 'meet at the gate' })).body.id;
  t.same((await hamlet.call('POST', '/reminders', { message_id: 999999, scheduled_delivery_timestamp: at })).body, bad('Invalid message(s)'));
  t.same((await hamlet.call('POST', '/reminders', { message_id: target, scheduled_delivery_timestamp: 5 })).body, bad('Scheduled delivery time must be in the future.'));
  t.same((await hamlet.call('GET', '/reminders')).body.reminders, []);

  const { actionResult } = await verifyAction(t, s, hamlet, {
    eventTypes: ['reminders'],
    action: () => hamlet.call('POST', '/reminders', { message_id: target, scheduled_delivery_timestamp: at, note: 'bring the key' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  const id = actionResult.body.reminder_id as number;
  const [reminder] = (await hamlet.call('GET', '/reminders')).body.reminders;
  t.match(reminder, { reminder_id: id, type: 'private', to: [hamlet.userId], reminder_target_message_id: target, failed: false, scheduled_delivery_timestamp: at });
  t.match(reminder.content, /^You requested a reminder for the following message\. Note:\n > bring the key\n\n@_\*\*Othello, the Moor of Venice\|\d+\*\* \[said\]\(.*\/near\/\d+\) in #\*\*Denmark>castle@\d+\*\*:\n```quote\nmeet at the gate\n```$/);
  t.same((await hamlet.call('GET', '/scheduled_messages')).body.scheduled_messages, [], 'reminders are not scheduled messages');
  t.equal((await othello.call('DELETE', `/reminders/${id}`)).status, 404);
  t.same((await othello.call('DELETE', `/reminders/${id}`)).body, bad('Reminder does not exist'));

  // Delivered by the Notification Bot to its owner, quoting the message as it is now.
  const { events } = await verifyAction(t, s, hamlet, {
    action: () => pass(s, at + 5),
    stateChangeExpected: true,
  });
  const message = events.find((e) => e.type === 'message')?.message;
  t.match(message, { sender_email: 'notification-bot@zulip.com', type: 'private' });
  t.match(message.content, /bring the key/);
  t.ok(events.some((e) => e.type === 'reminders' && e.op === 'remove' && e.reminder_id === id));

  const other = (await hamlet.call('POST', '/reminders', { message_id: target, scheduled_delivery_timestamp: at })).body.reminder_id;
  await verifyAction(t, s, hamlet, {
    eventTypes: ['reminders'],
    action: () => hamlet.call('DELETE', `/reminders/${other}`),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same((await hamlet.call('GET', '/reminders')).body.reminders, []);
});

t.test('a scheduled message due while the server was down is sent when it starts again', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-scheduled-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: 'scheduled-pw', rateLimits: false };
  const call = (url: string, key: string, method: string, path: string, params: Record<string, unknown> = {}) => basicCall(url, 'hamlet@zulip.com', key, method, path, params);
  const first = await startServer(config);
  const key = await loginApiKey(first.url, 'hamlet@zulip.com', 'scheduled-pw');
  const at = Math.floor(Date.now() / 1000) + 2;
  const created = await call(first.url, key, 'POST', '/scheduled_messages', { type: 'stream', to: DENMARK, topic: 'restart', content: 'sent after a restart', scheduled_delivery_timestamp: at });
  t.equal(created.result, 'success');
  await first.close();
  // Down until the message is due.
  while (Date.now() / 1000 <= at + 0.2) await new Promise((resolve) => setTimeout(resolve, 100));

  const second = await startServer(config);
  t.teardown(() => second.close());
  const narrow = JSON.stringify([{ operator: 'channel', operand: DENMARK }, { operator: 'topic', operand: 'restart' }]);
  let found: Array<Record<string, any>> = [];
  // The job's first pass runs at start; allow a slow machine 20 s.
  for (let i = 0; i < 200 && found.length === 0; i++) {
    found = (await call(second.url, key, 'GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow, apply_markdown: false })).messages ?? [];
    if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.equal(found.length, 1, 'sent once');
  t.equal(found[0]?.content, 'sent after a restart');
  t.same((await call(second.url, key, 'GET', '/scheduled_messages')).scheduled_messages, []);
});
