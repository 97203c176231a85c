/**
 * Outgoing webhook bots end to end (https://zulip.com/api/outgoing-webhooks; Zulip's
 * zerver/lib/outgoing_webhook.py, zerver/tests/test_outgoing_webhook_system.py): a real parley
 * server and a real HTTP service on 127.0.0.1 (the loopback test hook), checking the request
 * Zulip's generic and Slack interfaces send, the bot's reply, `response_not_required`, and the
 * owner's notices for an error status and for a service that keeps failing (after the retries).
 */
import t, { type Test } from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type Caller } from '../support/test-server.js';

type Json = Record<string, any>;
interface Received { path: string; contentType: string; body: string }
type Responder = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback HTTP service whose answer per path the test sets; it records every request. */
async function service(t: Test): Promise<{ url: string; received: Received[]; on(path: string, responder: Responder): void }> {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ path: req.url!, contentType: String(req.headers['content-type']), body });
      (responders.get(req.url!) ?? ((_q, r) => r.end('{}')))(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, on: (path, r) => responders.set(path, r) };
}

const json = (value: unknown, status = 200): Responder => (_req, res) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
};

/** Polls until `find` returns something (bounded: 200 tries, 25 ms apart). */
async function eventually<T>(find: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = await find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out waiting');
}

async function latest(caller: Caller, narrow: unknown[] = []): Promise<Json[]> {
  return (await caller.call('GET', '/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow, apply_markdown: false })).body.messages as Json[];
}

t.test('outgoing webhook bots: requests, replies, failures', async (t) => {
  const hook = await service(t);
  const s = await startTestServer(t, {}, { outgoingWebhooks: { allowLoopback: true, retryDelayMs: 10, timeoutSeconds: 5 } });
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const created = await hamlet.call('POST', '/bots', { full_name: 'Echo Bot', short_name: 'echo', bot_type: 3, payload_url: JSON.stringify(`${hook.url}/generic`) });
  const botId = created.body.user_id as number;
  const token = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots.find((b: Json) => b.user_id === botId).services[0].token;

  // A channel mention: Zulip's generic payload; the answer's content is the bot's reply.
  hook.on('/generic', json({ content: 'pong from **echo**' }));
  const sent = await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'bots', content: '@**Echo Bot** ping' });
  t.equal(sent.body.result, 'success');
  const reply = await eventually(async () => (await latest(othello, [{ operator: 'topic', operand: 'bots' }])).find((m) => m.sender_id === botId));
  t.equal(reply.content, 'pong from **echo**');
  t.equal(reply.client, 'OutgoingWebhookResponse');
  t.equal(reply.display_recipient, 'Verona');
  t.equal(hook.received.length, 1);
  const request = JSON.parse(hook.received[0]!.body) as Json;
  t.equal(hook.received[0]!.contentType, 'application/json');
  t.match(request, {
    data: '@**Echo Bot** ping',
    token,
    trigger: 'mention',
    bot_email: 'echo-bot@localhost',
    bot_full_name: 'Echo Bot',
    message: { id: sent.body.id, sender_id: othello.userId, content: '@**Echo Bot** ping', rendered_content: /user-mention/, type: 'stream', subject: 'bots', display_recipient: 'Verona', content_type: 'text/x-markdown' },
  });
  t.notOk((await latest(othello)).some((m) => m.sender_id === botId && m.id !== reply.id), 'the bot\'s own reply triggers nothing');

  // A silent mention, or a message that only names the bot, triggers nothing; a DM does.
  await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'bots', content: '@_**Echo Bot** quiet' });
  hook.on('/generic', json({ response_not_required: true, content: 'never shown' }));
  await othello.call('POST', '/messages', { type: 'private', to: [botId], content: 'hello bot' });
  const dm = await eventually(() => hook.received.find((r) => JSON.parse(r.body).trigger === 'direct_message'));
  t.match(JSON.parse(dm.body), { data: 'hello bot', message: { type: 'private', display_recipient: [{ id: Number }, { id: Number }] } });
  t.equal(hook.received.length, 2, 'the silent mention did not call the service');
  hook.on('/generic', json({ response_string: 'second' }));
  await othello.call('POST', '/messages', { type: 'private', to: [botId], content: 'again' });
  const dmReplies = await eventually(async () => {
    const found = (await latest(othello, [{ operator: 'dm', operand: [botId] }])).filter((m) => m.sender_id === botId);
    return found.length > 0 ? found : undefined;
  });
  t.same(dmReplies.map((m) => m.content), ['second'], 'response_not_required posted nothing');

  // An error status: the owner (hamlet) gets a DM from the bot with the status and the payload.
  hook.on('/generic', json('oops', 500));
  const failing = await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'bots', content: '@**Echo Bot** break' });
  const notice = await eventually(async () => (await latest(hamlet, [{ operator: 'dm', operand: [botId] }])).find((m) => /status code/.test(m.content)));
  t.equal(notice.content, [
    `[A message](${s.url}/#narrow/channel/${(await othello.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id}-Verona/topic/bots/near/${failing.body.id}) to your bot @_**Echo Bot** triggered an outgoing webhook.`,
    'The webhook got a response with status code *500*.',
    'The response contains the following payload:',
    '```',
    "b'oops'",
    '```',
  ].join('\n'));

  // Invalid JSON in a 2xx answer: "Failure! ..." where the message was, and the owner is told.
  hook.on('/generic', json('not json'));
  await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'json', content: '@**Echo Bot** json' });
  const invalid = await eventually(async () => (await latest(othello, [{ operator: 'topic', operand: 'json' }])).find((m) => m.sender_id === botId));
  t.equal(invalid.content, 'Failure! Invalid JSON in response');

  // A service that drops the connection: 1 try + 3 retries, then the failure notices.
  hook.on('/generic', (req) => req.socket.destroy());
  const before = hook.received.length;
  await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'down', content: '@**Echo Bot** anyone?' });
  const unavailable = await eventually(async () => (await latest(othello, [{ operator: 'topic', operand: 'down' }])).find((m) => m.sender_id === botId));
  t.equal(unavailable.content, 'Failure! Bot is unavailable');
  t.equal(hook.received.length - before, 4, 'four attempts');
  const downNotice = await eventually(async () => (await latest(hamlet, [{ operator: 'dm', operand: [botId] }])).find((m) => /connection error/.test(m.content)));
  t.match(downNotice.content, /\nThe message `@\*\*Echo Bot\*\* anyone\?` resulted in a connection error when sending a request to an outgoing webhook!/);

  // The Slack interface: form fields, the answer's `text`; DMs are refused.
  t.equal((await hamlet.call('PATCH', `/bots/${botId}`, { service_payload_url: JSON.stringify(`${hook.url}/slack`), service_interface: 2 })).body.result, 'success');
  hook.on('/slack', json({ text: 'slack says hi' }));
  await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'slack', content: 'hey @**Echo Bot**' });
  const slackReply = await eventually(async () => (await latest(othello, [{ operator: 'topic', operand: 'slack' }])).find((m) => m.sender_id === botId));
  t.equal(slackReply.content, 'slack says hi');
  const form = new URLSearchParams(hook.received.at(-1)!.body);
  t.equal(hook.received.at(-1)!.contentType, 'application/x-www-form-urlencoded');
  t.match(Object.fromEntries(form), { token, channel_name: 'Verona', user_name: 'Othello, the Moor of Venice', text: 'hey @**Echo Bot**', trigger_word: 'mention', service_id: String(botId), user_id: `U${othello.userId}` });
  await othello.call('POST', '/messages', { type: 'private', to: [botId], content: 'slack dm' });
  const slackDm = await eventually(async () => (await latest(othello, [{ operator: 'dm', operand: [botId] }])).find((m) => m.sender_id === botId && /Slack/.test(m.content)));
  t.equal(slackDm.content, "Failure! Slack outgoing webhooks don't support direct messages.");
});
