/**
 * `PATCH /realm` (https://zulip.com/api/update-realm; Zulip's zerver/views/realm.py `update_realm`):
 * the organization settings. Parameters are Zulip's (JSON-encoded booleans, integers and
 * group-setting change requests `{new, old?}`; time limits and `message_retention_days` take an
 * integer or `"unlimited"`). Rules, errors and events live in `realm/handlers/realm-update.ts`.
 */
import Type from 'typebox';
import { REALM_PERMISSION_GROUP_SETTINGS } from '../domain/group-permissions.js';
import { requireRealmAdmin } from '../domain/access.js';
import type { RealmSettingsRequest } from '../realm/handlers/realm-update.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P, type ParamSpec } from './params.js';

/** One `{new, old?}` parameter per realm group setting (validated by the handler). */
const GROUP_PARAMS: Record<string, ParamSpec<unknown, true>> = Object.fromEntries(
  Object.keys(REALM_PERMISSION_GROUP_SETTINGS).map((name) => [name, P.json(Type.Unknown()) as ParamSpec<unknown, true>]),
);

const SETTING_PARAMS = {
  name: P.string(),
  description: P.string(),
  allow_message_editing: P.bool(),
  allow_edit_history: P.bool(),
  message_edit_history_visibility_policy: P.string(),
  message_content_edit_limit_seconds: P.jsonOrString(),
  message_content_delete_limit_seconds: P.jsonOrString(),
  move_messages_within_stream_limit_seconds: P.jsonOrString(),
  move_messages_between_streams_limit_seconds: P.jsonOrString(),
  message_retention_days: P.jsonOrString(),
  enable_spectator_access: P.bool(),
  avatar_changes_disabled: P.bool(),
  emails_restricted_to_domains: P.bool(),
  welcome_message_custom_text: P.string(),
  enable_read_receipts: P.bool(),
  waiting_period_threshold: P.int(),
  default_language: P.string(),
  topics_policy: P.string(),
  mandatory_topics: P.bool(),
  message_content_allowed_in_email_notifications: P.bool(),
  moderation_request_channel_id: P.int(),
  new_stream_announcements_stream_id: P.int(),
  signup_announcements_stream_id: P.int(),
  zulip_update_announcements_stream_id: P.int(),
};

/** `PATCH /realm`: administrators (some settings owners only); replies with the changed settings. */
export const updateRealm = defineEndpoint({
  auth: 'user',
  params: { ...SETTING_PARAMS, ...GROUP_PARAMS },
  handler: async ({ realm, user, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    const all = params as Record<string, unknown>;
    const settings: RealmSettingsRequest = {};
    for (const name of Object.keys(SETTING_PARAMS)) if (all[name] !== undefined) (settings as Record<string, unknown>)[name] = all[name];
    const groups: Record<string, unknown> = {};
    for (const name of Object.keys(GROUP_PARAMS)) if (all[name] !== undefined) groups[name] = all[name];
    if (Object.keys(groups).length > 0) settings.groups = groups;
    return runCommand(realm, { type: 'update_realm', actorId: user.id, settings }, (reply) => reply);
  },
});

/** `POST /realm/test_welcome_bot_custom_message` → `{message_id}` (see realm/handlers/welcome-bot-test.ts). */
export const testWelcomeBotMessage = defineEndpoint({
  auth: 'user',
  params: { welcome_message_custom_text: P.string({ required: true }) },
  handler: async ({ realm, user, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(realm, { type: 'test_welcome_bot_message', actorId: user.id, text: params.welcome_message_custom_text }, (reply) => ({ message_id: reply.id }));
  },
});
