/**
 * Message retention (https://zulip.com/help/message-retention-policy): the
 * `delete_expired_messages` handler (realm policy, channel overrides, forever, direct messages,
 * the per-command bound) and the retention job against a real server: the job's clock decides,
 * the deletions reach clients as `delete_message` events (verifyAction), and a realm without a
 * policy is left alone.
 */
import t from 'tap';
import { decide, run, smallRealm } from '../support/realm-fixture.js';
import { evolve } from '../../src/domain/evolve.js';
import { MAX_RETENTION_DELETIONS } from '../../src/realm/handlers/message-retention.js';
import { runRetentionPass } from '../../src/realm/retention-job.js';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const DAY = 86400;

t.test('delete_expired_messages: realm policy, channel overrides, direct messages, bound', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const send = (to: number | number[], topic?: string) =>
    run(state, Array.isArray(to)
      ? { type: 'send_message', senderId: ids.member, messageType: 'private', to, topic: undefined, content: 'dm', client: 'test' }
      : { type: 'send_message', senderId: ids.member, messageType: 'stream', to, topic: topic ?? 't', content: 'x', client: 'test' }, ctx).id;
  const general = send(streams.general);
  const empty = send(streams.empty);
  const dm = send([ids.other]);
  const sentAt = state.messages.timestamp.get(general);
  const expire = (now: number) => decide(state, { type: 'delete_expired_messages', nowSeconds: now }, ctx);

  // No policy: nothing expires.
  let r = expire(sentAt + 1000 * DAY);
  t.ok(r.ok && r.value.records.length === 0 && r.value.reply.complete);
  // Realm: 30 days; the "empty" channel keeps its messages forever (-1).
  state.settings.messageRetentionDays = 30;
  state.streams.get(streams.empty)!.messageRetentionDays = -1;
  r = expire(sentAt + 29 * DAY);
  t.ok(r.ok && r.value.records.length === 0, 'not yet expired');
  r = expire(sentAt + 31 * DAY);
  if (!r.ok) throw r.error;
  t.same(r.value.reply, { deleted: 2, complete: true });
  t.same(r.value.records.flatMap((x) => (x.type === 'messages_deleted' ? x.ids : [])).sort((a, b) => a - b), [general, dm].sort((a, b) => a - b));
  t.match(r.value.events.map((e) => e.payload), [
    { type: 'stream', op: 'update', property: 'first_message_id', value: null },
    { type: 'delete_message', message_ids: [general], message_type: 'stream', stream_id: streams.general },
    { type: 'delete_message', message_ids: [dm], message_type: 'private' },
  ]);
  for (const record of r.value.records) evolve(state, record);
  t.ok(state.messages.exists(empty) && !state.messages.exists(general) && !state.messages.exists(dm));
  // A channel override shorter than the realm's.
  state.streams.get(streams.empty)!.messageRetentionDays = 1;
  r = expire(sentAt + 2 * DAY);
  t.ok(r.ok && r.value.reply.deleted === 1);

  // The bound: more expired messages than one command may delete.
  const fresh = smallRealm();
  fresh.state.settings.messageRetentionDays = 1;
  for (let i = 0; i < MAX_RETENTION_DELETIONS + 5; i++) {
    run(fresh.state, { type: 'send_message', senderId: fresh.ids.member, messageType: 'stream', to: fresh.streams.general, topic: 'bulk', content: `m${i}`, client: 'test' }, fresh.ctx);
  }
  const first = decide(fresh.state, { type: 'delete_expired_messages', nowSeconds: sentAt + 3 * DAY }, fresh.ctx);
  if (!first.ok) throw first.error;
  t.same(first.value.reply, { deleted: MAX_RETENTION_DELETIONS, complete: false });
  for (const record of first.value.records) evolve(fresh.state, record);
  const second = decide(fresh.state, { type: 'delete_expired_messages', nowSeconds: sentAt + 3 * DAY }, fresh.ctx);
  t.same(second.ok && second.value.reply, { deleted: 5, complete: true });
});

t.test('retention job on a running server', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const id = (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Denmark', topic: 'old news', content: 'soon gone' })).body.id as number;
  const realms = () => s.server.registry.all();
  t.same(await runRetentionPass(realms(), Date.now() / 1000 + 400 * DAY), {}, 'no policy: the realm is skipped');
  t.equal((await hamlet.call('PATCH', '/realm', { message_retention_days: 1 })).status, 400, 'owners only');
  t.equal((await desdemona.call('PATCH', '/realm', { message_retention_days: 1 })).status, 200);
  const notYet = await runRetentionPass(realms(), Date.now() / 1000);
  t.same(notYet, { '': 0 }, 'nothing older than a day');
  const { events } = await verifyAction(t, s, hamlet, {
    registerParams: { client_capabilities: { bulk_message_deletion: true } },
    action: () => runRetentionPass(realms(), Date.now() / 1000 + 2 * DAY),
    stateChangeExpected: true,
  });
  t.ok(events.some((e) => e.type === 'delete_message' && e.message_ids.includes(id)), 'clients hear of the deletion');
  t.equal((await hamlet.call('GET', `/messages/${id}`)).body.msg, 'Invalid message(s)', 'the message is gone');
});
