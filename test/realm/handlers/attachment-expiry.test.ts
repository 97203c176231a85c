/**
 * `delete_unclaimed_attachments` (realm/handlers/attachment-expiry.ts; Zulip's
 * `do_delete_old_unclaimed_attachments`): only uploads older than the limit that no existing
 * message links are deleted, with their records and `attachment remove` events; the reply names
 * their digests (thumbnails included); a linked, young, or re-linked upload stays.
 */
import t from 'tap';
import { decide, run, smallRealm } from '../../support/realm-fixture.js';
import { findAttachment, uploadSpaceUsed } from '../../../src/domain/attachments.js';
import { DELETE_UNCLAIMED_ATTACHMENTS_AFTER_SECONDS as MAX_AGE } from '../../../src/realm/handlers/attachment-expiry.js';

const SHA = (n: number) => n.toString(16).padStart(64, '0');

t.test('old unclaimed uploads go; claimed, young and formerly claimed ones follow the rules', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const upload = (n: number, extra: object = {}) =>
    run(state, { type: 'upload_file', actorId: ids.member, pathId: `1/a${n}/r${n}/f${n}.png`, name: `f${n}.png`, sha256: SHA(n), size: 10 * n, contentType: 'image/png', quotaBytes: null, ...extra }, ctx);
  const unclaimed = upload(1, { image: { width: 2, height: 2, frames: 1, thumbnails: [{ format: '840x560.webp', sha256: SHA(100), width: 2, height: 2, size: 5 }] } }).id;
  const claimed = upload(2).id;
  const orphaned = upload(3).id;
  const linked = (id: number) => `[x](/user_uploads/${findAttachment(state, id)!.pathId})`;
  run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: 'general', topic: 't', content: linked(claimed), client: 'test' }, ctx);
  const doomed = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: 'general', topic: 't', content: linked(orphaned), client: 'test' }, ctx).id;
  run(state, { type: 'delete_message', actorId: ids.member, messageId: doomed }, ctx);
  const young = upload(4).id;

  const created = findAttachment(state, young)!.createTime;
  const cmd = { type: 'delete_unclaimed_attachments' as const, nowSeconds: created + 1, maxAgeSeconds: MAX_AGE };
  t.same(run(state, cmd, ctx), { deleted: 0, digests: [], complete: true }, 'nothing is 3 weeks old yet');

  // Just over three weeks after the third upload: the young one (uploaded seconds later) is not old enough.
  const later = findAttachment(state, orphaned)!.createTime + MAX_AGE + 1;
  t.ok(findAttachment(state, young)!.createTime >= later - MAX_AGE);
  const decided = decide(state, { ...cmd, nowSeconds: later }, ctx);
  if (!decided.ok) throw decided.error;
  t.same(decided.value.records, [{ type: 'attachment_deleted', v: 1, id: unclaimed }, { type: 'attachment_deleted', v: 1, id: orphaned }]);
  t.same(decided.value.events.map((e) => [e.userIds, e.payload]), [
    [[ids.member], { type: 'attachment', op: 'remove', attachment: { id: unclaimed }, upload_space_used: 90 }],
    [[ids.member], { type: 'attachment', op: 'remove', attachment: { id: orphaned }, upload_space_used: 60 }],
  ]);
  t.same(run(state, { ...cmd, nowSeconds: later }, ctx), { deleted: 2, digests: [SHA(1), SHA(100), SHA(3)], complete: true });
  t.same([unclaimed, claimed, orphaned, young].map((id) => findAttachment(state, id) !== undefined), [false, true, false, true]);
  t.equal(uploadSpaceUsed(state), 60);
  t.same(run(state, { ...cmd, nowSeconds: later }, ctx), { deleted: 0, digests: [], complete: true }, 'idempotent');
});
