/**
 * A whole parley answering its API on a worker thread (realm-thread-worker.ts), for
 * `dispatch-split-probe.ts --mode realm`: what moving `dispatch` and the realms off the HTTP
 * thread would give, measured instead of estimated (bench/PROFILE.md §11).
 *
 * `dispatch` posts the requests of one event-loop turn in one message; the worker answers in one
 * message per turn with each body already encoded (`encodeBody`). The answer's body is that JSON
 * nested under `"result"` (`{"result":{…}}`): `http/server.ts` writes `ApiResponse` bodies as
 * objects, and decoding the JSON on the HTTP thread would charge it work a real split would not do.
 */
import { Worker } from 'node:worker_threads';
import { RawJson } from '../src/api/raw-json.js';
import type { ApiRequest, ApiResponse } from '../src/api/registry.js';
import type { PostedAnswer, PostedRequest } from './realm-thread-worker.js';

/** A running realm thread. */
export interface RealmThread {
  /** Answers `req` on the worker; `onAbort` and `trace` are not carried over. */
  dispatch(req: ApiRequest): Promise<ApiResponse>;
  /** Closes the worker's server (final snapshot), removes its data directory, ends the thread. */
  stop(): Promise<void>;
}

/** Resolves with the worker's first message that has the key `what`; rejects if the worker fails. */
function workerSays(worker: Worker, what: 'ready' | 'stopped'): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown): void => {
      if (typeof m === 'object' && m !== null && what in m) {
        worker.off('message', onMessage);
        resolve();
      }
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}

/**
 * A `dispatch` that posts each event-loop turn's requests to `worker` in one `{ batch }` message
 * (`PostedRequest`s) and resolves each with its answer; the worker posts arrays of answers, which
 * `answerOf` turns into `[key, response]`. Messages that are not arrays are left to other listeners.
 */
export function batchedDispatch<A>(worker: Worker, answerOf: (answer: A) => [key: number, response: ApiResponse]): (req: ApiRequest) => Promise<ApiResponse> {
  const waiting = new Map<number, (response: ApiResponse) => void>();
  let batch: PostedRequest[] = [];
  let seq = 0;
  worker.on('message', (answers: unknown) => {
    if (!Array.isArray(answers)) return;
    for (const answer of answers as A[]) {
      const [key, response] = answerOf(answer);
      waiting.get(key)!(response);
      waiting.delete(key);
    }
  });
  const flush = (): void => {
    worker.postMessage({ batch });
    batch = [];
  };
  return (req) => {
    const key = ++seq;
    if (batch.length === 0) setImmediate(flush);
    batch.push([key, req.method, req.path, req.query, req.body, req.headers, req.remoteAddress, req.scheme]);
    return new Promise((resolve) => waiting.set(key, resolve));
  };
}

/** Starts the worker (demo organization, password `bench`, fresh data directory) and waits until it answers. */
export async function startRealmThread(): Promise<RealmThread> {
  // Node 20 does not apply `--import=tsx` to workers: the worker registers tsx, then loads the TypeScript.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./realm-thread-worker.ts', import.meta.url).href;
  const worker = new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, { eval: true });
  await workerSays(worker, 'ready');

  const dispatch = batchedDispatch<PostedAnswer>(worker, ([key, status, headers, json]) => [
    key,
    { status, ...(headers !== undefined && { headers }), body: json === null ? null : { result: new RawJson([json]) } },
  ]);
  return {
    dispatch,
    async stop() {
      const stopped = workerSays(worker, 'stopped');
      worker.postMessage({ stop: true });
      await stopped;
      await worker.terminate();
    },
  };
}
