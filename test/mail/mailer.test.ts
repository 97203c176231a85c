/**
 * The outbound mail queue (src/mail/mailer.ts): the outbox folder without SMTP (atomic `.eml`
 * files), real SMTP delivery to a server on 127.0.0.1, SMTP down (queued, retried with backoff,
 * delivered once the server is up; the sender never waits), giving up after the attempts, the
 * queue bound, and the same through a running server's `POST /invites`.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mailer, defaultFromAddress, smtpUrlProblem } from '../../src/mail/mailer.js';
import { freePort, parseMail, startSmtpFixture } from '../support/smtp-fixture.js';
import { startTestServer } from '../support/test-server.js';

const tempDir = (t: { teardown(fn: () => unknown): void }) => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-mail-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const mail = (to: string, subject = 'Hello') => ({ kind: 'test', to: [to], subject, text: `Body for ${to}: https://example.org/a/very/long/link/${'x'.repeat(90)}\n` });

/** Polls `check` every 20 ms until true (at most `ms`). */
async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

t.test('settings helpers', async (t) => {
  t.equal(defaultFromAddress('https://chat.example.com:8443'), 'noreply@chat.example.com');
  t.equal(defaultFromAddress('http://[::1]:9991'), 'noreply@::1');
  t.equal(smtpUrlProblem('smtp://u:p@mail.example.com:587'), null);
  t.equal(smtpUrlProblem('smtps://mail.example.com'), null);
  t.match(smtpUrlProblem('http://mail.example.com'), /smtp:\/\/ or smtps:\/\//);
  t.match(smtpUrlProblem('not a url'), /not a URL/);
});

t.test('without SMTP: one .eml file per mail in the outbox, written whole', async (t) => {
  const dir = join(tempDir(t), 'outbox');
  const mailer = new Mailer({ smtpUrl: undefined, from: 'noreply@example.org', outboxDir: dir });
  t.teardown(() => mailer.close());
  t.equal(mailer.mode, 'outbox');
  t.ok(mailer.send(mail('a@example.net', 'First')));
  t.ok(mailer.send(mail('b@example.net', 'Second')));
  await mailer.idle();
  const files = readdirSync(dir).sort();
  t.equal(files.length, 2);
  t.ok(files.every((f) => f.endsWith('.eml')), 'only .eml files (no temporary file left)');
  const parsed = files.map((f) => parseMail(readFileSync(join(dir, f), 'utf8')));
  t.same(parsed.map((p) => p.headers.subject).sort(), ['First', 'Second']);
  t.same(parsed.map((p) => p.headers.to).sort(), ['a@example.net', 'b@example.net']);
  t.ok(parsed.every((p) => p.headers.from === 'noreply@example.org'));
  t.match(parsed[0]!.text, /x{90}/, 'the body, decoded, keeps the long link whole');
  t.same(mailer.stats, { queued: 2, sent: 2, retried: 0, failed: 0, refused: 0 });
  const { scrapeMetrics } = await import('../../src/metrics.js');
  t.match((await scrapeMetrics()).body, /parley_mail_total\{outcome="sent",kind="test"\} [1-9]/, 'counted in the metrics');
});

t.test('close finishes the mail being written', async (t) => {
  const dir = join(tempDir(t), 'outbox');
  const mailer = new Mailer({ smtpUrl: undefined, from: 'n@example.org', outboxDir: dir });
  mailer.send(mail('a@example.net'));
  await mailer.close();
  t.equal(readdirSync(dir).length, 1, 'written before close resolved');
  t.equal(mailer.stats.sent, 1);
});

t.test('SMTP down: queued and retried with backoff, delivered once the server is up', async (t) => {
  const port = await freePort();
  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'noreply@example.org', outboxDir: tempDir(t), retryBaseMs: 50, retryMaxMs: 200, maxAttempts: 100 });
  t.teardown(() => mailer.close());
  const started = Date.now();
  t.ok(mailer.send(mail('late@example.net')), 'accepted at once');
  t.ok(Date.now() - started < 50, 'send never waits for SMTP');
  t.ok(await until(() => mailer.stats.retried >= 2), 'retried while the server is down');
  t.equal(mailer.stats.sent, 0);
  t.equal(mailer.pending, 1, 'still queued');
  const smtp = await startSmtpFixture(t, { port });
  const [got] = await smtp.waitFor(1);
  t.same(got!.to, ['late@example.net']);
  await mailer.idle();
  t.equal(mailer.stats.sent, 1);
  t.equal(mailer.stats.failed, 0);
});

