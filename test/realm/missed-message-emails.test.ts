/**
 * Missed-message emails end to end (zerver/lib/email_notifications.py,
 * zerver/lib/notification_data.py, zerver/tornado/event_queue.py `receiver_is_off_zulip`): a real
 * server, real SMTP on loopback and the job's clock in the test's hands. Direct messages and
 * mentions to offline users are mailed after the batching period, one mail per conversation;
 * read messages, online users and the settings turn them off; content follows the user and realm
 * settings.
 */
import t from 'tap';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startSmtpFixture, type SmtpFixture } from '../support/smtp-fixture.js';

async function setup(t: { teardown(fn: () => unknown): void }): Promise<{ s: TestServer; smtp: SmtpFixture; clock: { now: number } }> {
  const smtp = await startSmtpFixture(t);
  const clock = { now: Date.now() / 1000 };
  const s = await startTestServer(t, { smtpUrl: smtp.url }, { missedMessageClock: () => clock.now });
  return { s, smtp, clock };
}

/** Runs the job at `now` and waits until the mailer has sent what it queued. */
async function tick(s: TestServer, now: number): Promise<number> {
  const n = s.server.missedMessages.tick(now);
  await s.server.mailer.idle();
  return n;
}

t.test('a DM to an offline user is mailed after the batching period; batched per conversation', async (t) => {
  const { s, smtp, clock } = await setup(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  for (const content of ['first **secret** plan', 'second note']) {
    const r = await iago.call('POST', '/messages', { type: 'direct', to: [hamlet.userId], content });
    t.equal(r.status, 200);
  }
  await othello.call('POST', '/messages', { type: 'direct', to: [hamlet.userId, iago.userId], content: 'group hello' });
  t.equal(s.server.missedMessages.waiting, 4, 'hamlet ×3 and iago ×1 (the group DM) wait');
  t.equal(await tick(s, clock.now + 119), 0, 'nothing before 120 s');
  t.equal(await tick(s, clock.now + 121), 3, 'hamlet: two conversations; iago: one');
  const toHamlet = smtp.received.filter((m) => m.to[0] === 'hamlet@zulip.com');
  t.equal(toHamlet.length, 2);
  const dm = toHamlet.find((m) => m.subject === 'DMs with Iago')!;
  t.ok(dm, 'subject names the sender');
  t.match(dm.text, /Iago:\nfirst \*\*secret\*\* plan[\s\S]*Iago:\nsecond note/, 'both messages, in order, in one mail');
  t.match(dm.text, new RegExp(`${s.url.replace(/\./g, '\\.')}/#narrow/dm/${iago.userId}-Iago/near/\\d+`), 'a link to the conversation');
  const group = toHamlet.find((m) => m.subject.startsWith('Group DMs with'))!;
  t.equal(group.subject, 'Group DMs with Iago and Othello, the Moor of Venice');
  t.equal(s.server.missedMessages.waiting, 0);
  t.equal(await tick(s, clock.now + 500), 0, 'each message is mailed once');
});

t.test('mentions: personal and wildcard (per wildcard_mentions_notify); plain channel messages are not mailed', async (t) => {
  const { s, smtp, clock } = await setup(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  t.equal((await othello.call('PATCH', '/settings', { wildcard_mentions_notify: false })).status, 200);
  await iago.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'plans', content: 'no mention here' });
  t.equal(s.server.missedMessages.waiting, 0, 'a plain channel message mails nobody');
  await iago.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'plans', content: 'hey @**King Hamlet**' });
  const cordelia = await s.as('cordelia@zulip.com');
  const verona = (await iago.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id as number;
  t.equal((await cordelia.call('POST', '/user_topics', { stream_id: verona, topic: 'other', visibility_policy: 1 })).status, 200);
  await iago.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'other', content: 'all of you @**all**' });
  await tick(s, clock.now + 121);
  const hamletMails = smtp.received.filter((m) => m.to[0] === 'hamlet@zulip.com').map((m) => m.subject).sort();
  t.same(hamletMails, ['#Verona > other', '#Verona > plans']);
  t.notOk(smtp.received.some((m) => m.to[0] === 'othello@zulip.com'), 'wildcard_mentions_notify off: no wildcard mail');
  t.notOk(smtp.received.some((m) => m.to[0] === 'iago@zulip.com'), 'never the sender');
  t.notOk(smtp.received.some((m) => m.to[0] === 'cordelia@zulip.com'), 'a muted topic: no wildcard mail');
  t.ok(smtp.received.some((m) => m.to[0] === 'prospero@zulip.com' && m.subject === '#Verona > other'), 'other subscribers get the wildcard mail');
  const mention = smtp.received.find((m) => m.subject === '#Verona > plans')!;
  t.match(mention.text, /mentioned you/);
  t.match(mention.text, /#narrow\/channel\/\d+-Verona\/topic\/plans\/near\/\d+/);
  void hamlet;
});

