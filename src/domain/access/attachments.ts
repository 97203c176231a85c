/**
 * Upload access (Zulip's zerver/lib/attachments.py `validate_attachment_request`, used by
 * zerver/views/upload.py `serve_file` and by `do_claim_attachments` in zerver/actions/uploads.py):
 * a user may read an uploaded file when they uploaded it, or when they can read at least one
 * message that links it (the message-access rules of `canAccessMessage`, which include shared
 * channel history). A missing file and a file the user may not read give the same 404
 * `File not found` (no existence oracle), unlike Zulip's 403 page for the latter.
 */
import { Errors, fail, ok, type Result } from '../../errors.js';
import { findAttachmentByPath, type Attachment } from '../attachments.js';
import type { RealmState, User } from '../realm-state.js';
import { canAccessMessage } from './messages.js';

/** Whether `user` (active) may read attachment `a`: owner, or reader of a message linking it. */
export function canAccessAttachment(state: RealmState, user: User, a: Attachment): boolean {
  if (!user.isActive) return false;
  if (a.ownerId === user.id) return true;
  return a.messageIds.some((messageId) => canAccessMessage(state, user, messageId));
}

/** The attachment at `pathId` if `user` may read it, else `File not found` (404). */
export function accessAttachmentByPath(state: RealmState, user: User, pathId: string): Result<Attachment> {
  const a = findAttachmentByPath(state, pathId);
  return a !== undefined && canAccessAttachment(state, user, a) ? ok(a) : fail(Errors.fileNotFound());
}

/** The user's own attachment `id` (`DELETE /attachments/{id}`), else `Invalid attachment`. */
export function accessOwnAttachment(state: RealmState, user: User, id: number): Result<Attachment> {
  const a = state.attachments?.byId.get(id);
  return a !== undefined && user.isActive && a.ownerId === user.id ? ok(a) : fail(Errors.invalidAttachment());
}
