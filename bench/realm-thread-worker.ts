/**
 * The worker of realm-thread.ts (`dispatch-split-probe.ts --mode realm`): a whole parley server
 * (`startServer`, demo organization, fresh data directory) whose API is answered here, on this
 * thread, for requests the HTTP thread posts in batches. Its own HTTP listener (port 0) is unused.
 *
 * Messages in: `{ batch: [key, method, path, query, body, headers, remoteAddress, scheme][] }`.
 * Messages out: `{ ready: true }` once the demo exists, then `[key, status, headers, json][]`
 * answers (json: the body as `encodeBody` writes it, or null), one message per event-loop turn.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { DEFAULT_CONFIG } from '../src/config.js';
import { startServer } from '../src/main.js';
import { createDispatcher, errorResponse, type ApiRequest } from '../src/api/registry.js';
import { Errors } from '../src/errors.js';
import { buildRoutes } from '../src/api/endpoints.js';
import { encodeBody } from '../src/api/raw-json.js';

/** A request as posted by the HTTP thread. */
export type PostedRequest = [key: number, method: string, path: string, query: ApiRequest['query'], body: ApiRequest['body'], headers: ApiRequest['headers'], remoteAddress: string, scheme: ApiRequest['scheme']];
/** An answer as posted back. */
export type PostedAnswer = [key: number, status: number, headers: Record<string, string> | undefined, json: string | Uint8Array | null];

const port = parentPort!;
const dataDir = mkdtempSync(join(tmpdir(), 'parley-realm-thread-'));
const server = await startServer({ ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: 'bench', rateLimits: false });
const registry = server.registry;
const dispatch = createDispatcher(buildRoutes({ queues: server.queues, mailer: server.mailer }), {
  realmForHost: (host) => registry.realmForHost(host),
  authenticate: (realm, email, key) => registry.authenticate(realm, email, key),
});

let out: PostedAnswer[] = [];
const flush = (): void => {
  port.postMessage(out);
  out = [];
};
const answer = (a: PostedAnswer): void => {
  if (out.length === 0) setImmediate(flush);
  out.push(a);
};

port.on('message', (message: { batch?: PostedRequest[]; stop?: true }) => {
  if (message.stop === true) {
    void server.close().then(() => {
      rmSync(dataDir, { recursive: true, force: true });
      port.postMessage({ stopped: true });
    });
    return;
  }
  for (const [key, method, path, query, body, headers, remoteAddress, scheme] of message.batch!) {
    void Promise.resolve(dispatch({ method, path, query, body, headers, remoteAddress, ...(scheme !== undefined && { scheme }) })).then(
      (r) => answer([key, r.status, r.headers as Record<string, string> | undefined, r.body === null ? null : encodeBody(r.body)]),
      () => answer([key, 500, undefined, encodeBody(errorResponse(Errors.internal()).body!)]),
    );
  }
});
port.postMessage({ ready: true });
