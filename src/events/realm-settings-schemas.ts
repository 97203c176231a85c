/**
 * typebox schemas of the `realm` events of `PATCH /realm` (https://zulip.com/api/get-events
 * `realm` `update` / `update_dict`; Zulip's zerver/actions/realm_settings.py `do_set_realm_property`,
 * `do_change_realm_permission_group_setting`). Each property's value schema is its `realm_<name>`
 * schema in the `/register` response, so an event and the state it patches cannot disagree.
 * Also `default_streams` and `realm_playgrounds`, whole-list events of the organization's setup,
 * and `realm_user_settings_defaults` (the defaults of new users' settings).
 */
import Type, { type TSchema } from 'typebox';
import { Int, strict } from './register/schema-helpers.js';
import { REALM_KEY_SCHEMAS } from './register/realm-schemas.js';
import { REGISTER_KEY_SCHEMAS } from './register/schemas.js';
import { REALM_PERMISSION_GROUP_SETTINGS } from '../domain/group-permissions.js';

/** Properties sent as `op: "update"` (`{property, value}`). */
export const REALM_UPDATE_PROPERTIES = [
  'name',
  'description',
  'allow_edit_history',
  'message_edit_history_visibility_policy',
  'message_content_delete_limit_seconds',
  'move_messages_within_stream_limit_seconds',
  'move_messages_between_streams_limit_seconds',
  'message_retention_days',
  'enable_spectator_access',
  'emails_restricted_to_domains',
  'welcome_message_custom_text',
  'enable_read_receipts',
  'waiting_period_threshold',
  'default_language',
  'topics_policy',
  'message_content_allowed_in_email_notifications',
  'moderation_request_channel_id',
  'new_stream_announcements_stream_id',
  'signup_announcements_stream_id',
  'zulip_update_announcements_stream_id',
  'avatar_changes_disabled',
] as const;

/**
 * Properties sent as `op: "update_dict"`, `property: "default"`, `data: {<name>: value}`: the
 * message-editing settings (Zulip's `message_edit_settings`) and every realm group setting.
 */
export const REALM_UPDATE_DICT_PROPERTIES = ['allow_message_editing', 'message_content_edit_limit_seconds', ...Object.keys(REALM_PERMISSION_GROUP_SETTINGS)];

const valueSchema = (property: string): TSchema => {
  const schema = REALM_KEY_SCHEMAS[`realm_${property}`];
  if (schema === undefined) throw new Error(`realm event property without a register schema: ${property}`);
  return schema;
};

/**
 * `realm` `update`: one property and its new value. The schema checks each property's value
 * against its register schema; typebox cannot infer that per-property union from a mapped list,
 * so `Type.Unsafe` declares its static type (the value is checked at run time, not by tsc).
 */
export const RealmUpdateEventSchema = Type.Unsafe<{ id: number; type: 'realm'; op: 'update'; property: string; value: unknown }>(Type.Union(
  REALM_UPDATE_PROPERTIES.map((property) =>
    Type.Object({ id: Int(), type: Type.Literal('realm'), op: Type.Literal('update'), property: Type.Literal(property), value: valueSchema(property) }, strict),
  ),
));

/** `realm` `update_dict` (`property: "default"`): one changed setting in `data` (static type declared as above). */
export const RealmUpdateDictEventSchema = Type.Unsafe<{ id: number; type: 'realm'; op: 'update_dict'; property: 'default'; data: Record<string, unknown> }>(Type.Object(
  {
    id: Int(),
    type: Type.Literal('realm'),
    op: Type.Literal('update_dict'),
    property: Type.Literal('default'),
    data: Type.Union(REALM_UPDATE_DICT_PROPERTIES.map((name) => Type.Object({ [name]: valueSchema(name) }, strict))),
  },
  strict,
));

/**
 * `realm` `update_dict` with `property: "icon"` (Zulip's zerver/actions/realm_icon.py
 * `do_change_icon_source`): the new `icon_url` and `icon_source` ("U" uploaded, "G" default).
 */
export const RealmIconEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('realm'),
    op: Type.Literal('update_dict'),
    property: Type.Literal('icon'),
    data: Type.Object({ icon_url: Type.String(), icon_source: Type.Union([Type.Literal('U'), Type.Literal('G')]) }, strict),
  },
  strict,
);

/** Every `realm` event parley sends. */
export const RealmEventSchema = Type.Union([RealmUpdateEventSchema, RealmUpdateDictEventSchema, RealmIconEventSchema]);

/**
 * `default_streams` (Zulip's `notify_default_streams`): the realm's default channel ids, ascending
 * (ids since FL 330, like `realm_default_streams` in `/register`).
 */
export const DefaultStreamsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('default_streams'), default_streams: Type.Array(Int()) },
  strict,
);

/**
 * `realm_user_settings_defaults` `update` (Zulip's `do_set_realm_user_default_setting`): one
 * default of new users' personal settings changed.
 */
export const RealmUserSettingsDefaultsEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('realm_user_settings_defaults'),
    op: Type.Literal('update'),
    property: Type.String(),
    value: Type.Union([Type.Boolean(), Type.Integer(), Type.String()]),
  },
  strict,
);

/** One allowed email domain in `realm_domains` events, as in `/register`. */
const RealmDomainObject = Type.Object({ domain: Type.String(), allow_subdomains: Type.Boolean() }, strict);

/**
 * `realm_domains` (Zulip's zerver/actions/realm_domains.py): `add` and `change` carry the domain
 * object, `remove` its name.
 */
export const RealmDomainsEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('realm_domains'), op: Type.Literal('add'), realm_domain: RealmDomainObject }, strict),
  Type.Object({ id: Int(), type: Type.Literal('realm_domains'), op: Type.Literal('change'), realm_domain: RealmDomainObject }, strict),
  Type.Object({ id: Int(), type: Type.Literal('realm_domains'), op: Type.Literal('remove'), domain: Type.String() }, strict),
]);

/** `realm_playgrounds` (Zulip's `notify_realm_playgrounds`): the whole list, as in `/register`. */
export const RealmPlaygroundsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('realm_playgrounds'), realm_playgrounds: REGISTER_KEY_SCHEMAS.realm_playgrounds! },
  strict,
);
