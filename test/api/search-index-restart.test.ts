/**
 * The search word index across a restart (src/domain/message-word-index.ts,
 * src/realm/word-index-backfill.ts): the index is not persisted, so a restarted realm backfills it
 * from the stored message bodies in the background; until then searches scan, afterwards they
 * walk the index, and both answer the same, including messages edited before the restart and
 * sent while the backfill ran.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_PASSWORD, basicCall, loginApiKey } from '../support/test-server.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { DEFAULT_CONFIG } from '../../src/config.js';

t.test('a restarted realm backfills its word index and searches find old and new messages', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-search-index-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: DEMO_PASSWORD, rateLimits: false };
  let key = '';
  const call = (url: string, method: string, path: string, params: Record<string, unknown> = {}) => basicCall(url, 'hamlet@zulip.com', key, method, path, params);
  const search = async (url: string, words: string) =>
    ((await call(url, 'GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify([{ operator: 'search', operand: words }]) })).messages as Array<{ id: number; match_content: string }>);

  const first = await startServer(config);
  key = await loginApiKey(first.url, 'hamlet@zulip.com', DEMO_PASSWORD);
  const send = async (url: string, content: string, topic = 'index') => (await call(url, 'POST', '/messages', { type: 'stream', to: 'Verona', topic, content })).id as number;
  const old: number[] = [];
  for (let i = 0; i < 30; i++) old.push(await send(first.url, `ocelot number ${i}`));
  const edited = await send(first.url, 'before the edit: pangolin');
  t.equal((await call(first.url, 'PATCH', `/messages/${edited}`, { content: 'after the edit: armadillo' })).result, 'success');
  t.same((await search(first.url, 'ocelot')).map((m) => m.id), old, 'found before the restart');
  await first.close();

  let second: RunningServer | undefined;
  t.teardown(() => second?.close());
  second = await startServer(config);
  const realm = second.registry.all()[0]!;
  const index = realm.state.wordIndex!;
  t.ok(index.backfillBelow > edited, 'the restored messages are left to the backfill');
  const during = await send(second.url, 'ocelot sent after the restart');
  // The backfill runs in slices between requests; wait for it (bounded).
  const deadline = Date.now() + 60_000;
  while (!index.complete && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.ok(index.complete, 'the backfill completes');
  t.equal(index.count('ocelot'), 31, 'every ocelot message is in the index');
  const found = await search(second.url, 'ocelot');
  t.same(found.map((m) => m.id), [...old, during], 'old and new messages are found through the index');
  t.match(found[0]!.match_content, /<span class="highlight">ocelot<\/span>/, 'with highlighting');
  t.same((await search(second.url, 'armadillo')).map((m) => m.id), [edited], 'the edited content is indexed');
  t.same(await search(second.url, 'pangolin'), [], 'the content before the edit is not found');
  t.same((await search(second.url, 'number 7')).map((m) => m.id), [old[7]], 'two words: both must occur');
});
