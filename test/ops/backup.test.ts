/**
 * `parley backup` / `parley restore` (issue 13 §3) with the built CLI against a real running
 * server: a backup taken under a send load holds every message acknowledged before it began, the
 * server keeps accepting writes meanwhile, and the restored store starts; plus the refusals
 * (non-empty targets, damaged backups, no store) and a `cp -r` copy whose lock file names a dead pid.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { api, fetchApiKey, makeTempDir, runCli, startServer, type ServerProcess } from '../support/server-process.js';

/** Start-up can take tens of seconds on a loaded shared machine; a real hang still fails. */
const START_TIMEOUT_MS = 60_000;

const PW = 'backup-test-password';
const EMAIL = 'hamlet@zulip.com';

interface Ack {
  id: number;
  content: string;
  /** performance.now() when the reply arrived. */
  at: number;
}

/**
 * Sends channel messages with `concurrency` workers until `stop()` (bounded: at most `max`
 * messages and `maxMs`). Every acknowledged send is recorded with its reply time.
 */
function sendLoad(server: ServerProcess, key: string, tag: string, concurrency = 4, max = 20_000, maxMs = 60_000) {
  const acks: Ack[] = [];
  let stopped = false;
  let sent = 0;
  const deadline = performance.now() + maxMs;
  const worker = async () => {
    while (!stopped && sent < max && performance.now() < deadline) {
      const content = `${tag}-${sent++}`;
      const r = await api<{ id: number }>(server.url, EMAIL, key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'backup', content });
      if (r.status !== 200) throw new Error(`send failed: ${r.status} ${JSON.stringify(r.body)}`);
      acks.push({ id: r.body.id, content, at: performance.now() });
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker));
  return {
    acks,
    done,
    stop() {
      stopped = true;
      return done;
    },
  };
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('backup under a send load, restore, compare: every message acknowledged before the backup is there', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir, demoPassword: PW, args: ['--rate-limits', 'off'] });
  const { api_key: key } = await fetchApiKey(server.url, EMAIL, PW);
  const load = sendLoad(server, key, 'load');
  await waitFor(() => load.acks.length >= 200, '200 acknowledged sends');

  const backupDir = join(makeTempDir(t), 'backup');
  const began = performance.now();
  const ackedBefore = load.acks.filter((a) => a.at < began);
  const backup = await runCli(['backup', '--data-dir', dataDir, '--out', backupDir], {}, 60_000);
  const ended = performance.now();
  const duringBackup = load.acks.filter((a) => a.at >= began && a.at < ended).length;
  await waitFor(() => load.acks.some((a) => a.at > ended + 50), 'a send after the backup');
  await load.stop();
  t.equal(backup.code, 0, backup.stderr);
  t.match(backup.stdout, new RegExp(`^backed up ${dataDir} to ${backupDir}: \\d+ files, \\d+ bytes in \\d+ ms\\n$`));
  t.equal(backup.stderr, '', 'no progress bar when stderr is not a terminal');
  t.comment(`${ackedBefore.length} acked before the backup, ${duringBackup} during it (${Math.round(ended - began)} ms), ${load.acks.length} in all`);

  const names = readdirSync(backupDir).sort();
  t.ok(names.includes('data.mdb') && names.includes('parley-backup.json'), names.join(' '));
  t.notOk(names.includes('lock.mdb') || names.includes('parley.lock'), 'no lock files in the backup');
  const manifest = JSON.parse(readFileSync(join(backupDir, 'parley-backup.json'), 'utf8')) as { format: number; files: Array<{ path: string; bytes: number; sha256: string }> };
  t.equal(manifest.format, 1);
  t.same(manifest.files.map((f) => f.path).sort(), names.filter((n) => n !== 'parley-backup.json'));

  // The original server kept working.
  const health = await fetch(`${server.url}/health`);
  t.equal(health.status, 200);

  const restored = join(makeTempDir(t), 'restored');
  const restore = await runCli(['restore', '--from', backupDir, '--data-dir', restored]);
  t.equal(restore.code, 0, restore.stderr);
  t.match(restore.stdout, /^restored the backup of \S+ into \S+: start it with parley serve --data-dir /);

  const copy = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir: restored, demoPassword: null });
  t.notMatch(copy.stdout(), /created the demo organization/, 'the restored store has its organization');
  const login = await fetchApiKey(copy.url, EMAIL, PW);
  t.equal(login.api_key, key, 'same accounts and keys');
  const fetched = await api<{ messages: Array<{ id: number; content: string }> }>(copy.url, EMAIL, key, 'GET', 'messages', {
    anchor: 'newest',
    num_before: 5000,
    num_after: 0,
    narrow: [{ operator: 'topic', operand: 'backup' }],
    apply_markdown: false,
  });
  t.equal(fetched.status, 200);
  const present = new Map(fetched.body.messages.map((m) => [m.id, m.content]));
  const missing = ackedBefore.filter((a) => present.get(a.id) !== a.content);
  t.same(missing, [], `all ${ackedBefore.length} messages acknowledged before the backup began are restored`);
  const afterwards = load.acks.filter((a) => a.at > ended);
  t.ok(afterwards.length > 0);
  t.same(afterwards.filter((a) => present.has(a.id)), [], 'nothing acknowledged after the backup finished is in it (a point-in-time copy)');
  t.equal(present.size, new Set(fetched.body.messages.map((m) => m.content)).size, 'no duplicates');
  // The restored server accepts writes.
  const more = await api<{ id: number }>(copy.url, EMAIL, key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'after', content: 'x' });
  t.equal(more.status, 200);
});

