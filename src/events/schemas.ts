/**
 * typebox schemas of the client events parley emits and of the `POST /register` response, with
 * checkers returning readable error lists (Zulip's `zerver/lib/event_schema.py` idea: every
 * feature's tests check each event it produces). Objects are strict: an unexpected key is an
 * error, so a schema and its producer cannot drift apart silently.
 *
 * Events (each as delivered by `GET /events`, i.e. with its queue `id`):
 * - `message`: `{id, type: "message", message: <message object>, flags: string[], local_message_id?}`
 *   (zulip-behavior.md §10.4; `message` as in seed §2.2, without `flags`);
 * - `heartbeat`: `{id, type: "heartbeat"}`;
 * - `typing`: `{id, type: "typing", op: "start"|"stop", message_type: "direct", sender: {user_id,
 *   email}, recipients: [{user_id, email}]}` or `{…, message_type: "stream", sender, stream_id,
 *   topic}` (FL 215 renamed `private` to `direct`; stream typing since FL 58).
 *
 * Compiled validators are built on first use and cached.
 */
import Type, { type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { ChannelFolderSchema, REGISTER_KEY_SCHEMAS, RegisterUserSchema } from './register/schemas.js';
import { StreamEventSchema, SubscriptionEventSchema } from './subscription-schemas.js';
import {
  DeleteMessageEventSchema,
  MESSAGE_FLAGS,
  MessageEventSchema,
  ReactionEventSchema,
  UpdateMessageEventSchema,
  UpdateMessageFlagsEventSchema,
} from './message-schemas.js';
export { MESSAGE_FLAGS, MessageSchema } from './message-schemas.js';

export {
  REGISTER_KEY_SCHEMAS,
  GroupSettingValueSchema,
  RegisterUserSchema,
  StreamSchema,
  SubscriptionSchema,
} from './register/schemas.js';

const strict = { additionalProperties: false } as const;
const Int = () => Type.Integer();
const Str = () => Type.String();
const Bool = () => Type.Boolean();
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const HeartbeatEventSchema = Type.Object({ id: Int(), type: Type.Literal('heartbeat') }, strict);

const TypingUser = Type.Object({ user_id: Int(), email: Str() }, strict);
const TypingOp = Type.Union([Type.Literal('start'), Type.Literal('stop')]);

export const TypingEventSchema = Type.Union([
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('typing'),
      op: TypingOp,
      message_type: Type.Literal('direct'),
      sender: TypingUser,
      recipients: Type.Array(TypingUser),
    },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('typing'),
      op: TypingOp,
      message_type: Type.Literal('stream'),
      sender: TypingUser,
      stream_id: Int(),
      topic: Str(),
    },
    strict,
  ),
]);

/** `user_topic` (zulip-behavior.md §3.15, §10.4): the user's new policy for one topic. */
export const UserTopicEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('user_topic'),
    stream_id: Int(),
    topic_name: Str(),
    last_updated: Int(),
    visibility_policy: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2), Type.Literal(3)]),
  },
  strict,
);

/** Legacy `muted_topics`: the whole list of `[stream_name, topic, last_updated]` after a change. */
export const MutedTopicsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('muted_topics'), muted_topics: Type.Array(Type.Tuple([Str(), Str(), Int()])) },
  strict,
);

/** The item schema of a list-valued register key (events carry the same objects). */
function registerListItem(key: string): TSchema {
  return (REGISTER_KEY_SCHEMAS[key] as unknown as { items: TSchema }).items;
}

/** `user_group` events (OpenAPI `user_group` add/update/remove/add_members/remove_members/add_subgroups/remove_subgroups). */
export const UserGroupEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('user_group'), op: Type.Literal('add'), group: registerListItem('realm_user_groups') }, strict),
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

/** `user_status` (zulip-behavior.md §7.1): `user_id` plus only the keys the client supplied. */
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

/** `realm_linkifiers` (zulip-behavior.md §6, §10.4): the realm's whole ordered linkifier list. */
export const RealmLinkifiersEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('realm_linkifiers'), realm_linkifiers: Type.Array(Type.Object({ pattern: Str(), url_template: Str(), id: Int() }, strict)) },
  strict,
);

/**
 * `presence` (zulip-behavior.md §8.4): `email` is absent for queues registered with
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
 * `navigation_view` (Zulip FL 390, `zerver/actions/navigation_views.py`): op `add` with the view,
 * `update` with the fragment and only the changed keys, `remove` with the fragment.
 */
