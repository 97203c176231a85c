/**
 * typebox schemas of the events about the organization's configuration: `realm_linkifiers`,
 * `channel_folder`, `custom_profile_fields`, `invites_changed`. Strict objects, as every event
 * schema (see `schemas.ts`, which gathers them).
 */
import Type from 'typebox';
import { Bool, Int, Str, strict } from './register/schema-helpers.js';
import { ChannelFolderSchema, CustomProfileFieldSchema } from './register/schemas.js';

/**
 * `realm_linkifiers` (https://zulip.com/api/get-linkifiers, https://zulip.com/api/get-events): the
 * realm's whole ordered linkifier list.
 */
export const RealmLinkifiersEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('realm_linkifiers'), realm_linkifiers: Type.Array(Type.Object({ pattern: Str(), url_template: Str(), id: Int() }, strict)) },
  strict,
);

/**
 * `channel_folder` (Zulip FL 389–414, `zerver/actions/channel_folders.py`): op `add` with the
 * folder; op `update` with `channel_folder_id` and one change in `data` (`{name}`,
 * `{description, rendered_description}` or `{is_archived}`); op `reorder` with the `order` list.
 */
export const ChannelFolderEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('channel_folder'), op: Type.Literal('add'), channel_folder: ChannelFolderSchema }, strict),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('channel_folder'),
      op: Type.Literal('update'),
      channel_folder_id: Int(),
      data: Type.Union([
        Type.Object({ name: Str() }, strict),
        Type.Object({ description: Str(), rendered_description: Str() }, strict),
        Type.Object({ is_archived: Bool() }, strict),
      ]),
    },
    strict,
  ),
  Type.Object({ id: Int(), type: Type.Literal('channel_folder'), op: Type.Literal('reorder'), order: Type.Array(Int()) }, strict),
]);

/**
 * `custom_profile_fields`: every field of the realm after a change
 * (https://zulip.com/api/get-custom-profile-fields).
 */
export const CustomProfileFieldsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('custom_profile_fields'), fields: Type.Array(CustomProfileFieldSchema) },
  strict,
);

/** `invites_changed` (OpenAPI): no data; clients refetch `GET /invites`. */
export const InvitesChangedEventSchema = Type.Object({ id: Int(), type: Type.Literal('invites_changed') }, strict);
