/**
 * The realm registry with real storage: recovered state equals live state (log replay only,
 * snapshot + tail), realm selection by Host, the actor's durability ordering, and the snapshot
 * policy's dirty-bytes limit.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealmUrls } from '../../src/realm/realm-urls.js';
import { RealmRegistry } from '../../src/realm/realm-registry.js';
import { createDemoRealm } from '../../src/realm/demo-realm.js';
import { fingerprint, fixedContext } from '../support/realm-fixture.js';
import { snapshotSeconds } from '../../src/metrics.js';

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-registry-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function sendMany(registry: RealmRegistry, n: number, from = 0): Promise<number[]> {
  const realm = registry.bySubdomainName('')!;
  const hamlet = realm.state.usersByEmail.get('hamlet@zulip.com')!;
  const othello = realm.state.usersByEmail.get('othello@zulip.com')!;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      realm.execute({
        type: 'send_message', senderId: i % 3 === 0 ? othello : hamlet, messageType: i % 5 === 0 ? 'private' : 'stream',
        to: i % 5 === 0 ? [othello] : 'Verona', topic: `topic ${(from + i) % 4}`, content: `message ${from + i}`, client: 'test',
      }),
    ),
  );
  return results.map((r) => {
    if (!r.ok) throw r.error;
    return r.value.id;
  });
}

for (const [name, everyRecords] of [['log replay only', 1_000_000], ['snapshot + log tail', 25]] as const) {
  t.test(`recovered state equals live state: ${name}`, async (t) => {
    const dataDir = tempDir(t);
    const options = { dataDir, urls: RealmUrls.parse('http://example.com'), ctx: fixedContext(), snapshotPolicy: { everyRecords, everySeconds: 3600 } };
    const live = await RealmRegistry.open(options);
    await createDemoRealm(live, 'not-a-real-hash');
    const ids = await sendMany(live, 120);
    t.equal(new Set(ids).size, 120, 'unique ids');
    t.same(ids, [...ids].sort((a, b) => a - b), 'replies in command order');
    const before = fingerprint(live.bySubdomainName('')!.state);
    const body = live.bySubdomainName('')!.messageBody(ids.at(-1)!);
    // As after a crash: open the store again while the live registry never stopped (no final
    // snapshot); only what is durable counts.
    const crashed = await RealmRegistry.open(options);
    t.equal(fingerprint(crashed.bySubdomainName('')!.state), before, 'recovered without a final snapshot');
    t.same(crashed.bySubdomainName('')!.messageBody(ids.at(-1)!), body, 'bodies come back from LMDB');
    await live.close();
    const reopened = await RealmRegistry.open(options);
    t.teardown(() => reopened.close());
    const realm = reopened.bySubdomainName('')!;
    t.equal(fingerprint(realm.state), before, 'recovered after a graceful stop (final snapshot)');
    const more = await sendMany(reopened, 5, 120);
    t.equal(more[0], ids.at(-1)! + 1, 'ids continue after recovery');
  });
}

t.test('realm selection by Host', async (t) => {
  const registry = await RealmRegistry.open({ dataDir: tempDir(t), urls: RealmUrls.parse('https://chat.example.com'), ctx: fixedContext() });
  t.teardown(() => registry.close());
  const root = await registry.createRealm('', 'Root');
  const team = await registry.createRealm('team', 'Team');
  t.equal(registry.realmForHost('chat.example.com'), root);
  t.equal(registry.realmForHost('CHAT.example.com:9991'), root);
  t.equal(registry.realmForHost('127.0.0.1:9991'), root);
  t.equal(registry.realmForHost('localhost'), root);
  t.equal(registry.realmForHost('www.chat.example.com'), root);
  t.equal(registry.realmForHost('team.chat.example.com:443'), team);
  t.equal(registry.realmForHost('nope.chat.example.com'), null);
  t.equal(team.host, 'team.chat.example.com');
  t.equal(team.url, 'https://team.chat.example.com', 'a subdomain realm is <scheme>://<sub>.<external host>');
  t.equal(root.url, 'https://chat.example.com');
  registry.setUrls(RealmUrls.parse('http://chat.example.com:8080'));
  t.equal(team.url, 'http://team.chat.example.com:8080', 'setUrls relocates every realm');
  t.equal(team.host, 'team.chat.example.com', 'email host names carry no port');
  await t.rejects(registry.createRealm('team', 'Again'), { message: "Subdomain 'team' is already in use" });
});

t.test('API keys are realm-bound', async (t) => {
  const registry = await RealmRegistry.open({ dataDir: tempDir(t), urls: RealmUrls.parse('https://chat.example.com') });
  t.teardown(() => registry.close());
  const root = await registry.createRealm('', 'Root');
  const team = await registry.createRealm('team', 'Team');
  const created = await team.execute({ type: 'create_user', email: 'ann@team.com', fullName: 'Ann', role: 400, passwordHash: null, isBot: false, botType: null, botOwnerId: null, timezone: '' });
  if (!created.ok) throw created.error;
  const { apiKey } = created.value;
  const ann = registry.authenticate(team, 'ann@team.com', apiKey);
  t.equal(ann instanceof Error ? ann : ann.realm, team, 'the principal carries its realm');
  t.match(ann, { user: { email: 'ann@team.com' } });
  t.match(registry.authenticate(root, 'ann@team.com', apiKey), { message: 'Account is not associated with this subdomain', status: 401 });
  team.state.users.get(created.value.userId)!.isActive = false;
  t.match(registry.authenticate(team, 'ann@team.com', apiKey), { message: 'Account is deactivated', code: 'UNAUTHORIZED' });
});

/** Snapshots completed in this process so far (the `parley_snapshot_duration_seconds` count). */
async function snapshotsWritten(): Promise<number> {
  const metric = await snapshotSeconds.get();
  return metric.values.find((v) => v.metricName === 'parley_snapshot_duration_seconds_count')?.value ?? 0;
}

