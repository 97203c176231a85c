/**
 * Upload and attachment endpoints (https://zulip.com/api/upload-file,
 * https://zulip.com/api/get-file-temporary-url, https://zulip.com/api/get-attachments,
 * https://zulip.com/api/remove-attachment; Zulip's zerver/views/upload.py, attachments.py):
 *
 * - `POST /user_uploads`: exactly one file part (none → "You must specify a file to upload",
 *   more → "You may only upload one file at a time"), not empty, at most
 *   `max_file_upload_size_mib` (the HTTP layer stopped reading past it), within the realm quota.
 *   The file is committed to the store (durable) before the attachment record is appended (durable)
 *   and only then answered `{uri, url, filename}` (`url` = `uri` = `/user_uploads/{path_id}`,
 *   `filename` = the name as sent).
 * - `GET /user_uploads/{realm_id_str}/{path}`: `{url}` of a 60 s temporary URL for a file the
 *   user may read (`File not found` for missing and not allowed alike).
 * - `GET /attachments` → `{attachments, upload_space_used}`; `DELETE /attachments/{id}`.
 */
import { Errors } from '../errors.js';
import { accessAttachmentByPath } from '../domain/access.js';
import { attachmentsOf, attachmentWire, uploadSpaceUsed } from '../domain/attachments.js';
import { thumbnailDigests } from '../domain/upload-thumbnails.js';
import { defineEndpoint } from './define-endpoint.js';
import { runCommand } from './run-command.js';
import { newPathId, sanitizeName, temporaryUrl, uploadContentType } from './upload-names.js';

const MIB = 1024 * 1024;

/** `POST /user_uploads` (Zulip's `upload_file_backend`). */
export const uploadFile = defineEndpoint({
  auth: 'user',
  params: {},
  handler: async ({ realm, user, files, uploads }) => {
    if (files.length === 0 || uploads === null) return Errors.uploadNoFile();
    if (files.length > 1) return Errors.uploadTooManyFiles();
    const file = files[0]!;
    if (file.size > uploads.maxFileUploadMib * MIB) return Errors.uploadTooLarge(uploads.maxFileUploadMib);
    if (file.size === 0) return Errors.uploadEmpty();
    // Checked before the bytes are committed (and again by the handler, against the live state).
    if (uploads.quotaBytes !== null && uploadSpaceUsed(realm.state) + file.size > uploads.quotaBytes) return Errors.uploadQuota();
    const filename = file.filename === '' ? file.fieldName : file.filename;
    const name = sanitizeName(filename);
    const pathId = newPathId(realm.id, name);
    await file.commit();
    const contentType = uploadContentType(file.contentType, name);
    const image = await uploads.thumbnail(file.sha256, contentType);
    const command = {
      type: 'upload_file' as const, actorId: user.id, pathId, name, sha256: file.sha256, size: file.size,
      contentType, quotaBytes: uploads.quotaBytes, ...(image !== undefined && { image }),
    };
    const url = `/user_uploads/${pathId}`;
    const outcome = await runCommand(realm, command, () => ({ uri: url, url, filename }));
    // Refused (e.g. the quota, checked again on the live state): the stored bytes are nobody's.
    if (outcome instanceof Error) for (const sha256 of [file.sha256, ...(image?.thumbnails.map((t) => t.sha256) ?? [])]) uploads.forget(sha256);
    return outcome;
  },
});

/** `GET /user_uploads/{realm_id_str}/{filename}` (Zulip's `serve_file_url_backend`). */
export const getFileTemporaryUrl = defineEndpoint({
  auth: 'user',
  pathParams: { realm_id_str: 'string', hex: 'string', random: 'string', filename: 'string' },
  params: {},
  handler: ({ realm, user, path, uploads }) => {
    if (path.realm_id_str !== String(realm.id) || uploads === null) return Errors.fileNotFound();
    const access = accessAttachmentByPath(realm.state, user, `${path.realm_id_str}/${path.hex}/${path.random}/${path.filename}`);
    if (!access.ok) return access.error;
    return { url: temporaryUrl(uploads.urlKey, realm.id, access.value.pathId, Date.now() / 1000) };
  },
});

/** `GET /attachments` (Zulip's `list_by_user`). */
export const getAttachments = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => ({
    attachments: attachmentsOf(realm.state, user.id).map((a) => attachmentWire(realm.state, a)),
    upload_space_used: uploadSpaceUsed(realm.state),
  }),
});

/** `DELETE /attachments/{attachment_id}` (Zulip's `remove`). */
export const removeAttachment = defineEndpoint({
  auth: 'user',
  pathParams: { attachment_id: 'int' },
  params: {},
  handler: async ({ realm, user, path, uploads }) => {
    const a = realm.state.attachments?.byId.get(path.attachment_id);
    const digests = a === undefined ? [] : [a.sha256, ...thumbnailDigests(a)];
    const outcome = await runCommand(realm, { type: 'delete_attachment', actorId: user.id, attachmentId: path.attachment_id });
    // Zulip deletes the stored file (and its thumbnails) with the attachment (zerver/actions/uploads.py do_delete_old_unclaimed_attachments).
    if (!(outcome instanceof Error) && uploads !== null) for (const sha256 of digests) uploads.forget(sha256);
    return outcome;
  },
});