export const NavigationViewEventSchema = Type.Union([
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('navigation_view'),
      op: Type.Literal('add'),
      navigation_view: Type.Object({ fragment: Str(), is_pinned: Bool(), name: Nullable(Str()) }, strict),
    },
    strict,
  ),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('navigation_view'),
      op: Type.Literal('update'),
      fragment: Str(),
      data: Type.Object({ name: Type.Optional(Str()), is_pinned: Type.Optional(Bool()) }, strict),
    },
    strict,
  ),
  Type.Object({ id: Int(), type: Type.Literal('navigation_view'), op: Type.Literal('remove'), fragment: Str() }, strict),
]);

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

/** A draft object (Zulip's `Draft.to_dict()`, seed §2.4). */
const DraftObject = Type.Object(
  {
    id: Int(),
    type: Type.Union([Type.Literal(''), Type.Literal('stream'), Type.Literal('private')]),
    to: Type.Array(Int()),
    topic: Str(),
    content: Str(),
    timestamp: Int(),
  },
  strict,
);

/**
 * `drafts` (zulip-behavior.md §11, `zerver/lib/drafts.py`), to the owner only: op `add` with the
 * created drafts, `update` with the whole edited draft, `remove` with its id.
 */
export const DraftsEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('drafts'), op: Type.Literal('add'), drafts: Type.Array(DraftObject) }, strict),
  Type.Object({ id: Int(), type: Type.Literal('drafts'), op: Type.Literal('update'), draft: DraftObject }, strict),
  Type.Object({ id: Int(), type: Type.Literal('drafts'), op: Type.Literal('remove'), draft_id: Int() }, strict),
]);

/** Event schema by event `type`. */
/** `custom_profile_fields`: every field of the realm after a change (zulip-behavior.md §5). */
export const CustomProfileFieldsEventSchema = Type.Object(
  { id: Int(), type: Type.Literal('custom_profile_fields'), fields: REGISTER_KEY_SCHEMAS.custom_profile_fields! },
  strict,
);

/** `realm_user` update (OpenAPI `realm_user` op `update`); parley sends the `custom_profile_field` form. */
export const RealmUserEventSchema = Type.Object(
  {
    id: Int(),
    type: Type.Literal('realm_user'),
    op: Type.Literal('update'),
    person: Type.Object(
      {
        user_id: Int(),
        custom_profile_field: Type.Object(
          { id: Int(), value: Type.Union([Str(), Type.Null()]), rendered_value: Type.Optional(Str()) },
          strict,
        ),
      },
      strict,
    ),
  },
  strict,
);

/** `invites_changed` (OpenAPI): no data; clients refetch `GET /invites`. */
export const InvitesChangedEventSchema = Type.Object({ id: Int(), type: Type.Literal('invites_changed') }, strict);

