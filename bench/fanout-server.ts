/**
 * Fan-out, server side only: the same shape as `fanout.ts` (N long-polling queues of the demo
 * users in Verona, and created users when N needs more: fanout-accounts.ts; one sender) but driven
 * in-process through the API dispatcher, without HTTP
 * clients. Measures, per message, the time from `POST /messages` until the N-th long-poll reply
 * has been produced and serialized to JSON — what the server itself spends, free of the load
 * generator's cost (which dominates the end-to-end figure on a 2-core machine).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_CONFIG } from '../src/config.js';
import { startServer } from '../src/main.js';
import { createDispatcher, type ApiRequest } from '../src/api/registry.js';
import { buildRoutes } from '../src/api/endpoints.js';
import { encodeBody } from '../src/api/raw-json.js';
import { fanoutReceivers, type ApiCall } from './fanout-accounts.js';
import type { Account } from './fanout.js';

export interface ServerFanoutReport {
  queues: number;
  messages: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const RECEIVERS = ['hamlet', 'othello', 'cordelia', 'prospero', 'aaron', 'desdemona', 'shiva', 'polonius'].map((n) => `${n}@zulip.com`);
const PASSWORD = 'bench';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Runs `messages` measured sends (after `warmup` unmeasured ones) against `queues` polls. */
export async function runServerFanout(queues: number, messages: number, warmup = 5): Promise<ServerFanoutReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-fanout-'));
  const server = await startServer({ ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: PASSWORD, rateLimits: false });
  try {
    const registry = server.registry;
    const realm = registry.bySubdomainName('')!;
    const dispatch = createDispatcher(buildRoutes({ queues: server.queues }), {
      realmForHost: (host) => registry.realmForHost(host),
      authenticate: (r, email, key) => registry.authenticate(r as never, email, key),
    });
    const request = (account: Account | null, method: string, path: string, query: Array<[string, string]>, body: Array<[string, string]> = []): ApiRequest => ({
      method,
      path: `/api/v1${path}`,
      query,
      body,
      headers: { host: '127.0.0.1', ...(account !== null && { authorization: 'Basic ' + Buffer.from(`${account.email}:${account.key}`).toString('base64') }) },
      remoteAddress: '127.0.0.1',
    });
    const call: ApiCall = async (account, method, path, params) => {
      const reply = await dispatch(request(account, method, path, [], Object.entries(params)));
      return reply.body === null ? {} : (JSON.parse(encodeBody(reply.body).toString()) as Record<string, any>);
    };
    const receivers = await fanoutReceivers(call, RECEIVERS, PASSWORD, 'desdemona@zulip.com', queues, 'Verona');
    const userId = (email: string) => realm.state.usersByEmail.get(email)!;
    const polls: Array<{ account: Account; userId: number; id: string; last: number }> = [];
    for (let i = 0; i < queues; i++) {
      const account = receivers[i % receivers.length]!;
      const body = await call(account, 'POST', '/register', { event_types: '["message"]', fetch_event_types: '[]' });
      if (body.result !== 'success') throw new Error(`register failed: ${JSON.stringify(body)}`);
      polls.push({ account, userId: userId(account.email), id: body.queue_id as string, last: -1 });
    }
    const sender: Account = { email: 'iago@zulip.com', key: (await call(null, 'POST', '/fetch_api_key', { username: 'iago@zulip.com', password: PASSWORD })).api_key as string };
    const samples: number[] = [];
    for (let i = 0; i < warmup + messages; i++) {
      let last = 0;
      const replies = polls.map((p) =>
        dispatch(request(p.account, 'GET', '/events', [['queue_id', p.id], ['last_event_id', String(p.last)]])).then((reply) => {
          if (reply.status !== 200) throw new Error(`poll failed: ${encodeBody(reply.body ?? {}).toString()}`);
          encodeBody(reply.body!); // the serialization the server sends, as over HTTP
          last = performance.now();
        }),
      );
      const t0 = performance.now();
      await dispatch(request(sender, 'POST', '/messages', [], [['type', 'stream'], ['to', 'Verona'], ['topic', 'fanout'], ['content', `fan-out ${i}`]]));
      await Promise.all(replies);
      for (const p of polls) p.last = server.queues.get(p.id, realm.id, p.userId)!.lastEventId;
      if (i >= warmup) samples.push(last - t0);
    }
    const sorted = samples.sort((a, b) => a - b);
    return { queues, messages, latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! } };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
