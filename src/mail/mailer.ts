/**
 * The one way mail leaves the server (Zulip sends through Django's SMTP backend from its
 * `email_senders` queue worker, zerver/worker/email_senders.py): a bounded in-memory queue worked
 * off in the background, so no request and no realm actor ever waits for SMTP.
 *
 * - With an SMTP URL (`--smtp-url smtp://user:pass@host:port`, `smtps://` for implicit TLS), each
 *   mail goes out through nodemailer's SMTP transport. A failure (server down, 4xx reply) is retried
 *   with exponential backoff (`retryBaseMs` · 2^attempt, capped at `retryMaxMs`), at most
 *   `maxAttempts` times, then dropped with an error log line.
 * - Without one, each mail is written to `<outboxDir>/<time>-<seq>.eml` (the whole RFC 5322
 *   message, as nodemailer would send it), atomically and durably (temp file + rename), and logged,
 *   so development and tests see every mail.
 *
 * Callers enqueue only after the record that caused the mail is durable (the command's reply has
 * arrived). A full queue refuses the mail (`send` returns false, logged): mail is best effort, as
 * in Zulip, and never back-pressures a request.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { writeFileDurably } from '../storage/durable-file.js';
import { log } from '../log.js';
import { mailOutcomes } from '../metrics.js';

/** Longest wait at `close` for the mail being sent, ms. */
const CLOSE_WAIT_MS = 5000;

/** One outgoing mail (the From address is the mailer's). */
export interface OutgoingEmail {
  /** Recipient addresses. */
  to: string[];
  subject: string;
  /** Plain-text body. */
  text: string;
  /** Optional HTML alternative. */
  html?: string;
  /** What kind of mail this is, for logs (`invitation`, `password_reset`, `missed_message`). */
  kind: string;
}

/** Mailer settings. */
export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; undefined = write to `outboxDir`. */
  smtpUrl: string | undefined;
  /** The From address (`noreply@<host>` by default, see `defaultFromAddress`). */
  from: string;
  /** Folder of the `.eml` files when there is no SMTP URL (created on first use). */
  outboxDir: string;
  /** Largest number of mails waiting (default 1000). */
  maxQueued?: number;
  /** Attempts per mail through SMTP, the first included (default 6). */
  maxAttempts?: number;
  /** First retry delay in ms (default 2000), doubled each attempt. */
  retryBaseMs?: number;
  /** Longest retry delay in ms (default 5 minutes). */
  retryMaxMs?: number;
  /** SMTP connection and greeting timeouts in ms (default 10 s). */
  smtpTimeoutMs?: number;
}

/** Counters since start (for tests, logs and health). */
export interface MailerStats {
  queued: number;
  sent: number;
  retried: number;
  failed: number;
  refused: number;
}

interface Job {
  mail: OutgoingEmail;
  attempts: number;
}

/** The From address used when `--email-from` is not given: `noreply@<host of the organization URL>`. */
export function defaultFromAddress(rootUrl: string): string {
  let host = 'localhost';
  try {
    host = new URL(rootUrl).hostname || host;
  } catch {
    // a malformed URL was refused by the config already; keep the fallback
  }
  return `noreply@${host.replace(/^\[|\]$/g, '')}`;
}

/** Checks an SMTP URL; returns a message for a bad one, null when usable. */
export function smtpUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a URL: '${url}'`;
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') return `must start with smtp:// or smtps://, got '${url}'`;
  if (parsed.hostname === '') return `has no host: '${url}'`;
  return null;
}

/** Host, port, TLS and credentials of an `smtp://` / `smtps://` URL (port default 587 / 465). */
function smtpOptions(url: string): { host: string; port: number; secure: boolean; auth?: { user: string; pass: string } } {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  const port = u.port === '' ? (secure ? 465 : 587) : Number(u.port);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (u.username === '') return { host, port, secure };
  return { host, port, secure, auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } };
}

/** The outbound mail queue (see the module comment). */
export class Mailer {
  private readonly queue: Job[] = [];
  /** Created on first use: nodemailer is loaded only when a mail is sent (faster start-up). */
  private transport: Transporter | null = null;
  private readonly outbox: boolean;
  private readonly maxQueued: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private working = false;
  /** The worker loop in progress (awaited, bounded, by `close`). */
  private workDone: Promise<void> = Promise.resolve();
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private waiters: Array<() => void> = [];
  private seq = 0;
  readonly stats: MailerStats = { queued: 0, sent: 0, retried: 0, failed: 0, refused: 0 };

