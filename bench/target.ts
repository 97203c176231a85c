/**
 * What the scenarios need to know about the server under test (`--target`, or the parley the
 * harness started): the account's auth header, a channel and topic to send to and read, a message
 * id to fetch, and whether the parley-only ceiling route exists. Only public Zulip API endpoints
 * are used (https://zulip.com/api/get-subscriptions, /api/send-message, /api/get-own-user), so a
 * real Zulip server works too.
 */
import { basicAuth } from '../test/support/server-process.js';
import type { ScenarioVars } from './scenario-file.js';

/** The server under test. */
export interface Target {
  url: string;
  email: string;
  apiKey: string;
  auth: string;
  /** Whether `GET /api/v1/bench/ceiling` answers (a parley started with `--bench`). */
  hasCeilingRoute: boolean;
  /** Placeholder values for scenario files. */
  vars: ScenarioVars;
}

async function call(url: string, auth: string, method: string, path: string, params?: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/api/v1/${path}${method === 'GET' && params ? `?${new URLSearchParams(params)}` : ''}`, {
    method,
    headers: { authorization: auth, ...(method !== 'GET' && { 'content-type': 'application/x-www-form-urlencoded' }) },
    ...(method !== 'GET' && params && { body: new URLSearchParams(params).toString() }),
  });
  const text = await res.text();
  let body: Record<string, any>;
  try {
    body = JSON.parse(text) as Record<string, any>;
  } catch {
    body = { raw: text.slice(0, 200) };
  }
  return { status: res.status, body };
}

/**
 * Inspects the server: checks the credentials (`GET /users/me`), picks the channel (`channel`,
 * else the first subscribed one) and topic (`topic`, default `bench`), sends one message to it
 * (the `fetch` scenario's target and the rare search word `benchfetched`), and probes the ceiling
 * route. Throws with the server's reply when something is refused.
 */
export async function inspectTarget(opts: { url: string; email: string; apiKey: string; channel?: string; topic?: string }): Promise<Target> {
  const url = opts.url.replace(/\/+$/, '');
  const auth = basicAuth(opts.email, opts.apiKey);
  const me = await call(url, auth, 'GET', 'users/me');
  if (me.status !== 200) throw new Error(`${url}: GET /api/v1/users/me answered HTTP ${me.status} ${JSON.stringify(me.body)} (check --email and --api-key)`);
  let channel = opts.channel;
  if (channel === undefined) {
    const subs = await call(url, auth, 'GET', 'users/me/subscriptions');
    const first = (subs.body.subscriptions as Array<{ name: string }> | undefined)?.[0];
    if (first === undefined) throw new Error(`${opts.email} is subscribed to no channel: pass --channel`);
    channel = first.name;
  }
  const topic = opts.topic ?? 'bench';
  const sent = await call(url, auth, 'POST', 'messages', { type: 'stream', to: channel, topic, content: 'The message **benchfetched** by the fetch scenario.' });
  if (sent.status !== 200) throw new Error(`cannot send to ${channel} > ${topic}: HTTP ${sent.status} ${JSON.stringify(sent.body)}`);
  const probe = await fetch(`${url}/api/v1/bench/ceiling`, { headers: { authorization: auth } }).catch(() => null);
  const probeText = probe === null ? '' : await probe.text();
  return {
    url,
    email: opts.email,
    apiKey: opts.apiKey,
    auth,
    hasCeilingRoute: probe?.status === 200 && probeText.includes('"success"'),
    vars: {
      channel,
      topic,
      messageId: sent.body.id as number,
      midMessageId: sent.body.id as number,
      sparseChannel: channel,
      sparseTopic: topic,
      rareWord: 'benchfetched',
      commonWord: 'bench',
    },
  };
}