t.test('refusals: non-empty targets, damaged or missing backups, no store', async (t) => {
  const dataDir = makeTempDir(t);
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir });
  await server.stop();
  const full = makeTempDir(t);
  writeFileSync(join(full, 'keep.txt'), 'mine');

  const toFull = await runCli(['backup', '--data-dir', dataDir, '--out', full]);
  t.equal(toFull.code, 1);
  t.match(toFull.stderr, /the backup directory .* is not empty/);
  t.same(readdirSync(full), ['keep.txt'], 'untouched');

  const inside = await runCli(['backup', '--data-dir', dataDir, '--out', join(dataDir, 'b')]);
  t.equal(inside.code, 1);
  t.match(inside.stderr, /must be outside the data directory/);

  const noStore = await runCli(['backup', '--data-dir', makeTempDir(t), '--out', join(makeTempDir(t), 'x')]);
  t.equal(noStore.code, 1);
  t.match(noStore.stderr, /holds no parley store/);

  const usage = await runCli(['backup', '--out', join(makeTempDir(t), 'x')]);
  t.equal(usage.code, 2, 'backup without --data-dir is a usage error');
  t.match(usage.stderr, /--data-dir is required/);

  const good = join(makeTempDir(t), 'good');
  t.equal((await runCli(['backup', '--data-dir', dataDir, '--out', good])).code, 0);

  const intoFull = await runCli(['restore', '--from', good, '--data-dir', full]);
  t.equal(intoFull.code, 1);
  t.match(intoFull.stderr, /is not empty: restore only into a new or empty directory/);
  t.same(readdirSync(full), ['keep.txt'], 'untouched');

  const notBackup = await runCli(['restore', '--from', full, '--data-dir', join(makeTempDir(t), 'r')]);
  t.equal(notBackup.code, 1);
  t.match(notBackup.stderr, /is not a parley backup \(no parley-backup\.json\)/);

  const damaged = join(makeTempDir(t), 'damaged');
  cpSync(good, damaged, { recursive: true });
  const data = readFileSync(join(damaged, 'data.mdb'));
  data[data.length >> 1] ^= 0xff;
  writeFileSync(join(damaged, 'data.mdb'), data);
  const target = join(makeTempDir(t), 'r');
  const bad = await runCli(['restore', '--from', damaged, '--data-dir', target]);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /the backup is damaged: data\.mdb does not match its checksum/);
  t.notOk(existsSync(target), 'nothing written');
});

