/**
 * A full data disk (issue 12 §3), on a real 20 MiB tmpfs with the real server process: writes
 * answer 507 DISK_FULL (every in-flight request answered), reads and event queues keep working,
 * a restart on the full disk works (read-only in effect), writes resume by themselves once space
 * is back, and nothing acknowledged is lost. Mounting needs root; elsewhere the test is skipped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { api, fetchApiKey, startServer, type ServerProcess } from '../support/server-process.js';

const PW = 'disk-full-password';
const MIN_FREE = 4 * 1024 * 1024;
const EMAIL = 'hamlet@zulip.com';

function mountTmpfs(): string | Error {
  const dir = mkdtempSync(join(tmpdir(), 'parley-tmpfs-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmdirSync(dir);
    return new Error(`mount -t tmpfs failed (${(r.stderr || r.error?.message || '').trim()})`);
  }
  return dir;
}

const mnt = mountTmpfs();
if (mnt instanceof Error) {
  t.skip(`full-disk test skipped: cannot mount a tmpfs here (needs root): ${mnt.message}`);
} else {
  t.teardown(() => {
    spawnSync('umount', [mnt]);
    rmdirSync(mnt);
  });
  const dataDir = join(mnt, 'data');
  const filler = join(mnt, 'filler');
  const free = () => {
    const s = statfsSync(mnt);
    return s.bavail * s.bsize;
  };
  /** Fills the disk until `left` bytes are free. */
  const fill = (left: number) => writeFileSync(filler, Buffer.alloc(Math.max(0, free() - left)));
  const args = ['--min-free-bytes', String(MIN_FREE)];

  t.test('writes answer 507, reads and queues work, restart works, writes resume, nothing lost', async (t) => {
    let server: ServerProcess = await startServer({ t, dataDir, demoPassword: PW, args });
    const key = (await fetchApiKey(server.url, EMAIL, PW)).api_key;
    const othelloKey = (await fetchApiKey(server.url, 'othello@zulip.com', PW)).api_key;
    const send = (url: string, content: string) =>
      api<{ id?: number; code?: string; msg?: string }>(url, EMAIL, key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'disk', content });
    const acked = new Map<number, string>();
    for (const content of ['before 1', 'before 2']) {
      const r = await send(server.url, content);
      t.equal(r.status, 200);
      acked.set(r.body.id!, content);
    }
    const queue = await api<{ queue_id: string; last_event_id: number }>(server.url, 'othello@zulip.com', othelloKey, 'POST', 'register', { event_types: ['message'] });
    t.equal(queue.status, 200);

    fill(MIN_FREE / 2);
    const refused = await Promise.all(Array.from({ length: 8 }, (_, i) => send(server.url, `refused ${i}`)));
    for (const r of refused) {
      t.equal(r.status, 507, 'every in-flight send is answered 507');
      t.match(r.body, { result: 'error', code: 'DISK_FULL', msg: /data disk is full/ });
    }
    const list = await api<{ messages: Array<{ id: number; content: string }> }>(server.url, EMAIL, key, 'GET', 'messages', {
      anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'topic', operand: 'disk' }],
    });
    t.equal(list.status, 200, 'reads work on a full disk');
    t.same(list.body.messages.map((m) => m.id), [...acked.keys()]);
    const events = await api<{ events: unknown[] }>(server.url, 'othello@zulip.com', othelloKey, 'GET', 'events', {
      queue_id: queue.body.queue_id, last_event_id: queue.body.last_event_id, dont_block: true,
    });
    t.equal(events.status, 200, 'event queues work on a full disk');
    t.same(await server.stop(), { code: 0, signal: null }, 'SIGTERM on a full disk exits 0');

    server = await startServer({ t, dataDir, demoPassword: null, args });
    t.pass('restarted on the full disk');
    const again = await api<{ messages: Array<{ id: number }> }>(server.url, EMAIL, key, 'GET', 'messages', {
      anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'topic', operand: 'disk' }],
    });
    t.same(again.body.messages.map((m) => m.id), [...acked.keys()], 'every acknowledged message is there');
    t.equal((await send(server.url, 'still full')).status, 507);

    rmSync(filler);
    let resumed: Awaited<ReturnType<typeof send>> | undefined;
    for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
      resumed = await send(server.url, 'after');
      if (resumed.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    t.equal(resumed?.status, 200, 'writes resume by themselves once space is back');
    acked.set(resumed!.body.id!, 'after');
    t.same(await server.stop(), { code: 0, signal: null });

    server = await startServer({ t, dataDir, demoPassword: null, args });
    const final = await api<{ messages: Array<{ id: number; content: string }> }>(server.url, EMAIL, key, 'GET', 'messages', {
      anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'topic', operand: 'disk' }], apply_markdown: false,
    });
    t.same(new Map(final.body.messages.map((m) => [m.id, m.content])), acked, 'exactly the acknowledged messages, after a restart');
    await server.stop();
  });
}