t.test('a snapshot is written once enough column bytes are dirty, however few the records', async (t) => {
  // The first sends dirty the tail chunks of the message columns (~340 KiB): over 256 KiB, far
  // under 64 MiB. The record and time limits are out of reach.
  for (const [everyDirtyBytes, expectSnapshot] of [[64 * 1024 * 1024, false], [256 * 1024, true]] as const) {
    const dataDir = tempDir(t);
    const snapshotPolicy = { everyRecords: 1_000_000, everySeconds: 3600, everyDirtyBytes };
    const registry = await RealmRegistry.open({ dataDir, urls: RealmUrls.parse('http://example.com'), ctx: fixedContext(), snapshotPolicy });
    await createDemoRealm(registry, 'not-a-real-hash');
    const before = await snapshotsWritten();
    await sendMany(registry, 100);
    const deadline = Date.now() + 5000;
    while ((await snapshotsWritten()) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    t.equal((await snapshotsWritten()) > before, expectSnapshot, `everyDirtyBytes ${everyDirtyBytes}: snapshot written = ${expectSnapshot}`);
    const sender = registry.bySubdomainName('')!.state.messages.columns()['msg:sender']!;
    if (expectSnapshot) t.ok(sender.dirtyBytes < 256 * 1024, 'the snapshot took the dirty chunks');
    else t.equal(sender.dirtyBytes, sender.chunkBytes, 'the tail chunk is still dirty');
    await registry.close();
  }
});

t.test('snapshots that reuse the packing of users and subscriptions restore every change', async (t) => {
  // A snapshot every 5 records: sends between them reuse the kept packing (realm/core-encoder.ts);
  // a rename and a subscription color in between must not be lost to it.
  const dataDir = tempDir(t);
  const options = { dataDir, urls: RealmUrls.parse('http://example.com'), ctx: fixedContext(), snapshotPolicy: { everyRecords: 5, everySeconds: 3600 } };
  const live = await RealmRegistry.open(options);
  await createDemoRealm(live, 'not-a-real-hash');
  const realm = live.bySubdomainName('')!;
  const hamlet = realm.state.usersByEmail.get('hamlet@zulip.com')!;
  const verona = realm.state.streamsByName.get('verona')!;
  await sendMany(live, 12);
  const renamed = await realm.execute({ type: 'update_settings', actorId: hamlet, fullName: 'Prince Hamlet' });
  t.ok(renamed.ok, 'renamed');
  const colored = await realm.execute({ type: 'set_subscription_properties', actorId: hamlet, changes: [{ streamId: verona, property: 'color', value: '#123456' }] });
  t.ok(colored.ok, 'recolored');
  // Sends until a snapshot has been both started and written after the rename (one may have
  // been in flight while it happened).
  const atRename = await snapshotsWritten();
  const deadline = Date.now() + 10_000;
  for (let from = 12; (await snapshotsWritten()) < atRename + 2 && Date.now() < deadline; from += 6) {
    await sendMany(live, 6, from);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.ok((await snapshotsWritten()) >= atRename + 2, 'snapshots were written after the changes');
  await realm.whenDurable();
  const before = fingerprint(realm.state);
  // As after a crash (no final snapshot): the latest periodic snapshot plus the log tail.
  const crashed = await RealmRegistry.open(options);
  const state = crashed.bySubdomainName('')!.state;
  t.equal(state.users.get(hamlet)!.fullName, 'Prince Hamlet', 'the rename survived');
  t.equal(state.subscriptions.get(verona)!.get(hamlet)!.color, '#123456', 'the color survived');
  t.equal(fingerprint(state), before, 'recovered state equals the live one');
  await live.close();
});
