/**
 * typebox schema of the `attachment` event (https://zulip.com/api/get-events#attachment-add;
 * Zulip's zerver/lib/attachments.py `notify_attachment_update`), sent to the uploader's queues:
 * `add` after an upload, `update` when messages linking the file change, `remove` (with the
 * id only) after `DELETE /attachments/{id}`. `upload_space_used` is the realm's total in bytes.
 */
import Type from 'typebox';
import { Int, Str, strict } from './register/schema-helpers.js';

/** Zulip's attachment object (`Attachment.to_dict()`); times in UNIX milliseconds. */
export const AttachmentObjectSchema = Type.Object(
  {
    id: Int(),
    name: Str(),
    path_id: Str(),
    size: Int(),
    create_time: Int(),
    messages: Type.Array(Type.Object({ id: Int(), date_sent: Int() }, strict)),
  },
  strict,
);

/** The `attachment` event: `add`/`update` carry the object, `remove` only its id. */
export const AttachmentEventSchema = Type.Union([
  Type.Object(
    { id: Int(), type: Type.Literal('attachment'), op: Type.Literal('add'), attachment: AttachmentObjectSchema, upload_space_used: Int() },
    strict,
  ),
  Type.Object(
    { id: Int(), type: Type.Literal('attachment'), op: Type.Literal('update'), attachment: AttachmentObjectSchema, upload_space_used: Int() },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('attachment'),
      op: Type.Literal('remove'),
      attachment: Type.Object({ id: Int() }, strict),
      upload_space_used: Int(),
    },
    strict,
  ),
]);

