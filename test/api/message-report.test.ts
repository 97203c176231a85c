/**
 * `POST /messages/{message_id}/report` (https://zulip.com/api/report-message): the moderation
 * request Notification Bot posts to the realm's moderation request channel (verifyAction on a
 * moderator's queue), its topic and content, and every error in Zulip's order with "nothing sent".
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

t.test('report a message', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const send = async (c: Caller, params: Record<string, unknown>) => (await c.call('POST', '/messages', params)).body.id as number;
  const offending = await send(othello, { type: 'stream', to: 'Verona', topic: 'rude', content: 'Some ```fenced``` **rudeness**' });
  const dm = await send(othello, { type: 'direct', to: [hamlet.userId], content: 'psst' });
  const report = (c: Caller, id: number, params: Record<string, unknown>) => c.call('POST', `/messages/${id}/report`, params);

  // Not enabled until an administrator picks the moderation request channel.
  const off = await verifyAction(t, s, iago, { action: () => report(hamlet, offending, { report_type: 'spam' }), numEvents: 0, stateChangeExpected: false });
  t.same(off.actionResult.body, err('Message reporting is not enabled in this organization.'));
  const core = (await iago.call('GET', '/get_stream_id', { stream: 'core team' })).body.stream_id;
  t.equal((await iago.call('PATCH', '/realm', { moderation_request_channel_id: core })).status, 200);

  const cases: Array<[Caller, number, Record<string, unknown>, object]> = [
    [hamlet, offending, { report_type: 'boring' }, err('Invalid report_type')],
    [hamlet, offending, { report_type: 'other' }, err('An explanation is required.')],
    [hamlet, offending, { report_type: 'spam', description: 'x'.repeat(1001) }, err('description is too long (limit: 1000 characters)')],
    [cordelia, dm, { report_type: 'spam' }, err('Invalid message(s)')],
    [hamlet, 999999, { report_type: 'spam' }, err('Invalid message(s)')],
    [hamlet, offending, {}, { result: 'error', msg: "Missing 'report_type' argument", code: 'REQUEST_VARIABLE_MISSING' }],
  ];
  for (const [caller, id, params, expected] of cases) {
    const r = await verifyAction(t, s, iago, { action: () => report(caller, id, params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, JSON.stringify(params));
    t.match(r.actionResult.body, expected);
  }

  const sent = await verifyAction(t, s, iago, {
    action: () => report(hamlet, offending, { report_type: 'harassment', description: 'Not nice.' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(sent.actionResult.body, { result: 'success', msg: '' });
  const message = sent.events[0]!.message;
  t.match(message, { sender_email: 'notification-bot@zulip.com', display_recipient: 'core team', subject: /^Othello.*'s moderation requests$/ });
  const raw = (await iago.call('GET', `/messages/${message.id}`, { apply_markdown: false })).body.message.content as string;
  t.match(raw, new RegExp(`^@_\\*\\*King Hamlet\\|${hamlet.userId}\\*\\* reported #\\*\\*Verona>rude@${offending}\\*\\* sent by @_\\*\\*Othello`));
  t.match(raw, /- Reason: \*\*Harassment\*\*\n- Notes:\n```quote\nNot nice.\n```\n```` spoiler \*\*Message sent by /);
  t.match(raw, /\nSome ```fenced``` \*\*rudeness\*\*\n````$/, 'the reported Markdown in a fence it cannot break');
  // A direct message the reporter received.
  const dmReport = await verifyAction(t, s, iago, { action: () => report(hamlet, dm, { report_type: 'norms' }), numEvents: 1 });
  const dmRaw = (await iago.call('GET', `/messages/${dmReport.events[0]!.message.id}`, { apply_markdown: false })).body.message.content as string;
  t.match(dmRaw, new RegExp(`reported a DM sent by @_\\*\\*Othello[^|]*\\|${othello.userId}\\*\\* to @_\\*\\*King Hamlet\\|${hamlet.userId}\\*\\*\\.`));
  t.match(dmRaw, /- Reason: \*\*Violates community norms\*\*/);
});
