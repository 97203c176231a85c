/**
 * Command batching (realm/command-batch.ts): commands queued in one event-loop turn reach the realm
 * machine as one input and share one LMDB transaction; replies keep command order; a command
 * whose batch-mate broke the realm (an `evolve` bug) is refused, not processed.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealmUrls } from '../../src/realm/realm-urls.js';
import { RealmRegistry } from '../../src/realm/realm-registry.js';
import { createDemoRealm } from '../../src/realm/demo-realm.js';
import type { RealmHandle } from '../../src/realm/realm-handle.js';
import { fingerprint, fixedContext } from '../support/realm-fixture.js';
import { commitBatchAppends } from '../../src/metrics.js';

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-batch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Total observations of the commit-batch histogram (one per LMDB write batch issued). */
async function commitBatches(): Promise<number> {
  const { values } = await commitBatchAppends.get();
  return values.find((v) => v.metricName === 'parley_commit_batch_appends_count')?.value ?? NaN;
}

function send(realm: RealmHandle, content: string) {
  const hamlet = realm.state.usersByEmail.get('hamlet@zulip.com')!;
  return realm.execute({ type: 'send_message', senderId: hamlet, messageType: 'stream', to: 'Verona', topic: 'batch', content, client: 'test' });
}

t.test('commands of one turn: one machine input, one LMDB batch, replies in order', async (t) => {
  const registry = await RealmRegistry.open({ dataDir: tempDir(t), urls: RealmUrls.parse('http://example.com'), ctx: fixedContext() });
  t.teardown(() => registry.close());
  await createDemoRealm(registry, 'not-a-real-hash');
  const realm = registry.bySubdomainName('')!;
  const before = await commitBatches();
  const seqBefore = realm.commandSeq;
  const pending = Array.from({ length: 40 }, (_, i) => send(realm, `batched ${i}`));
  t.equal(realm.commandSeq, seqBefore, 'nothing is decided before the turn ends');
  const replies = await Promise.all(pending);
  const ids = replies.map((r) => (r.ok ? r.value.id : -1));
  t.notOk(ids.includes(-1), 'every send succeeded');
  t.same(ids, [...ids].sort((a, b) => a - b), 'ids follow command order');
  t.equal(new Set(ids).size, 40);
  t.equal(realm.commandSeq, seqBefore + 40);
  t.equal((await commitBatches()) - before, 1, 'the 40 appends shared one LMDB write batch');
  t.equal(realm.durableMessageId, ids.at(-1), 'all durable once answered');
  t.same(realm.messageBody(ids[7]!)?.content, 'batched 7');
});

t.test('an evolve bug in a batch: the later commands of the batch are refused, nothing else runs', async (t) => {
  const fatal: unknown[] = [];
  const dataDir = tempDir(t);
  const options = { dataDir, urls: RealmUrls.parse('http://example.com'), ctx: fixedContext(), onFatal: (_realmId: number, error: unknown) => void fatal.push(error) };
  const registry = await RealmRegistry.open(options);
  t.teardown(() => registry.close());
  await createDemoRealm(registry, 'not-a-real-hash');
  const realm = registry.bySubdomainName('')!;
  const ok = await send(realm, 'before the bug');
  t.ok(ok.ok);
  const copy = await RealmRegistry.open({ ...options, onFatal: () => undefined });
  const durable = fingerprint(copy.bySubdomainName('')!.state);
  await copy.close();
  const index = realm.state.wordIndex!;
  // Simulates a bug in `evolve` for this one message: the word index throws.
  realm.state.wordIndex = Object.assign(Object.create(index), {
    messageSent() {
      throw new Error('simulated evolve bug');
    },
  });
  const first = send(realm, 'breaks evolve');
  const second = send(realm, 'same turn, after the bug');
  const third = send(realm, 'same turn, last');
  await t.rejects(first, { message: /evolve failed: simulated evolve bug/ }, 'the broken command rejects (the process exits)');
  t.match(await second, { ok: false, error: { code: 'SERVER_NOT_READY' } }, 'a batch-mate after it is refused');
  t.match(await third, { ok: false, error: { code: 'SERVER_NOT_READY' } });
  t.equal(fatal.length, 1, 'onFatal reported once');
  t.equal(realm.running, false, 'the realm is failed');
  t.match(await send(realm, 'next turn'), { ok: false, error: { code: 'SERVER_NOT_READY' } }, 'and refuses later commands');
  const reopened = await RealmRegistry.open({ ...options, onFatal: () => undefined });
  t.teardown(() => reopened.close());
  t.equal(fingerprint(reopened.bySubdomainName('')!.state), durable, 'the log holds nothing of the failed batch');
});
