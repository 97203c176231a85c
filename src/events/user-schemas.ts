/**
 * typebox schemas of the events about users and groups: `realm_user` (profile, role, activation,
 * custom profile field, email and avatar updates; `add`), `realm_bot`, `user_settings` and the
 * legacy `update_display_settings` / `update_global_notifications`, `user_status`, `presence`,
 * `user_group`. Strict objects, as every event schema (see `schemas.ts`, which gathers them).
 */
import Type from 'typebox';
import { Bool, Int, Nullable, Str, strict } from './register/schema-helpers.js';
import { BotSchema, RegisterUserSchema, UserGroupSchema } from './register/schemas.js';

/**
 * `user_group` events (OpenAPI `user_group`
 * add/update/remove/add_members/remove_members/add_subgroups/remove_subgroups).
 */
export const UserGroupEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('user_group'), op: Type.Literal('add'), group: UserGroupSchema }, strict),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('user_group'),
      op: Type.Literal('update'),
      group_id: Int(),
      data: Type.Object({ name: Type.Optional(Str()), description: Type.Optional(Str()), deactivated: Type.Optional(Bool()) }, strict),
    },
    strict,
  ),
  // Deactivation, for clients without the `include_deactivated_groups` capability.
  Type.Object({ id: Int(), type: Type.Literal('user_group'), op: Type.Literal('remove'), group_id: Int() }, strict),
  Type.Object(
    { id: Int(), type: Type.Literal('user_group'), op: Type.Union([Type.Literal('add_members'), Type.Literal('remove_members')]), group_id: Int(), user_ids: Type.Array(Int()) },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('user_group'),
      op: Type.Union([Type.Literal('add_subgroups'), Type.Literal('remove_subgroups')]),
      group_id: Int(),
      direct_subgroup_ids: Type.Array(Int()),
    },
    strict,
  ),
]);

/** `user_status` (https://zulip.com/api/update-status): `user_id` plus only the keys the client supplied. */
export const UserStatusEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('user_status'),
    user_id: Int(),
    away: Type.Optional(Type.Boolean()),
    status_text: Type.Optional(Str()),
    emoji_name: Type.Optional(Str()),
    emoji_code: Type.Optional(Str()),
    reaction_type: Type.Optional(Str()),
  },
  strict,
);

/**
 * `presence` (https://zulip.com/api/get-events): `email` is absent for queues registered with
 * `slim_presence=true`; `server_timestamp` is a float.
 */
export const PresenceEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('presence'),
    user_id: Int(),
    email: Type.Optional(Str()),
    server_timestamp: Type.Number(),
    presence: Type.Object(
      {
        website: Type.Object(
          { client: Type.Literal('website'), status: Type.Union([Type.Literal('active'), Type.Literal('idle')]), timestamp: Int(), pushable: Type.Literal(false) },
          strict,
        ),
      },
      strict,
    ),
  },
  strict,
);

/**
 * `realm_user` update forms (OpenAPI `realm_user` op `update`): a custom profile field value
 * (custom-profile-fields.ts, user-admin.ts) and the forms user administration sends.
 */
const RealmUserPersons = Type.Union([
  Type.Object(
    {
      user_id: Int(),
      custom_profile_field: Type.Object({ id: Int(), value: Type.Union([Str(), Type.Null()]), rendered_value: Type.Optional(Str()) }, strict),
    },
    strict,
  ),
  Type.Object({ user_id: Int(), full_name: Str() }, strict),
  Type.Object({ user_id: Int(), role: Int() }, strict),
  Type.Object({ user_id: Int(), is_active: Bool() }, strict),
  Type.Object({ user_id: Int(), email: Str(), timezone: Str() }, strict),
  Type.Object({ user_id: Int(), delivery_email: Nullable(Str()) }, strict),
  Type.Object({ user_id: Int(), new_email: Str() }, strict),
  Type.Object({ user_id: Int(), avatar_source: Str(), avatar_url: Str(), avatar_url_medium: Str(), avatar_version: Int() }, strict),
  Type.Object({ user_id: Int(), bot_owner_id: Int() }, strict),
]);
/** Zulip's user object (https://zulip.com/api/get-user): the register form plus `is_active`. */
export const UserObjectSchema = Type.Object({ ...RegisterUserSchema.properties, is_active: Bool() }, strict);

/** `realm_user` ops `update` and `add`. */
export const RealmUserEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('realm_user'), op: Type.Literal('update'), person: RealmUserPersons }, strict),
  Type.Object(
    { id: Int(), type: Type.Literal('realm_user'), op: Type.Literal('add'), person: UserObjectSchema },
    strict,
  ),
]);

/** `user_settings` update (FL 89) sent by `PATCH /settings` (src/realm/handlers/user-admin.ts). */
export const UserSettingsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('user_settings'), op: Type.Literal('update'), property: Str(), value: Type.Union([Str(), Int(), Bool()]), language_name: Type.Optional(Str()) },
  strict,
);

/** Legacy `update_display_settings` (only to queues without the `user_settings_object` capability). */
export const UpdateDisplaySettingsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('update_display_settings'), user: Str(), setting_name: Str(), setting: Type.Union([Str(), Int(), Bool()]), language_name: Type.Optional(Str()) },
  strict,
);

/** Legacy `update_global_notifications` (only to queues without the `user_settings_object` capability). */
export const UpdateGlobalNotificationsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('update_global_notifications'), user: Str(), notification_name: Str(), setting: Type.Union([Str(), Int(), Bool()]) },
  strict,
);

/** `realm_bot` add (POST /bots: the bot as `realm_bots` shows it), update (one changed attribute) and delete. */
export const RealmBotEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('realm_bot'), op: Type.Literal('add'), bot: BotSchema }, strict),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('realm_bot'),
      op: Type.Literal('update'),
      bot: Type.Union([
        Type.Object({ user_id: Int(), full_name: Str() }, strict),
        Type.Object({ user_id: Int(), is_active: Bool() }, strict),
        // Bot settings (zerver/actions/bots.py, zerver/actions/users.py do_regenerate_api_key)
        Type.Object({ user_id: Int(), owner_id: Int() }, strict),
        Type.Object({ user_id: Int(), default_sending_stream: Nullable(Str()) }, strict),
        Type.Object({ user_id: Int(), default_events_register_stream: Nullable(Str()) }, strict),
        Type.Object({ user_id: Int(), default_all_public_streams: Bool() }, strict),
        Type.Object({ user_id: Int(), services: Type.Array(Type.Object({ base_url: Str(), interface: Int(), token: Str() }, strict)) }, strict),
        Type.Object({ user_id: Int(), api_key: Str() }, strict),
      ]),
    },
    strict,
  ),
  // To a previous non-administrator owner when the bot changes hands (do_change_bot_owner).
  Type.Object({ id: Int(), type: Type.Literal('realm_bot'), op: Type.Literal('delete'), bot: Type.Object({ user_id: Int() }, strict) }, strict),
]);
