/**
 * Uploaded files and their attachment records (Zulip's `zerver/models/messages.py` `Attachment`,
 * `zerver/lib/attachments.py`, `zerver/actions/uploads.py` `do_claim_attachments`;
 * https://zulip.com/api/get-attachments).
 *
 * An attachment is one upload by one user: its `path_id` (`{realm_id}/{1-2 hex}/{24 random}/{name}`,
 * the part of `/user_uploads/...` after the prefix), its sanitized file name, size in bytes,
 * content type, the SHA-256 of its bytes in the file store, its creation time, and the ids of the
 * messages that link it (claimed when a message is sent or edited with a link to it).
 *
 * State: `RealmState.attachments` (optional: created on the first upload) with the attachments by
 * id and by path, the next id and the realm's total bytes (`upload_space_used`).
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';
import { thumbnailDigests, type UploadImage } from './upload-thumbnails.js';

/** One uploaded file. */
export interface Attachment {
  id: number;
  ownerId: number;
  /** `{realm_id}/{hex}/{random}/{sanitized name}` (no leading slash). */
  pathId: string;
  /** The sanitized file name (last segment of `pathId`). */
  name: string;
  /** SHA-256 of the bytes (lower-case hex): the file store's key. */
  sha256: string;
  /** Bytes. */
  size: number;
  /** The media type it is served with. */
  contentType: string;
  /** UNIX seconds. */
  createTime: number;
  /** Ids of the messages linking it, ascending. */
  messageIds: number[];
  /** Set when the upload decoded as an image: its size, frames and thumbnails (`domain/upload-thumbnails.ts`). */
  image?: UploadImage;
}

/** The realm's attachments. */
export interface AttachmentState {
  byId: Map<number, Attachment>;
  byPath: Map<string, number>;
  nextId: number;
  /** Sum of `size` over all attachments (bytes). */
  spaceUsedBytes: number;
}

/** A user uploaded a file (`POST /user_uploads`); `messageIds` start empty. */
export interface AttachmentUploaded {
  type: 'attachment_uploaded';
  v: 1;
  attachment: Omit<Attachment, 'messageIds'>;
}

/** A user deleted their upload (`DELETE /attachments/{id}`). */
export interface AttachmentDeleted {
  type: 'attachment_deleted';
  v: 1;
  id: number;
}

/**
 * A message's links to uploads changed (sent with links, or edited): `added` attachment ids now
 * name the message, `removed` no longer do.
 */
export interface AttachmentMessagesChanged {
  type: 'attachment_messages_changed';
  v: 1;
  messageId: number;
  added: number[];
  removed: number[];
}

export type AttachmentRecord = AttachmentUploaded | AttachmentDeleted | AttachmentMessagesChanged;

/** Zulip's attachment object (`Attachment.to_dict()`); times in UNIX milliseconds. */
export interface AttachmentWire {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: Array<{ id: number; date_sent: number }>;
}

/** The attachment with this id, or undefined. */
export function findAttachment(state: RealmState, id: number): Attachment | undefined {
  return state.attachments?.byId.get(id);
}

/** The attachment stored under `pathId`, or undefined. */
export function findAttachmentByPath(state: RealmState, pathId: string): Attachment | undefined {
  const id = state.attachments?.byPath.get(pathId);
  return id === undefined ? undefined : state.attachments!.byId.get(id);
}

/** The id the next upload gets. */
export function nextAttachmentId(state: RealmState): number {
  return state.attachments?.nextId ?? 1;
}

/** `upload_space_used`: bytes of all the realm's uploads (Zulip's `currently_used_upload_space_bytes`). */
export function uploadSpaceUsed(state: RealmState): number {
  return state.attachments?.spaceUsedBytes ?? 0;
}

/** The ids of the messages linking `a` that still exist, ascending. */
export function liveMessageIds(state: RealmState, a: Attachment): number[] {
  return a.messageIds.filter((id) => state.messages.exists(id));
}

/** Zulip's `Attachment.to_dict()`: `messages` with `date_sent` in milliseconds. */
export function attachmentWire(state: RealmState, a: Attachment): AttachmentWire {
  return {
    id: a.id,
    name: a.name,
    path_id: a.pathId,
    size: a.size,
    create_time: Math.floor(a.createTime * 1000),
    messages: liveMessageIds(state, a).map((id) => ({ id, date_sent: state.messages.timestamp.get(id) * 1000 })),
  };
}

