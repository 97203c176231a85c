/**
 * Expiry of unclaimed uploads (Zulip's zerver/actions/uploads.py
 * `do_delete_old_unclaimed_attachments` with zerver/lib/attachments.py
 * `get_old_unclaimed_attachments`, run daily by Zulip's cron with
 * `settings.DELETE_UNCLAIMED_ATTACHMENTS_AFTER_DAYS`, default 21 days): an upload that no existing
 * message links (never claimed, or every linking message since deleted) and that was uploaded more
 * than `maxAgeSeconds` before `nowSeconds` is deleted, as if its uploader had deleted it.
 *
 * Records: `attachment_deleted` per upload (at most `MAX_EXPIRED_PER_COMMAND` a command). Events:
 * `attachment remove` to the uploader, `upload_space_used` counting down. The reply names the file
 * digests (uploads and thumbnails) for the job to hand to the file store's `forget`, which removes
 * bytes no other record names.
 */
import { ok } from '../../errors.js';
import { liveMessageIds, uploadSpaceUsed, type AttachmentDeleted } from '../../domain/attachments.js';
import { thumbnailDigests } from '../../domain/upload-thumbnails.js';
import type { Handler, RealmEvent } from '../decision.js';

/** Zulip's `DELETE_UNCLAIMED_ATTACHMENTS_AFTER_DAYS` default: 3 weeks, in seconds. */
export const DELETE_UNCLAIMED_ATTACHMENTS_AFTER_SECONDS = 21 * 86400;
/** Uploads one command deletes at most (bounded work per actor turn). */
export const MAX_EXPIRED_PER_COMMAND = 500;

/** `delete_unclaimed_attachments`, sent by the expiry job (`realm/attachment-expiry-job.ts`). */
export interface DeleteUnclaimedAttachments {
  type: 'delete_unclaimed_attachments';
  /** The job's clock, UNIX seconds. */
  nowSeconds: number;
  /** Uploads older than this many seconds are eligible. */
  maxAgeSeconds: number;
}

/** Reply: the file-store digests no longer named by the deleted uploads, and whether none is left. */
export interface AttachmentExpiryReplies {
  delete_unclaimed_attachments: { deleted: number; digests: string[]; complete: boolean };
}

export const deleteUnclaimedAttachments: Handler<DeleteUnclaimedAttachments, AttachmentExpiryReplies['delete_unclaimed_attachments']> = (state, cmd) => {
  const cutoff = cmd.nowSeconds - cmd.maxAgeSeconds;
  const records: AttachmentDeleted[] = [];
  const events: RealmEvent[] = [];
  const digests: string[] = [];
  let spaceUsed = uploadSpaceUsed(state);
  let complete = true;
  for (const a of state.attachments?.byId.values() ?? []) {
    if (a.createTime >= cutoff || liveMessageIds(state, a).length > 0) continue;
    if (records.length === MAX_EXPIRED_PER_COMMAND) {
      complete = false;
      break;
    }
    spaceUsed -= a.size;
    records.push({ type: 'attachment_deleted', v: 1, id: a.id });
    digests.push(a.sha256, ...thumbnailDigests(a));
    events.push({ userIds: [a.ownerId], payload: { type: 'attachment', op: 'remove', attachment: { id: a.id }, upload_space_used: spaceUsed } });
  }
  return ok({ records, events, reply: { deleted: records.length, digests, complete } });
};
