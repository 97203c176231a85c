/**
 * Upload and attachment commands (https://zulip.com/api/upload-file,
 * https://zulip.com/api/remove-attachment; Zulip's zerver/views/upload.py `upload_file_backend`,
 * zerver/lib/upload/__init__.py `check_upload_within_quota`, zerver/views/attachments.py
 * `remove`, zerver/actions/uploads.py `do_claim_attachments`, zerver/actions/message_edit.py
 * `check_attachment_reference_change`).
 *
 * - `upload_file`: the bytes are already durable in the file store (the API layer wrote them);
 *   this records the attachment. Quota: the realm's total plus this file over `quotaBytes` →
 *   REALM_UPLOAD_QUOTA. Event `attachment add` to the uploader.
 * - `delete_attachment`: the uploader's own attachment only ("Invalid attachment" otherwise).
 *   Event `attachment remove` to the uploader.
 * - `claimAttachments`: on send and content edit, the uploads a message links
 *   (`href="/user_uploads/{path_id}"` in its rendered HTML) are attached to it when the sender may
 *   read them (uploader, or reader of another message linking them); links the sender may not read
 *   are ignored, as in Zulip. Each claim sends the uploader `attachment update`.
 */
import { Errors, fail, ok } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { accessOwnAttachment, canAccessAttachment } from '../../domain/access.js';
import {
  attachmentsOfMessage,
  attachmentWire,
  findAttachmentByPath,
  linkedUploadPaths,
  nextAttachmentId,
  uploadSpaceUsed,
  type Attachment,
  type AttachmentMessagesChanged,
  type AttachmentWire,
} from '../../domain/attachments.js';
import type { UploadImage } from '../../domain/upload-thumbnails.js';
import type { Handler, RealmEvent } from '../decision.js';

/** `POST /user_uploads` once the file is stored: record it. */
export interface UploadFile {
  type: 'upload_file';
  actorId: number;
  /** `{realm_id}/{hex}/{random}/{sanitized name}`, built by the API layer. */
  pathId: string;
  /** Sanitized name (the last segment of `pathId`). */
  name: string;
  sha256: string;
  /** Bytes, > 0. */
  size: number;
  contentType: string;
  /** The realm's upload quota in bytes; null = none. */
  quotaBytes: number | null;
  /** Set when the bytes decoded as an image: its size and thumbnails, already in the file store. */
  image?: UploadImage;
}

/** `DELETE /attachments/{attachment_id}`. */
export interface DeleteAttachment {
  type: 'delete_attachment';
  actorId: number;
  attachmentId: number;
}

export type AttachmentCommand = UploadFile | DeleteAttachment;

/** Replies of the attachment commands (merged into `CommandReplies`). */
export interface AttachmentReplies {
  upload_file: { id: number };
  delete_attachment: Record<string, never>;
}

function activeUser(state: RealmState, id: number): User | undefined {
  const user = state.users.get(id);
  return user?.isActive ? user : undefined;
}

export const uploadFile: Handler<UploadFile, { id: number }> = (state, cmd, ctx) => {
  const user = activeUser(state, cmd.actorId);
  if (user === undefined) return fail(Errors.noSuchUser());
  if (findAttachmentByPath(state, cmd.pathId) !== undefined) return fail(Errors.badRequest('Upload path already in use'));
  if (cmd.quotaBytes !== null && uploadSpaceUsed(state) + cmd.size > cmd.quotaBytes) return fail(Errors.uploadQuota());
  const id = nextAttachmentId(state);
  const attachment = {
    id, ownerId: user.id, pathId: cmd.pathId, name: cmd.name, sha256: cmd.sha256, size: cmd.size,
    contentType: cmd.contentType, createTime: ctx.now(), ...(cmd.image !== undefined && { image: cmd.image }),
  };
  const wire: AttachmentWire = { ...attachmentWire(state, { ...attachment, messageIds: [] }) };
  return ok({
    records: [{ type: 'attachment_uploaded', v: 1, attachment }],
    events: [{ userIds: [user.id], payload: { type: 'attachment', op: 'add', attachment: wire, upload_space_used: uploadSpaceUsed(state) + cmd.size } }],
    reply: { id },
  });
};

export const deleteAttachment: Handler<DeleteAttachment, Record<string, never>> = (state, cmd) => {
  const user = activeUser(state, cmd.actorId);
  if (user === undefined) return fail(Errors.noSuchUser());
  const own = accessOwnAttachment(state, user, cmd.attachmentId);
  if (!own.ok) return own;
  return ok({
    records: [{ type: 'attachment_deleted', v: 1, id: own.value.id }],
    events: [{ userIds: [user.id], payload: { type: 'attachment', op: 'remove', attachment: { id: own.value.id }, upload_space_used: uploadSpaceUsed(state) - own.value.size } }],
    reply: {},
  });
};

/** What linking uploads to a message adds to a send or edit decision. */
export interface AttachmentClaims {
  records: AttachmentMessagesChanged[];
  events: RealmEvent[];
  /**
   * `detached_uploads` of an edit: the sender's uploads this edit unlinked that no other message
   * links any more (Zulip's `PATCH /messages/{id}` response, FL 285).
   */
  detached: AttachmentWire[];
}

const NO_CLAIMS: AttachmentClaims = { records: [], events: [], detached: [] };

/**
 * The attachment changes of message `messageId` (sent at `timestampSeconds`) by `sender` now
 * rendered as `rendered`: uploads newly linked (and readable by the sender) are claimed, uploads
 * no longer linked are released. For a new message the message does not exist in `state` yet.
 */
export function claimAttachments(state: RealmState, sender: User, messageId: number, timestampSeconds: number, rendered: string): AttachmentClaims {
  if (state.attachments === undefined || state.attachments.byId.size === 0) return NO_CLAIMS;
  const previous = attachmentsOfMessage(state, messageId);
  const linked = new Map<number, Attachment>();
  for (const path of linkedUploadPaths(rendered)) {
    const a = findAttachmentByPath(state, path);
    if (a !== undefined) linked.set(a.id, a);
  }
  const before = new Set(previous.map((a) => a.id));
  const added = [...linked.values()].filter((a) => !before.has(a.id) && canAccessAttachment(state, sender, a));
  const removed = previous.filter((a) => !linked.has(a.id));
  if (added.length === 0 && removed.length === 0) return NO_CLAIMS;
  const record: AttachmentMessagesChanged = {
    type: 'attachment_messages_changed', v: 1, messageId, added: added.map((a) => a.id), removed: removed.map((a) => a.id),
  };
  const spaceUsed = uploadSpaceUsed(state);
  const events: RealmEvent[] = [];
  const dateSent = Math.floor(timestampSeconds) * 1000;
  for (const a of added) {
    const wire = attachmentWire(state, a);
    if (!wire.messages.some((m) => m.id === messageId)) {
      wire.messages.push({ id: messageId, date_sent: dateSent });
      wire.messages.sort((x, y) => x.id - y.id);
    }
    events.push({ userIds: [a.ownerId], payload: { type: 'attachment', op: 'update', attachment: wire, upload_space_used: spaceUsed } });
  }
  const detached: AttachmentWire[] = [];
  for (const a of removed) {
    const wire = attachmentWire(state, a);
    wire.messages = wire.messages.filter((m) => m.id !== messageId);
    events.push({ userIds: [a.ownerId], payload: { type: 'attachment', op: 'update', attachment: wire, upload_space_used: spaceUsed } });
    if (a.ownerId === sender.id && wire.messages.length === 0) detached.push(wire);
  }
  return { records: [record], events, detached };
}