t.test('gives up after maxAttempts (wrong password); later mail still goes', async (t) => {
  const smtp = await startSmtpFixture(t, { user: 'u', pass: 'right' });
  const wrong = new Mailer({ smtpUrl: `smtp://u:wrong@127.0.0.1:${smtp.port}`, from: 'n@example.org', outboxDir: tempDir(t), retryBaseMs: 20, maxAttempts: 3 });
  t.teardown(() => wrong.close());
  wrong.send(mail('x@example.net'));
  await wrong.idle();
  t.same([wrong.stats.sent, wrong.stats.retried, wrong.stats.failed], [0, 2, 1], '3 attempts, then dropped');
  t.equal(smtp.received.length, 0);
  const right = new Mailer({ smtpUrl: smtp.url, from: 'n@example.org', outboxDir: tempDir(t) });
  t.teardown(() => right.close());
  right.send(mail('y@example.net'));
  await smtp.waitFor(1);
  t.same(smtp.received[0]!.to, ['y@example.net'], 'AUTH with the URL\'s credentials');
});

t.test('the queue is bounded; a closed mailer refuses mail', async (t) => {
  const port = await freePort();
  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'n@example.org', outboxDir: tempDir(t), maxQueued: 2, retryBaseMs: 60_000 });
  t.same([mailer.send(mail('1@example.net')), mailer.send(mail('2@example.net')), mailer.send(mail('3@example.net'))], [true, true, false]);
  t.equal(mailer.send({ ...mail('z@example.net'), to: [] }), false, 'no recipient');
  t.equal(mailer.stats.refused, 2);
  await mailer.close();
  t.equal(mailer.send(mail('4@example.net')), false);
  await mailer.idle();
});

t.test('a running server: outbox by default; with SMTP down the request is answered and the mail follows', async (t) => {
  const s = await startTestServer(t);
  t.equal(s.server.mailer.mode, 'outbox');
  const iago = await s.as('iago@zulip.com');
  const r = await iago.call('POST', '/invites', { invitee_emails: 'out@example.net', stream_ids: [] });
  t.equal(r.status, 200);
  await s.server.mailer.idle();
  const outbox = join(s.dataDir, 'outbox');
  const files = readdirSync(outbox);
  t.equal(files.length, 1);
  const eml = parseMail(readFileSync(join(outbox, files[0]!), 'utf8'));
  t.equal(eml.headers.to, 'out@example.net');
  t.match(eml.text, /\/join\/[a-z2-7]{24}\//);

  const port = await freePort();
  const down = await startTestServer(t, { smtpUrl: `smtp://127.0.0.1:${port}` }, { mail: { retryBaseMs: 50, retryMaxMs: 200, maxAttempts: 100 } });
  const admin = await down.as('iago@zulip.com');
  const answered = await admin.call('POST', '/invites', { invitee_emails: 'queued@example.net', stream_ids: [] });
  t.equal(answered.status, 200, 'answered while SMTP is down');
  t.ok(await until(() => down.server.mailer.stats.retried >= 1), 'retrying');
  const smtp = await startSmtpFixture(t, { port });
  const [got] = await smtp.waitFor(1);
  t.same(got!.to, ['queued@example.net']);
});

t.test('configuration: PARLEY_SMTP_URL / --email-from parsed; a bad SMTP URL refused at start', async (t) => {
  const { parseConfig, DEFAULT_CONFIG, ConfigError } = await import('../../src/config.js');
  const { config } = parseConfig(['--email-from', 'chat@example.org'], { PARLEY_SMTP_URL: 'smtp://u:p@127.0.0.1:2525' });
  t.same([config.smtpUrl, config.emailFrom], ['smtp://u:p@127.0.0.1:2525', 'chat@example.org']);
  const { startServer } = await import('../../src/main.js');
  const dataDir = tempDir(t);
  const error = await startServer({ ...DEFAULT_CONFIG, port: 0, dataDir, smtpUrl: 'http://mail.example.org' }).catch((e: unknown) => e);
  t.ok(error instanceof ConfigError, 'a usage error (the CLI exits 2)');
  await t.rejects(startServer({ ...DEFAULT_CONFIG, port: 0, dataDir, smtpUrl: 'http://mail.example.org' }), /--smtp-url must start with smtp:\/\/ or smtps:\/\//);
});
