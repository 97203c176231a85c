/**
 * A real SMTP server on 127.0.0.1 (the npm `smtp-server` package) for mail tests: it accepts
 * every mail (optionally requiring a user and password), keeps what arrived, and decodes enough
 * of each message (headers, quoted-printable text body) for assertions. Closed with the test.
 */
import { createServer as createNetServer } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail as received. */
export interface ReceivedMail {
  /** MAIL FROM. */
  from: string;
  /** RCPT TO addresses. */
  to: string[];
  /** The whole message as sent. */
  raw: string;
  subject: string;
  /** The text/plain body, transfer-decoded. */
  text: string;
}

export interface SmtpFixture {
  port: number;
  /** `smtp://user:pass@127.0.0.1:port` (credentials when required). */
  url: string;
  received: ReceivedMail[];
  /** Resolves once `count` mails have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** A TCP port that was free a moment ago (for a server started later: "SMTP down" tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const soft = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i]!;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Headers (unfolded, lower-case names) and the text/plain body of a single-part or multipart mail. */
export function parseMail(raw: string): { headers: Record<string, string>; text: string } {
  const normal = raw.replace(/\r\n/g, '\n');
  const split = normal.indexOf('\n\n');
  const head = normal.slice(0, split).replace(/\n[ \t]+/g, ' ');
  let body = normal.slice(split + 2);
  const headers: Record<string, string> = {};
  for (const line of head.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let encoding = headers['content-transfer-encoding'] ?? '';
  const boundary = /boundary="?([^";]+)"?/.exec(headers['content-type'] ?? '')?.[1];
  if (boundary !== undefined) {
    const part = body.split(`--${boundary}`).find((p) => /content-type:\s*text\/plain/i.test(p)) ?? '';
    const partSplit = part.indexOf('\n\n');
    encoding = /content-transfer-encoding:\s*(\S+)/i.exec(part.slice(0, partSplit))?.[1] ?? '';
    body = part.slice(partSplit + 2);
  }
  if (/quoted-printable/i.test(encoding)) body = decodeQuotedPrintable(body);
  else if (/base64/i.test(encoding)) body = Buffer.from(body, 'base64').toString('utf8');
  return { headers, text: body };
}

/** Starts the server on `port` (default: any free one). */
export async function startSmtpFixture(
  t: { teardown(fn: () => unknown): void },
  opts: { port?: number; user?: string; pass?: string } = {},
): Promise<SmtpFixture> {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const auth = opts.user !== undefined;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _session, callback) {
      if (a.username === opts.user && a.password === opts.pass) callback(null, { user: a.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const { headers, text } = parseMail(raw);
        received.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: headers.subject ?? '',
          text,
        });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
  });
  let closed = false;
  const close = () =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      closed = true;
      server.close(() => resolve());
    });
  t.teardown(close);
  const credentials = auth ? `${encodeURIComponent(opts.user!)}:${encodeURIComponent(opts.pass ?? '')}@` : '';
  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    close,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`waited ${timeoutMs} ms for ${count} mails, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 500));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received.slice(0, count);
    },
  };
}