/** `realm_user` update forms sent by user administration (src/realm/handlers/user-admin.ts). */
const RealmUserAdminPersons = [
  Type.Object({ user_id: Int(), full_name: Str() }, strict),
  Type.Object({ user_id: Int(), role: Int() }, strict),
  Type.Object({ user_id: Int(), is_active: Bool() }, strict),
  Type.Object({ user_id: Int(), email: Str(), timezone: Str() }, strict),
  Type.Object({ user_id: Int(), delivery_email: Nullable(Str()) }, strict),
  Type.Object({ user_id: Int(), new_email: Str() }, strict),
  Type.Object({ user_id: Int(), avatar_source: Str(), avatar_url: Str(), avatar_url_medium: Str(), avatar_version: Int() }, strict),
];
export const RealmUserAdminEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('realm_user'), op: Type.Literal('update'), person: Type.Union(RealmUserAdminPersons) }, strict),
  Type.Object(
    { id: Int(), type: Type.Literal('realm_user'), op: Type.Literal('add'), person: Type.Object({ ...RegisterUserSchema.properties, is_active: Bool() }, strict) },
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

/** `realm_bot` add (POST /bots: the bot as `realm_bots` shows it) and update (`full_name`, `is_active`). */
export const RealmBotEventSchema = Type.Union([
  Type.Object({ id: Int(), type: Type.Literal('realm_bot'), op: Type.Literal('add'), bot: registerListItem('realm_bots') }, strict),
  Type.Object(
    {
      id: Int(),
      type: Type.Literal('realm_bot'),
      op: Type.Literal('update'),
      bot: Type.Union([Type.Object({ user_id: Int(), full_name: Str() }, strict), Type.Object({ user_id: Int(), is_active: Bool() }, strict)]),
    },
    strict,
  ),
]);

export const EVENT_SCHEMAS: Readonly<Record<string, TSchema>> = {
  update_message_flags: UpdateMessageFlagsEventSchema,
  invites_changed: InvitesChangedEventSchema,
  custom_profile_fields: CustomProfileFieldsEventSchema,
  realm_user: Type.Union([RealmUserEventSchema, RealmUserAdminEventSchema]),
  user_settings: UserSettingsEventSchema,
  realm_bot: RealmBotEventSchema,
  update_display_settings: UpdateDisplaySettingsEventSchema,
  update_global_notifications: UpdateGlobalNotificationsEventSchema,
  message: MessageEventSchema,
  delete_message: DeleteMessageEventSchema,
  update_message: UpdateMessageEventSchema,
  heartbeat: HeartbeatEventSchema,
  typing: TypingEventSchema,
  presence: PresenceEventSchema,
  user_topic: UserTopicEventSchema,
  realm_linkifiers: RealmLinkifiersEventSchema,
  user_status: UserStatusEventSchema,
  navigation_view: NavigationViewEventSchema,
  channel_folder: ChannelFolderEventSchema,
  drafts: DraftsEventSchema,
  reaction: ReactionEventSchema,
  muted_topics: MutedTopicsEventSchema,
  user_group: UserGroupEventSchema,
  subscription: SubscriptionEventSchema,
  stream: StreamEventSchema,
};

const validators = new Map<TSchema, Validator>();

/** The compiled validator of `schema` (compiled once). */
function validator(schema: TSchema): Validator {
  let v = validators.get(schema);
  if (v === undefined) {
    v = Compile(schema);
    validators.set(schema, v);
  }
  return v;
}

/** `path: message` lines for `value` against `schema`; [] when valid. */
export function checkSchema(schema: TSchema, value: unknown, path = ''): string[] {
  const v = validator(schema);
  if (v.Check(value)) return [];
  return v.Errors(value).map((e) => `${path}${e.instancePath || '/'}: ${e.message}`);
}

/** Checks that go beyond the schema: `stream_id` and `display_recipient` agree with `type`. */
function checkMessageObject(message: Record<string, unknown>, path: string): string[] {
  const errors: string[] = [];
  if (message.type === 'stream') {
    if (typeof message.stream_id !== 'number') errors.push(`${path}/stream_id: required for a channel message`);
    if (typeof message.display_recipient !== 'string') errors.push(`${path}/display_recipient: must be the channel name`);
  } else if (message.type === 'private') {
    if ('stream_id' in message) errors.push(`${path}/stream_id: not allowed for a direct message`);
    if (!Array.isArray(message.display_recipient)) errors.push(`${path}/display_recipient: must list the users`);
    if (message.subject !== '') errors.push(`${path}/subject: must be empty for a direct message`);
  }
  return errors;
}

/**
 * Schema errors of one client event, as `"/path: message"` strings; [] when it is valid.
 * An event type without a schema is itself an error (add its schema with the feature).
 */
export function checkEvent(event: unknown): string[] {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return ['/: event must be an object'];
  const type = (event as { type?: unknown }).type;
  const schema = typeof type === 'string' ? EVENT_SCHEMAS[type] : undefined;
  if (schema === undefined) return [`/type: no schema for event type ${JSON.stringify(type)}`];
  const errors = checkSchema(schema, event);
  if (type === 'message' && errors.length === 0) {
    const e = event as { message: Record<string, unknown>; flags: string[] };
    errors.push(...checkMessageObject(e.message, '/message'));
    for (const flag of e.flags) if (!MESSAGE_FLAGS.has(flag)) errors.push(`/flags: unknown flag ${JSON.stringify(flag)}`);
  }
  return errors;
}

/**
 * Schema errors of a `POST /register` response body (or of `buildRegisterState`'s result):
 * every top-level key must be known and valid. `result`, `msg` and
 * `ignored_parameters_unsupported` (the response envelope) are accepted.
 */
export function checkRegisterState(state: Record<string, unknown>): string[] {
  const errors: string[] = [];
  for (const [key, value] of Object.entries(state)) {
    if (key === 'result' || key === 'msg' || key === 'ignored_parameters_unsupported') continue;
    const schema = REGISTER_KEY_SCHEMAS[key];
    if (schema === undefined) {
      errors.push(`/${key}: unexpected key`);
      continue;
    }
    errors.push(...checkSchema(schema, value, `/${key}`));
  }
  return errors;
}
