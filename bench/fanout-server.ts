/**
 * Fan-out, server side only: the same shape as `fanout.ts` (N long-polling queues of the demo
 * users in Verona, one sender) but driven in-process through the API dispatcher, without HTTP
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
import type { User } from '../src/domain/realm-state.js';

export interface ServerFanoutReport {
  queues: number;
  messages: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Runs `messages` measured sends (after `warmup` unmeasured ones) against `queues` polls. */
export async function runServerFanout(queues: number, messages: number, warmup = 5): Promise<ServerFanoutReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-fanout-'));
  const server = await startServer({ ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: 'bench', rateLimits: false });
  try {
    const registry = server.registry;
    const realm = registry.bySubdomainName('')!;
    const dispatch = createDispatcher(buildRoutes({ queues: server.queues }), {
      realmForHost: (host) => registry.realmForHost(host),
      authenticate: (r, email, key) => registry.authenticate(r as never, email, key),
    });
    const user = (email: string) => realm.state.users.get(realm.state.usersByEmail.get(email)!)!;
    const request = (u: User, method: string, path: string, query: Array<[string, string]>, body: Array<[string, string]> = []): ApiRequest => ({
      method,
      path: `/api/v1${path}`,
      query,
      body,
      headers: { host: '127.0.0.1', authorization: 'Basic ' + Buffer.from(`${u.email}:${u.apiKey}`).toString('base64') },
      remoteAddress: '127.0.0.1',
    });
    const receivers = ['hamlet', 'othello', 'cordelia', 'prospero', 'aaron', 'desdemona', 'shiva', 'polonius'].map((n) => user(`${n}@zulip.com`));
    const polls: Array<{ u: User; id: string; last: number }> = [];
    for (let i = 0; i < queues; i++) {
      const u = receivers[i % receivers.length]!;
      const reply = await dispatch(request(u, 'POST', '/register', [], [['event_types', '["message"]'], ['fetch_event_types', '[]']]));
      polls.push({ u, id: (reply.body as { queue_id: string }).queue_id, last: -1 });
    }
    const sender = user('iago@zulip.com');
    const samples: number[] = [];
    for (let i = 0; i < warmup + messages; i++) {
      let last = 0;
      const replies = polls.map((p) =>
        dispatch(request(p.u, 'GET', '/events', [['queue_id', p.id], ['last_event_id', String(p.last)]])).then((reply) => {
          JSON.stringify(reply.body);
          const events = (reply.body as { events: Array<{ id: number }> }).events;
          p.last = events[events.length - 1]!.id;
          last = performance.now();
        }),
      );
      const t0 = performance.now();
      await dispatch(request(sender, 'POST', '/messages', [], [['type', 'stream'], ['to', 'Verona'], ['topic', 'fanout'], ['content', `fan-out ${i}`]]));
      await Promise.all(replies);
      if (i >= warmup) samples.push(last - t0);
    }
    const sorted = samples.sort((a, b) => a - b);
    return { queues, messages, latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! } };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
