/**
 * Unclaimed uploads expire (Zulip's `delete_old_unclaimed_attachments`, 3 weeks): the real server
 * with the expiry job on a test clock. An upload no message links (or whose last linking message
 * was deleted) disappears with an `attachment remove` event and its bytes and thumbnails leave the
 * file store; a linked upload stays.
 */
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { getFile, storedFiles, upload } from '../support/upload-client.js';
import { verifyAction } from '../support/verify-action.js';

const DAY = 86400;

/** Polls `check` every 50 ms for at most `ms`; true once it holds. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

t.test('the expiry job deletes old unclaimed uploads, their files and thumbnails', async (t) => {
  let offsetSeconds = 0;
  const s = await startTestServer(t, {}, { attachmentExpiry: { intervalSeconds: 0.1, now: () => Date.now() / 1000 + offsetSeconds } });
  const hamlet = await s.as('hamlet@zulip.com');
  const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#204060' } }).png().toBuffer();
  const lonely = (await upload(s, hamlet, [['file', new Uint8Array(image), 'lonely.png', 'image/png']])).body.uri as string;
  const kept = (await upload(s, hamlet, [['file', 'linked notes', 'kept.txt', 'text/plain']])).body.uri as string;
  const orphan = (await upload(s, hamlet, [['file', 'orphaned notes', 'orphan.txt', 'text/plain']])).body.uri as string;
  await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'files', content: `[kept](${kept})` });
  const doomed = (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'files', content: `[orphan](${orphan})` })).body.id;
  t.equal((await hamlet.call('DELETE', `/messages/${doomed}`)).status, 200);
  t.equal(storedFiles(s).length, 4, 'three uploads and one thumbnail');
  await new Promise((r) => setTimeout(r, 400));
  t.equal((await hamlet.call('GET', '/attachments')).body.attachments.length, 3, 'nothing expires within 3 weeks');

  // Age the stored files past the store's one-minute guard for fresh commits.
  const aged = new Date(Date.now() - 5 * 60_000);
  for (const digest of storedFiles(s)) utimesSync(join(s.dataDir, 'files', 'sha256', digest.slice(0, 2), digest), aged, aged);
  const removed = await verifyAction(t, s, hamlet, {
    action: async () => {
      offsetSeconds = 21 * DAY + 60;
      return eventually(async () => (await hamlet.call('GET', '/attachments')).body.attachments.length === 1);
    },
    numEvents: 2,
    stateChangeExpected: false,
  });
  t.ok(removed.actionResult, 'the unclaimed and the orphaned upload expired');
  t.same(removed.events.map((e) => [e.type, e.op]), [['attachment', 'remove'], ['attachment', 'remove']]);
  const left = (await hamlet.call('GET', '/attachments')).body;
  t.same(left.attachments.map((a: { name: string }) => a.name), ['kept.txt']);
  t.equal(left.upload_space_used, 'linked notes'.length);
  t.ok(await eventually(() => storedFiles(s).length === 1), 'the bytes and the thumbnail left the store');
  t.equal((await getFile(s, lonely, hamlet)).status, 404);
  t.equal((await getFile(s, kept, hamlet)).status, 200, 'the linked upload is served');
});
