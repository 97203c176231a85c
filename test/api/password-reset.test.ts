/**
 * Password reset over real HTTP and real SMTP (Zulip's `accounts/password/reset/` pages, Django's
 * PasswordResetView / PasswordResetConfirmView with ZulipPasswordResetForm): the same answer for
 * known and unknown addresses, the mailed one-time link, the new-password form's errors, sessions
 * ended, the old password refused; CSRF on both forms; the token's expiry and forgery checks.
 */
import t from 'tap';
import { startTestServer, DEMO_PASSWORD } from '../support/test-server.js';
import { Browser } from '../support/browser-session.js';
import { parseMail, startSmtpFixture } from '../support/smtp-fixture.js';
import { checkResetToken, decodeUid, encodeUid, makeResetToken, PASSWORD_RESET_VALID_SECONDS } from '../../src/auth/password-reset-token.js';

const NEW_PASSWORD = 'a-much-better-passphrase-42';

t.test('request → mail → link → new password; sessions end; the link works once', async (t) => {
  const smtp = await startSmtpFixture(t);
  const s = await startTestServer(t, { smtpUrl: smtp.url });
  const session = new Browser(s.url);
  t.equal((await session.logIn('hamlet@zulip.com', DEMO_PASSWORD)).status, 302, 'a web session exists before the reset');
  t.equal((await session.json('GET', '/users/me')).status, 200);
  const hamlet = await s.as('hamlet@zulip.com');

  const b = new Browser(s.url);
  t.match((await b.fetch('GET', '/login/')).text, /<a href="\/accounts\/password\/reset\/">Forgot your password\?<\/a>/, 'the login page links here');
  const form = await b.fetch('GET', '/accounts/password/reset/');
  t.equal(form.status, 200);
  t.match(form.text, /<input id="id_email" name="email" type="email"/);
  t.match(form.text, /name="csrfmiddlewaretoken" value="[A-Za-z0-9]{32}"/);
  const noCsrf = await b.fetch('POST', '/accounts/password/reset/', { form: { email: 'hamlet@zulip.com' } });
  t.equal(noCsrf.status, 403, 'CSRF checked');

  const known = await b.fetch('POST', '/accounts/password/reset/', { form: { csrfmiddlewaretoken: b.csrf(), email: 'Hamlet@zulip.com' } });
  const unknown = await b.fetch('POST', '/accounts/password/reset/', { form: { csrfmiddlewaretoken: b.csrf(), email: 'nobody@example.net' } });
  t.same([known.status, known.headers.get('location')], [302, '/accounts/password/reset/done/']);
  t.same([unknown.status, unknown.headers.get('location'), unknown.text], [known.status, known.headers.get('location'), known.text], 'the same answer either way');
  t.match((await b.fetch('GET', '/accounts/password/reset/done/')).text, /Check your email/);

  const mails = await smtp.waitFor(2);
  const toHamlet = mails.find((m) => m.to[0] === 'hamlet@zulip.com')!;
  const toNobody = mails.find((m) => m.to[0] === 'nobody@example.net')!;
  t.match(toNobody.text, /you do not have an active account/, 'an unknown address is told there is no account');
  t.notMatch(toNobody.text, /password\/reset\/[^/\s]+\//, 'and gets no link');
  t.equal(toHamlet.subject, 'Zulip password reset');
  const link = /(http:\/\/\S+\/accounts\/password\/reset\/[A-Za-z0-9_-]+\/[0-9a-z]+-[0-9a-f]+\/)/.exec(toHamlet.text)?.[1];
  t.ok(link, 'the mail has the link');
  const path = new URL(link!).pathname;

  const confirm = await b.fetch('GET', path);
  t.equal(confirm.status, 200);
  t.match(confirm.text, /name="new_password1"/);
  const noToken = await b.fetch('POST', path, { form: { new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD } });
  t.equal(noToken.status, 403, 'CSRF checked on the confirm form');
  const mismatch = await b.fetch('POST', path, { form: { csrfmiddlewaretoken: b.csrf(), new_password1: NEW_PASSWORD, new_password2: 'other' } });
  t.same([mismatch.status, /role="alert">([^<]*)/.exec(mismatch.text)?.[1]], [400, 'The two password fields didn\u2019t match.']);
  const weak = await b.fetch('POST', path, { form: { csrfmiddlewaretoken: b.csrf(), new_password1: 'abc', new_password2: 'abc' } });
  t.same([weak.status, /role="alert">([^<]*)/.exec(weak.text)?.[1]], [400, 'The password is too weak.']);
  const oldStill = await s.request('POST', '/fetch_api_key', { params: { username: 'hamlet@zulip.com', password: DEMO_PASSWORD } });
  t.equal(oldStill.status, 200, 'failed attempts changed nothing');

  const done = await b.fetch('POST', path, { form: { csrfmiddlewaretoken: b.csrf(), new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD } });
  t.same([done.status, done.headers.get('location')], [302, '/accounts/password/done/']);
  t.match((await b.fetch('GET', '/accounts/password/done/')).text, /Password reset complete/);
  t.equal((await session.json('GET', '/users/me')).status, 401, 'the earlier web session has ended');
  const oldLogin = await s.request('POST', '/fetch_api_key', { params: { username: 'hamlet@zulip.com', password: DEMO_PASSWORD } });
  t.equal(oldLogin.status, 401, 'the old password no longer works');
  const newLogin = await s.request('POST', '/fetch_api_key', { params: { username: 'hamlet@zulip.com', password: NEW_PASSWORD } });
  t.equal(newLogin.status, 200, 'the new one does');
  t.equal((await hamlet.call('GET', '/users/me')).status, 200, 'the API key is unchanged (as in Zulip)');
  t.equal((await b.fetch('GET', path)).status, 404, 'the link is used up');
  t.equal((await b.fetch('POST', path, { form: { csrfmiddlewaretoken: b.csrf(), new_password1: 'x-another-passphrase-99', new_password2: 'x-another-passphrase-99' } })).status, 404);
});

t.test('forged, malformed and foreign links are invalid; bots get no link', async (t) => {
  const s = await startTestServer(t);
  const b = new Browser(s.url);
  const hamlet = await s.as('hamlet@zulip.com');
  for (const bad of [`/accounts/password/reset/${encodeUid(hamlet.userId)}/abc-0123/`, `/accounts/password/reset/!!/zz-00/`, `/accounts/password/reset/${encodeUid(99999)}/${makeResetToken('x', { realmId: 1, userId: 99999, email: 'a', passwordHash: null }, Date.now() / 1000)}/`]) {
    const r = await b.fetch('GET', bad);
    t.same([r.status, /Invalid link/.test(r.text)], [404, true], bad);
  }
  await b.fetch('GET', '/accounts/password/reset/');
  await b.fetch('POST', '/accounts/password/reset/', { form: { csrfmiddlewaretoken: b.csrf(), email: 'default-bot@zulip.com' } });
  await s.server.mailer.idle();
  const { readdirSync, readFileSync } = await import('node:fs');
  const outbox = `${s.dataDir}/outbox`;
  const texts = readdirSync(outbox).map((f) => parseMail(readFileSync(`${outbox}/${f}`, 'utf8')).text);
  t.equal(texts.length, 1, 'outbox mode: the mail is a file');
  t.match(texts[0], /do not have an active account/, 'a bot gets no reset link');
  t.equal((await b.fetch('PUT', '/accounts/password/reset/')).status, 405);
});

t.test('per-address limit: at most 2 mails an hour, the answer unchanged', async (t) => {
  const s = await startTestServer(t);
  const b = new Browser(s.url);
  await b.fetch('GET', '/accounts/password/reset/');
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push((await b.fetch('POST', '/accounts/password/reset/', { form: { csrfmiddlewaretoken: b.csrf(), email: 'othello@zulip.com' } })).status);
  t.same(answers, [302, 302, 302, 302]);
  await s.server.mailer.idle();
  t.equal(s.server.mailer.stats.queued, 2);
});

t.test('tokens: bound to the password hash, address and time; expire after 24 hours', async (t) => {
  const subject = { realmId: 1, userId: 7, email: 'a@example.net', passwordHash: '$argon2id$old' };
  const now = 1_800_000_000;
  const token = makeResetToken('secret', subject, now);
  t.ok(checkResetToken('secret', subject, token, now + 10));
  t.ok(checkResetToken('secret', subject, token, now + PASSWORD_RESET_VALID_SECONDS - 1));
  t.notOk(checkResetToken('secret', subject, token, now + PASSWORD_RESET_VALID_SECONDS + 1), 'expired');
  t.notOk(checkResetToken('secret', { ...subject, passwordHash: '$argon2id$new' }, token, now), 'used: the password changed');
  t.notOk(checkResetToken('secret', { ...subject, email: 'b@example.net' }, token, now), 'address changed');
  t.notOk(checkResetToken('other', subject, token, now), 'another server secret');
  t.notOk(checkResetToken('secret', subject, token.replace(/.$/, (c) => (c === '0' ? '1' : '0')), now), 'tampered');
  t.notOk(checkResetToken('secret', subject, 'garbage', now));
  t.equal(decodeUid(encodeUid(1234)), 1234);
  t.equal(decodeUid('!!'), null);
  t.equal(decodeUid(Buffer.from('0').toString('base64url')), null);
});
