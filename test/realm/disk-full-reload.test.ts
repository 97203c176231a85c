/**
 * Space that vanishes between a command's free-space check and its write (issue 12 §3): the
 * failed appends are answered 507 DISK_FULL, the realm is reloaded from its durable log (memory
 * had folded the refused records), and the next write goes through. Both ways a write can fail
 * are injected: parley's own pre-write check, and LMDB reporting ENOSPC through lmdb-js's
 * `commitError` (which, unawaited, would crash the process with an unhandled rejection).
 */
import t, { type Test } from 'tap';
import { startTestServer } from '../support/test-server.js';
import { DiskFullError } from '../../src/storage/disk-space.js';
import type { Store } from '../../src/storage/lmdb.js';

async function setup(t: Test) {
  const server = await startTestServer(t);
  const hamlet = await server.as('hamlet@zulip.com');
  const store = (server.server.registry as unknown as { store: Store }).store;
  const send = (content: string) => hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'reload', content });
  const topicIds = async () =>
    (await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'topic', operand: 'reload' }] }))
      .body.messages.map((m: { id: number }) => m.id);
  const errors: string[] = [];
  const originalError = console.error;
  console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
  t.teardown(() => {
    console.error = originalError;
  });
  return { server, store, send, topicIds, errors };
}

async function checkRefusedThenResumed(
  t: Test,
  env: Awaited<ReturnType<typeof setup>>,
  inject: () => void,
): Promise<void> {
  const first = await env.send('acknowledged');
  t.equal(first.status, 200);
  inject();
  const replies = await Promise.all(['racing 1', 'racing 2', 'racing 3'].map(async (content) => ({ content, reply: await env.send(content) })));
  // The batch that met the full disk is refused; sends that arrive after the reload go through.
  for (const { reply } of replies) t.ok(reply.status === 507 || reply.status === 200, `answered ${reply.status}`);
  const refused = replies.filter(({ reply }) => reply.status === 507);
  t.ok(refused.length >= 1, 'the failed write is answered 507');
  for (const { reply } of refused) t.match(reply.body, { result: 'error', code: 'DISK_FULL' });
  const acked = replies.filter(({ reply }) => reply.status === 200).map(({ reply }) => reply.body.id as number);
  t.same(await env.topicIds(), [first.body.id, ...acked].sort((a, b) => a - b), 'memory was reloaded: exactly the acknowledged messages are visible');
  t.match(env.errors.join('\n'), /realm 1: the data disk is full; writes failed and the realm was reloaded from its log/);
  const next = await env.send('resumed');
  t.equal(next.status, 200, 'the next write goes through');
  t.same(await env.topicIds(), [first.body.id, ...acked, next.body.id].sort((a, b) => a - b));
  const body = await env.server.as('hamlet@zulip.com').then((h) => h.call('GET', `/messages/${next.body.id}`));
  t.equal(body.body.raw_content, 'resumed');
  // The reloaded state's search word index is filled again (backfilled when restored from a snapshot).
  const index = () => env.server.server.registry.all()[0]!.state.wordIndex!;
  const deadline = Date.now() + 30_000;
  while (!index().complete && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.ok(index().complete, 'the reloaded search index is complete');
  t.ok(index().has('acknowledged', first.body.id) && index().has('resumed', next.body.id), 'it holds the messages from before and after the reload');
}

t.test("parley's pre-write check finds the disk full", async (t) => {
  const env = await setup(t);
  await checkRefusedThenResumed(t, env, () => {
    const space = env.store.space;
    const real = space.check.bind(space);
    space.check = (bytes: number) => {
      space.check = real;
      throw new DiskFullError(env.store.dataDir, 0);
    };
  });
});

t.test('LMDB reports ENOSPC through commitError', async (t) => {
  const env = await setup(t);
  await checkRefusedThenResumed(t, env, () => {
    const log = env.store.log;
    const realPut = log.put.bind(log);
    log.put = ((...args: Parameters<typeof log.put>) => {
      log.put = realPut;
      const commitError = Promise.reject(Object.assign(new Error('No space left on device: Attempting to write page'), { code: 28 }));
      return Promise.reject(Object.assign(new Error('Commit failed (see commitError for details)'), { commitError }));
    }) as typeof log.put;
  });
});
