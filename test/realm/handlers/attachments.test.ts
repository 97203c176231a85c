/**
 * The attachment handlers on a small realm (realm/handlers/attachments.ts; Zulip's
 * zerver/actions/uploads.py `do_claim_attachments`, zerver/lib/attachments.py
 * `validate_attachment_request`): records, events, claiming on send with its access rule, the
 * quota, errors that leave the state unchanged, replay and the snapshot round trip.
 */
import t from 'tap';
import { decide, fingerprint, rejects, smallRealm, snapshotCopy, checkReplayAndSnapshot } from '../../support/realm-fixture.js';
import { evolve } from '../../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { accessAttachmentByPath, canAccessAttachment } from '../../../src/domain/access.js';
import { attachmentsOf, findAttachmentByPath, linkedUploadPaths, uploadSpaceUsed } from '../../../src/domain/attachments.js';
import type { RealmRecord } from '../../../src/domain/records.js';
import { setupRunner } from '../../../src/realm/apply-command.js';
import type { UploadFile } from '../../../src/realm/handlers/attachments.js';

const SHA = (n: number) => n.toString(16).padStart(64, '0');
const uploadCmd = (actorId: number, n: number, extra: Partial<UploadFile> = {}): UploadFile => ({
  type: 'upload_file', actorId, pathId: `1/a${n}/random${n}/file${n}.txt`, name: `file${n}.txt`, sha256: SHA(n), size: 100 * n,
  contentType: 'text/plain', quotaBytes: null, ...extra,
});

t.test('linked upload paths come from relative /user_uploads links in rendered HTML', async (t) => {
  t.same(
    linkedUploadPaths('<p><a href="/user_uploads/1/ab/x/a.txt">a</a> <a href="/user_uploads/1/ab/x/a.txt">again</a> <a href="https://e.com/user_uploads/1/c/d/e">no</a> <a href="/user_uploads/1/cd/y/caf%C3%A9.txt">b</a></p>'),
    ['1/ab/x/a.txt', '1/cd/y/café.txt'],
  );
});

t.test('upload, claim, access, delete; errors leave the state unchanged; replay and snapshot', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const base = snapshotCopy(state);
  const records: RealmRecord[] = [];
  const exec = setupRunner(state, ctx, records);

  const decided = decide(state, uploadCmd(ids.member, 1), ctx);
  if (!decided.ok) throw decided.error;
  t.same(decided.value.events.map((e) => e.userIds), [[ids.member]], 'the add event goes to the uploader only');
  t.match(decided.value.events[0]!.payload, { type: 'attachment', op: 'add', upload_space_used: 100, attachment: { id: 1, name: 'file1.txt', size: 100, messages: [] } });
  t.same(exec(uploadCmd(ids.member, 1)), { id: 1 });
  t.same(exec(uploadCmd(ids.member, 2)), { id: 2 });
  t.equal(uploadSpaceUsed(state), 300);

  rejects(t, state, uploadCmd(ids.member, 1), ctx, 'Upload path already in use');
  rejects(t, state, uploadCmd(ids.other, 3, { quotaBytes: 500 }), ctx, "Upload would exceed your organization's upload quota.");
  rejects(t, state, { type: 'delete_attachment', actorId: ids.other, attachmentId: 1 }, ctx, 'Invalid attachment');
  rejects(t, state, { type: 'delete_attachment', actorId: ids.member, attachmentId: 99 }, ctx, 'Invalid attachment');
  t.same(exec(uploadCmd(ids.other, 3, { quotaBytes: 600 })), { id: 3 }, 'exactly the quota is allowed');

  // Before any message, only the uploader may read the file.
  const file1 = findAttachmentByPath(state, '1/a1/random1/file1.txt')!;
  t.ok(canAccessAttachment(state, state.users.get(ids.member)!, file1));
  t.notOk(canAccessAttachment(state, state.users.get(ids.other)!, file1));
  const other = state.users.get(ids.other)!;
  t.same(accessAttachmentByPath(state, other, file1.pathId), accessAttachmentByPath(state, other, '1/none/x/y.txt'), 'not allowed = missing');

  // Linking it in the private channel "secret" shares it with the channel's readers only.
  const secretSend = decide(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: 'secret', topic: 't', content: `[f](/user_uploads/${file1.pathId})`, client: 'test' }, ctx);
  if (!secretSend.ok) throw secretSend.error;
  t.same(secretSend.value.events.filter((e) => e.payload.type === 'attachment').map((e) => e.userIds), [[ids.member]], 'update event to the uploader');
  const messageId = exec({ type: 'send_message', senderId: ids.member, messageType: 'stream', to: 'secret', topic: 't', content: `[f](/user_uploads/${file1.pathId})`, client: 'test' }).id;
  t.same(findAttachmentByPath(state, file1.pathId)!.messageIds, [messageId]);
  t.ok(canAccessAttachment(state, state.users.get(ids.owner)!, file1), 'a subscriber of secret can read it');
  t.notOk(canAccessAttachment(state, other, file1), 'a non-subscriber still cannot');
  t.notOk(canAccessAttachment(state, state.users.get(ids.guest)!, file1));

  // Someone who cannot read a file does not claim it by linking it.
  exec({ type: 'send_message', senderId: ids.other, messageType: 'stream', to: 'general', topic: 't', content: `[f](/user_uploads/${file1.pathId})`, client: 'test' });
  t.same(findAttachmentByPath(state, file1.pathId)!.messageIds, [messageId], 'not claimed');
  t.notOk(canAccessAttachment(state, other, file1));
  // A reader of the file can share it further.
  const shared = exec({ type: 'send_message', senderId: ids.owner, messageType: 'stream', to: streams.general, topic: 't', content: `[f](/user_uploads/${file1.pathId})`, client: 'test' }).id;
  t.same(findAttachmentByPath(state, file1.pathId)!.messageIds, [messageId, shared]);
  t.ok(canAccessAttachment(state, other, file1), 'now readable through the public channel');

  t.same(exec({ type: 'delete_attachment', actorId: ids.member, attachmentId: 2 }), {});
  t.same(attachmentsOf(state, ids.member).map((a) => a.id), [1]);
  t.equal(uploadSpaceUsed(state), 400);

  const { core, columns, restored } = checkReplayAndSnapshot(t, base, records, state);
  const old = structuredClone(core);
  delete old.attachments;
  t.same(attachmentsOf(fromSnapshot(state.id, old, columns), ids.member), [], 'an older snapshot loads with no attachments');
});