/** `GET /attachments`: the user's uploads, by id. */
export function attachmentsOf(state: RealmState, userId: number): Attachment[] {
  const all = state.attachments;
  if (all === undefined) return [];
  return [...all.byId.values()].filter((a) => a.ownerId === userId);
}

/** Every SHA-256 the realm's attachments name, thumbnails included (for the file store's sweep). */
export function attachmentDigests(state: RealmState): Iterable<string> {
  return [...(state.attachments?.byId.values() ?? [])].flatMap((a) => [a.sha256, ...thumbnailDigests(a)]);
}

/** Path ids of uploads linked from rendered HTML: `href="/user_uploads/{path_id}"`, in order, unique. */
export function linkedUploadPaths(renderedHtml: string): string[] {
  const out = new Set<string>();
  for (const m of renderedHtml.matchAll(/\shref="\/user_uploads\/([^"?#]+)"/g)) {
    const raw = m[1]!.replace(/&amp;/g, '&');
    let path: string;
    try {
      path = decodeURIComponent(raw);
    } catch {
      path = raw;
    }
    out.add(path);
  }
  return [...out];
}

/**
 * Ids of the messages that claimed at least one upload (Zulip's `Message.has_attachment`, set by
 * `do_claim_attachments` on send and by `check_attachment_reference_change` on edit).
 */
export function messagesWithAttachments(state: RealmState): Set<number> {
  const out = new Set<number>();
  for (const a of state.attachments?.byId.values() ?? []) for (const id of a.messageIds) out.add(id);
  return out;
}

/** The ids of the attachments that name `messageId` (for edits). */
export function attachmentsOfMessage(state: RealmState, messageId: number): Attachment[] {
  const all = state.attachments;
  if (all === undefined) return [];
  return [...all.byId.values()].filter((a) => a.messageIds.includes(messageId));
}

/** `evolve` of the attachment records. */
export function evolveAttachments(state: RealmState, r: AttachmentRecord): void {
  const all: AttachmentState = (state.attachments ??= { byId: new Map(), byPath: new Map(), nextId: 1, spaceUsedBytes: 0 });
  switch (r.type) {
    case 'attachment_uploaded': {
      const a: Attachment = { ...r.attachment, messageIds: [] };
      all.byId.set(a.id, a);
      all.byPath.set(a.pathId, a.id);
      all.spaceUsedBytes += a.size;
      if (a.id >= all.nextId) all.nextId = a.id + 1;
      return;
    }
    case 'attachment_deleted': {
      const a = all.byId.get(r.id);
      if (a === undefined) return;
      all.byId.delete(a.id);
      all.byPath.delete(a.pathId);
      all.spaceUsedBytes -= a.size;
      return;
    }
    case 'attachment_messages_changed': {
      for (const id of r.added) {
        const a = all.byId.get(id);
        if (a !== undefined && !a.messageIds.includes(r.messageId)) {
          a.messageIds.push(r.messageId);
          a.messageIds.sort((x, y) => x - y);
        }
      }
      for (const id of r.removed) {
        const a = all.byId.get(id);
        if (a !== undefined) a.messageIds = a.messageIds.filter((m) => m !== r.messageId);
      }
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** Snapshot form (absent before the first upload). */
export interface AttachmentsCore {
  nextId: number;
  attachments: Attachment[];
}

export function attachmentsToCore(state: RealmState): AttachmentsCore | undefined {
  const all = state.attachments;
  if (all === undefined) return undefined;
  return { nextId: all.nextId, attachments: [...all.byId.values()].map((a) => ({ ...a, messageIds: [...a.messageIds] })) };
}

/** Restores `state.attachments` (`undefined`/`null`: an older snapshot or no upload ever). */
export function attachmentsFromCore(state: RealmState, core: AttachmentsCore | null | undefined): void {
  if (core === undefined || core === null) {
    delete state.attachments;
    return;
  }
  const byId = new Map<number, Attachment>();
  const byPath = new Map<string, number>();
  let spaceUsedBytes = 0;
  for (const a of core.attachments) {
    byId.set(a.id, { ...a, messageIds: [...a.messageIds] });
    byPath.set(a.pathId, a.id);
    spaceUsedBytes += a.size;
  }
  state.attachments = { byId, byPath, nextId: core.nextId, spaceUsedBytes };
}
