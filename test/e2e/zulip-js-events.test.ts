/**
 * zulip-js's event loop, `callOnEachEvent(cb, ['message'])`, against a real server process:
 * hamlet's loop receives a message othello sends. zulip-js has no way to stop that loop (it polls
 * forever), so it runs in a child Node process that exits as soon as the event arrives and is
 * killed after a deadline otherwise.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { DEFAULT_DEMO_PASSWORD, startServer } from '../support/server-process.js';

const require = createRequire(import.meta.url);
const ZULIP_JS = require.resolve('zulip-js');
const DEADLINE_MS = 20_000;

/** The child: hamlet polls; othello sends (repeatedly until seen); print the event and exit. */
const CHILD = `
const zulip = require(process.env.ZULIP_JS);
const [realm, password, marker] = process.argv.slice(1);
setTimeout(() => { console.log('TIMEOUT'); process.exit(2); }, ${DEADLINE_MS - 2000});
(async () => {
  const hamlet = await zulip({ username: 'hamlet@zulip.com', password, realm });
  const othello = await zulip({ username: 'othello@zulip.com', password, realm });
  // zulip-js registers through its own internal queues object, so there is no hook for "registered":
  // othello sends after a pause, and again every 1.5 s until hamlet's loop has seen one.
  // The send reply and hamlet's event race (two HTTP responses); exit only after both.
  let lastSend = Promise.resolve();
  const send = () => (lastSend = othello.messages
    .send({ type: 'stream', to: 'Verona', topic: 'zulip-js events', content: marker })
    .then((r) => console.log('SENT ' + JSON.stringify(r))));
  setTimeout(send, 1000);
  setInterval(send, 1500);
  hamlet.callOnEachEvent((event) => {
    if (event.type === 'message' && String(event.message.content).includes(marker)) {
      console.log('EVENT ' + JSON.stringify(event));
      lastSend.then(() => process.exit(0));
    }
  }, ['message']);
})().catch((error) => { console.log('ERROR ' + (error && error.stack || error)); process.exit(1); });
`;

t.test('zulip-js callOnEachEvent receives a message sent by another user', async (t) => {
  const server = await startServer({ t });
  const marker = `zulip-js live ${process.pid}-${Date.now()}`;
  const child = spawn(process.execPath, ['-e', CHILD, server.url, DEFAULT_DEMO_PASSWORD, marker], {
    env: { ...process.env, ZULIP_JS, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  t.teardown(() => {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);

  t.equal(code, 0, 'the child saw the message event and exited 0', { stdout, stderr });
  const sent = [...stdout.matchAll(/^SENT (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { result: string; id: number });
  t.ok(sent.length > 0, 'othello sent the message', { stdout });
  const eventLine = /^EVENT (.*)$/m.exec(stdout);
  t.ok(eventLine, 'hamlet received a message event', { stdout });
  if (sent.length === 0 || !eventLine) return;
  const event = JSON.parse(eventLine[1]!) as {
    id: number;
    type: string;
    flags: string[];
    message: Record<string, unknown>;
  };
  t.ok(sent.every((r) => r.result === 'success'), 'every send succeeded', { sent });
  t.type(event.id, 'number', 'the event has an integer id');
  t.ok(sent.some((r) => r.id === event.message.id), 'the event carries one of the sent messages', { sent });
  t.same(event.flags, [], 'not read, not mentioned');
  t.match(event.message, {
    type: 'stream',
    display_recipient: 'Verona',
    subject: 'zulip-js events',
    sender_email: 'othello@zulip.com',
    // zulip-js registers without apply_markdown, whose /register default is false: raw Markdown.
    content: marker,
  });
});