t.test('cancelled when read first; not sent to online users or with the setting off', async (t) => {
  const { s, smtp, clock } = await setup(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const prospero = await s.as('prospero@zulip.com');
  const sent = await iago.call('POST', '/messages', { type: 'direct', to: [hamlet.userId], content: 'read me' });
  t.equal((await hamlet.call('POST', '/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'read' })).status, 200);

  // Cordelia is online: an event queue and an active presence report.
  t.equal((await cordelia.call('POST', '/register', { event_types: ['message'] })).status, 200);
  t.equal((await cordelia.call('POST', '/users/me/presence', { status: 'active' })).status, 200);
  await iago.call('POST', '/messages', { type: 'direct', to: [cordelia.userId], content: 'you are here' });

  t.equal((await prospero.call('PATCH', '/settings', { enable_offline_email_notifications: false })).status, 200);
  await iago.call('POST', '/messages', { type: 'direct', to: [prospero.userId], content: 'no mail please' });

  t.equal(s.server.missedMessages.waiting, 1, 'only hamlet\'s (already read) message waits');
  t.equal(await tick(s, clock.now + 121), 0, 'read before the period ended: no mail');
  t.equal(smtp.received.length, 0);
});

t.test('content follows message_content_in_email_notifications and the realm setting', async (t) => {
  const { s, smtp, clock } = await setup(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  t.equal((await hamlet.call('PATCH', '/settings', { message_content_in_email_notifications: false })).status, 200);
  await iago.call('POST', '/messages', { type: 'direct', to: [hamlet.userId], content: 'top secret words' });
  await iago.call('POST', '/messages', { type: 'direct', to: [othello.userId], content: 'visible words' });
  await tick(s, clock.now + 121);
  const [toHamlet, toOthello] = ['hamlet@zulip.com', 'othello@zulip.com'].map((e) => smtp.received.find((m) => m.to[0] === e)!);
  t.notMatch(toHamlet!.text, /top secret/);
  t.match(toHamlet!.text, /does not include message content/);
  t.match(toOthello!.text, /visible words/);

  const realmOff = await iago.call('PATCH', '/realm', { message_content_allowed_in_email_notifications: false });
  t.equal(realmOff.status, 200, JSON.stringify(realmOff.body));
  await iago.call('POST', '/messages', { type: 'direct', to: [othello.userId], content: 'hidden by the realm' });
  await tick(s, clock.now + 300);
  const later = smtp.received.filter((m) => m.to[0] === 'othello@zulip.com');
  t.equal(later.length, 2);
  t.notMatch(later[1]!.text, /hidden by the realm/);
});

t.test('the batching period is the user\'s email_notifications_batching_period_seconds', async (t) => {
  const { s, smtp, clock } = await setup(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  t.equal((await hamlet.call('PATCH', '/settings', { email_notifications_batching_period_seconds: 600 })).status, 200);
  await iago.call('POST', '/messages', { type: 'direct', to: [hamlet.userId], content: 'later' });
  t.equal(await tick(s, clock.now + 300), 0);
  t.equal(await tick(s, clock.now + 601), 1);
  t.equal(smtp.received.length, 1);
});
