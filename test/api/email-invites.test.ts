/**
 * Email invitations end to end (https://zulip.com/api/send-invites, get-invites,
 * revoke-email-invite, resend-email-invite): the invitation mail really leaves through SMTP to a
 * server on 127.0.0.1 (with AUTH), its link signs the invitee up with the invited role and
 * channels, `invites_changed` events via verifyAction, error bodies, and nothing changed or
 * mailed after an error.
 */
import t from 'tap';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { startSmtpFixture } from '../support/smtp-fixture.js';

async function page(s: TestServer, link: string, method = 'GET', form?: Record<string, string>) {
  const res = await fetch(`${s.url}${new URL(link).pathname}`, {
    method,
    redirect: 'manual',
    ...(form && { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

t.test('POST /invites mails an invitation through SMTP; its link signs the invitee up', async (t) => {
  const smtp = await startSmtpFixture(t, { user: 'parley', pass: 's3cret' });
  const s = await startTestServer(t, { smtpUrl: smtp.url, emailFrom: 'chat@example.org' });
  const iago = await s.as('iago@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  const rome = (await iago.call('GET', '/get_stream_id', { stream: 'Rome' })).body.stream_id as number;

  const sent = await verifyAction(t, s, desdemona, {
    eventTypes: ['invites_changed'], numEvents: 1, stateChangeExpected: false,
    action: () => iago.call('POST', '/invites', { invitee_emails: 'Viola <viola@example.net>, hamlet@zulip.com', stream_ids: [rome], invite_as: 300 }),
  });
  t.same(sent.actionResult.body, {
    result: 'error', code: 'INVITATION_FAILED',
    msg: "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
    errors: [['hamlet@zulip.com', 'Already has an account.', false]], sent_invitations: true, license_limit_reached: false, daily_limit_reached: false,
  });
  const [mail] = await smtp.waitFor(1);
  t.same(mail!.to, ['viola@example.net'], 'only the new address is mailed');
  t.equal(mail!.from, 'chat@example.org', '--email-from');
  t.match(mail!.subject, /invited you to join/);
  const link = /(http:\/\/\S+\/join\/[a-z2-7]{24}\/)/.exec(mail!.text)?.[1];
  t.ok(link, 'the mail carries the join link');

  const list = (await iago.call('GET', '/invites')).body.invites;
  t.equal(list.length, 1);
  t.same(Object.keys(list[0]).sort(), ['email', 'expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'notify_referrer_on_join']);
  t.same([list[0].email, list[0].invited_as, list[0].is_multiuse, list[0].expiry_date - list[0].invited], ['viola@example.net', 300, false, 14400 * 60]);

  const form = await page(s, link!);
  t.equal(form.status, 200);
  t.match(form.text, /value="viola@example\.net"/, 'the invited address is shown');
  t.match(form.text, /readonly/);
  const done = await page(s, link!, 'POST', { full_name: 'Viola', email: 'someone-else@example.net', password: 'viola-secret-pw' });
  t.equal(done.status, 302, 'signed up and logged in');
  const login = await s.request('POST', '/fetch_api_key', { params: { username: 'viola@example.net', password: 'viola-secret-pw' } });
  t.equal(login.status, 200, 'the account has the invited address, whatever was posted');
  const auth = { Authorization: 'Basic ' + Buffer.from(`viola@example.net:${login.body.api_key}`).toString('base64') };
  const me = await (await fetch(`${s.url}/api/v1/users/me`, { headers: auth })).json();
  t.equal(me.role, 300);
  const subs = await (await fetch(`${s.url}/api/v1/users/me/subscriptions`, { headers: auth })).json();
  t.same(subs.subscriptions.map((x: any) => x.name), ['Rome']);
  t.same((await iago.call('GET', '/invites')).body.invites, [], 'a used invitation is not listed');
  t.equal((await page(s, link!)).status, 404, 'the link is used up');
  const dms = await iago.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] });
  t.ok(dms.body.messages.some((m: any) => m.content.includes('accepted your invitation to join Zulip!')), 'the inviter is told');
});

t.test('revoke and resend through HTTP, with events and mail', async (t) => {
  const smtp = await startSmtpFixture(t);
  const s = await startTestServer(t, { smtpUrl: smtp.url });
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  const ok = await hamlet.call('POST', '/invites', { invitee_emails: 'a@example.net\nb@example.net', stream_ids: [] });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  await smtp.waitFor(2);
  t.same(smtp.received.map((m) => m.to[0]).sort(), ['a@example.net', 'b@example.net']);
  t.equal(smtp.received[0]!.from, `noreply@127.0.0.1`, 'default From: noreply@<host>');
  const [a, b] = (await hamlet.call('GET', '/invites')).body.invites.sort((x: any, y: any) => x.id - y.id);

  const resent = await verifyAction(t, s, desdemona, {
    eventTypes: ['invites_changed'], numEvents: 1, stateChangeExpected: false,
    action: () => hamlet.call('POST', `/invites/${a.id}/resend`),
  });
  t.equal(resent.actionResult.status, 200);
  t.type(resent.actionResult.body.timestamp, 'number');
  const [, , again] = await smtp.waitFor(3);
  t.same(again!.to, ['a@example.net'], 'the resend mails again');

  const denied = await (await s.as('othello@zulip.com')).call('DELETE', `/invites/${b.id}`);
  t.same([denied.status, denied.body.msg], [400, 'Must be an organization administrator']);
  const revoked = await verifyAction(t, s, desdemona, {
    eventTypes: ['invites_changed'], numEvents: 1, stateChangeExpected: false,
    action: () => iago.call('DELETE', `/invites/${b.id}`),
  });
  t.equal(revoked.actionResult.status, 200);
  t.same((await iago.call('DELETE', `/invites/${b.id}`)).body.msg, 'No such invitation');
  t.same((await iago.call('POST', `/invites/${b.id}/resend`)).body.msg, 'No such invitation');
  t.same((await hamlet.call('GET', '/invites')).body.invites.map((i: any) => i.email), ['a@example.net']);
});

t.test('errors: nothing stored, nothing mailed', async (t) => {
  const smtp = await startSmtpFixture(t);
  const s = await startTestServer(t, { smtpUrl: smtp.url });
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const cases: Array<[Record<string, unknown>, number, string]> = [
    [{ stream_ids: [] }, 400, "Missing 'invitee_emails' argument"],
    [{ invitee_emails: 'x@example.net' }, 400, "Missing 'stream_ids' argument"],
    [{ invitee_emails: ' , ', stream_ids: [] }, 400, 'You must specify at least one email address.'],
    [{ invitee_emails: 'x@example.net, bad', stream_ids: [] }, 400, "Some emails did not validate, so we didn't send any invitations."],
    [{ invitee_emails: 'x@example.net', stream_ids: [9999] }, 400, 'Invalid channel ID 9999. No invites were sent.'],
    [{ invitee_emails: 'x@example.net', stream_ids: [], invite_as: 100 }, 400, 'Must be an organization owner'],
    [{ invitee_emails: 'iago@zulip.com', stream_ids: [] }, 400, "We weren't able to invite anyone."],
  ];
  for (const [params, status, msg] of cases) {
    const r = await iago.call('POST', '/invites', params);
    t.same([r.status, r.body.msg], [status, msg], msg);
  }
  const guest = await polonius.call('POST', '/invites', { invitee_emails: 'x@example.net', stream_ids: [] });
  t.same([guest.status, guest.body.msg], [400, 'Not allowed for guest users']);
  t.same((await iago.call('DELETE', '/invites/999')).body.msg, 'No such invitation');
  t.same((await iago.call('GET', '/invites')).body.invites, [], 'no invitation stored');
  await s.server.mailer.idle();
  t.equal(smtp.received.length, 0, 'no mail sent');
});