  constructor(private readonly options: MailerOptions) {
    this.outbox = options.smtpUrl === undefined;
    this.maxQueued = options.maxQueued ?? 1000;
    this.maxAttempts = options.maxAttempts ?? 6;
    this.retryBaseMs = options.retryBaseMs ?? 2000;
    this.retryMaxMs = options.retryMaxMs ?? 5 * 60_000;
  }

  private async getTransport(): Promise<Transporter> {
    if (this.transport !== null) return this.transport;
    const { default: nodemailer } = await import('nodemailer');
    const timeout = this.options.smtpTimeoutMs ?? 10_000;
    this.transport = this.outbox
      ? nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
      : nodemailer.createTransport({ ...smtpOptions(this.options.smtpUrl!), connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout });
    return this.transport;
  }

  /** Where mail goes: `smtp` or `outbox`. */
  get mode(): 'smtp' | 'outbox' {
    return this.outbox ? 'outbox' : 'smtp';
  }

  /** The From address. */
  get from(): string {
    return this.options.from;
  }

  /** Mails waiting (queued or between retries). */
  get pending(): number {
    return this.queue.length + (this.working ? 1 : 0);
  }

  /**
   * Enqueues `mail`; returns false (and logs) when the queue is full, the mailer is closed, or the
   * mail has no recipient. Never throws, never waits.
   */
  send(mail: OutgoingEmail): boolean {
    if (this.closed || mail.to.length === 0 || this.queue.length >= this.maxQueued) {
      this.stats.refused++;
      mailOutcomes.inc({ outcome: 'refused', kind: mail.kind });
      log.warn({ event: 'mail', kind: mail.kind, queued: this.queue.length, closed: this.closed }, 'mail not queued');
      return false;
    }
    this.queue.push({ mail, attempts: 0 });
    this.stats.queued++;
    this.kick();
    return true;
  }

  /** Resolves when nothing is queued or being sent (a mail waiting for a retry counts as queued). */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Stops retrying and refuses new mail; the mail being sent is finished (waited for at most
   * `CLOSE_WAIT_MS`), mails still queued are dropped (logged).
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.workDone, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    const dropped = this.queue.length - (this.working ? 1 : 0);
    if (dropped > 0) log.warn({ event: 'mail', dropped }, 'mail queue dropped at shutdown');
    this.queue.length = 0;
    this.transport?.close();
    this.notifyIdle();
  }

  private kick(): void {
    if (this.working || this.retryTimer !== null || this.closed) return;
    this.working = true;
    this.workDone = this.work();
  }

  private async work(): Promise<void> {
    while (!this.closed && this.queue.length > 0) {
      const job = this.queue[0]!;
      const ok = await this.deliver(job);
      if (ok) {
        this.queue.shift();
        continue;
      }
      if (this.closed) break;
      job.attempts++;
      if (job.attempts >= this.maxAttempts) {
        this.queue.shift();
        this.stats.failed++;
        mailOutcomes.inc({ outcome: 'failed', kind: job.mail.kind });
        log.error({ event: 'mail', kind: job.mail.kind, attempts: job.attempts }, 'mail given up after repeated SMTP failures');
        continue;
      }
      // Keep the order: the head waits for its retry and everything behind it waits too.
      this.stats.retried++;
      mailOutcomes.inc({ outcome: 'retried', kind: job.mail.kind });
      const delay = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (job.attempts - 1));
      this.working = false;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.kick();
      }, delay);
      this.retryTimer.unref();
      return;
    }
    this.working = false;
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if (this.pending !== 0 && !this.closed) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** One attempt; true when the mail is sent (or written to the outbox). */
  private async deliver(job: Job): Promise<boolean> {
    const { mail } = job;
    const message = { from: this.options.from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html !== undefined && { html: mail.html }) };
    try {
      const info = await (await this.getTransport()).sendMail(message);
      if (this.outbox) {
        await mkdir(this.options.outboxDir, { recursive: true });
        const name = `${Date.now()}-${process.pid}-${++this.seq}.eml`;
        const path = join(this.options.outboxDir, name);
        await writeFileDurably(path, (info.message as Buffer).toString('utf8'));
        log.info({ event: 'mail', kind: mail.kind, to: mail.to, subject: mail.subject, path }, 'mail written to the outbox');
      } else {
        log.info({ event: 'mail', kind: mail.kind, to: mail.to, subject: mail.subject, attempts: job.attempts + 1 }, 'mail sent');
      }
      this.stats.sent++;
      mailOutcomes.inc({ outcome: 'sent', kind: mail.kind });
      return true;
    } catch (error) {
      log.warn({ event: 'mail', kind: mail.kind, attempts: job.attempts + 1, err: (error as Error).message }, 'mail delivery failed');
      return false;
    }
  }
}
