/**
 * The client events parley emits and the `POST /register` response, checked against typebox
 * schemas by checkers that return readable error lists (Zulip's `zerver/lib/event_schema.py`
 * idea: every feature's tests check each event it produces). Objects are strict: an unexpected
 * key is an error, so a schema and its producer cannot drift apart silently.
 *
 * The schemas live by subject (message-schemas.ts, subscription-schemas.ts, personal-schemas.ts,
 * user-schemas.ts, realm-config-schemas.ts, register/*); this module gathers them in
 * {@link EVENT_SCHEMAS} and derives the event types from them (`Static<typeof Schema>`), so a
 * type and its schema cannot disagree. Every event is checked as delivered by `GET /events`,
 * i.e. with its queue `id`.
 *
 * Compiled validators are built on first use and cached.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { REGISTER_KEY_SCHEMAS } from './register/schemas.js';
import { RealmEmojiEventSchema } from './media-schemas.js';
import { AttachmentEventSchema } from './attachment-schemas.js';
import { RemindersEventSchema, ScheduledMessagesEventSchema } from './scheduled-message-schemas.js';
import { SubmessageEventSchema } from './personal-schemas.js';
import { StreamEventSchema, SubscriptionEventSchema } from './subscription-schemas.js';
import {
  DeleteMessageEventSchema,
  MESSAGE_FLAGS,
  MessageEventSchema,
  type MessageSchema,
  ReactionEventSchema,
  UpdateMessageEventSchema,
  UpdateMessageFlagsEventSchema,
} from './message-schemas.js';
import {
  DraftsEventSchema,
  HeartbeatEventSchema,
  MutedTopicsEventSchema,
  NavigationViewEventSchema,
  TypingEventSchema,
  UserTopicEventSchema,
} from './personal-schemas.js';
import {
  PresenceEventSchema,
  RealmBotEventSchema,
  RealmUserEventSchema,
  UpdateDisplaySettingsEventSchema,
  UpdateGlobalNotificationsEventSchema,
  UserGroupEventSchema,
  UserSettingsEventSchema,
  UserStatusEventSchema,
} from './user-schemas.js';
import {
  ChannelFolderEventSchema,
  CustomProfileFieldsEventSchema,
  InvitesChangedEventSchema,
  RealmLinkifiersEventSchema,
} from './realm-config-schemas.js';
import { DefaultStreamsEventSchema, RealmEventSchema, RealmDomainsEventSchema, RealmPlaygroundsEventSchema, RealmUserSettingsDefaultsEventSchema } from './realm-settings-schemas.js';
import {
  AlertWordsEventSchema,
  MutedUsersEventSchema,
  SavedSnippetsEventSchema,
  TypingEditMessageEventSchema,
} from './personal-feature-schemas.js';

/** Event schema by event `type` (every event type parley emits has one). */
export const EVENT_SCHEMAS = {
  update_message_flags: UpdateMessageFlagsEventSchema,
  invites_changed: InvitesChangedEventSchema,
  custom_profile_fields: CustomProfileFieldsEventSchema,
  realm_user: RealmUserEventSchema,
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
  scheduled_messages: ScheduledMessagesEventSchema,
  reminders: RemindersEventSchema,
  submessage: SubmessageEventSchema,
  realm: RealmEventSchema,
  default_streams: DefaultStreamsEventSchema,
  realm_playgrounds: RealmPlaygroundsEventSchema,
  realm_user_settings_defaults: RealmUserSettingsDefaultsEventSchema,
  realm_domains: RealmDomainsEventSchema,
  reaction: ReactionEventSchema,
  muted_topics: MutedTopicsEventSchema,
  user_group: UserGroupEventSchema,
  subscription: SubscriptionEventSchema,
  stream: StreamEventSchema,
  realm_emoji: RealmEmojiEventSchema,
  attachment: AttachmentEventSchema,
  muted_users: MutedUsersEventSchema,
  alert_words: AlertWordsEventSchema,
  saved_snippets: SavedSnippetsEventSchema,
  typing_edit_message: TypingEditMessageEventSchema,
} as const satisfies Readonly<Record<string, TSchema>>;

/** Every event `type` parley emits. */
export type EventType = keyof typeof EVENT_SCHEMAS;

/** A client event of one `type` as delivered (with its queue `id`): its schema's static type. */
export type ClientEventOf<T extends EventType> = Static<(typeof EVENT_SCHEMAS)[T]>;

/** Any client event as delivered (with its queue `id`). */
export type ClientEvent = { [T in EventType]: ClientEventOf<T> }[EventType];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A client event as a handler decides it: without the per-queue `id`. */
export type EventPayload = DistributiveOmit<ClientEvent, 'id'>;

/** A client event of one `type` as a handler decides it (without the per-queue `id`). */
export type EventPayloadOf<T extends EventType> = DistributiveOmit<ClientEventOf<T>, 'id'>;

/**
 * Zulip's message object as a `message` event carries it (https://zulip.com/api/get-message):
 * `MessageSchema`'s static type.
 */
export type MessageObject = Static<typeof MessageSchema>;

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
  const schema = typeof type === 'string' && Object.hasOwn(EVENT_SCHEMAS, type) ? EVENT_SCHEMAS[type as EventType] : undefined;
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
