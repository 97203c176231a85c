/**
 * `update_realm`: `PATCH /realm` (https://zulip.com/api/update-realm; Zulip's zerver/views/realm.py
 * `update_realm`, zerver/actions/realm_settings.py `do_set_realm_property`,
 * `do_change_realm_permission_group_setting`, `do_set_realm_*_stream`).
 *
 * Checks, in Zulip's order, all before anything is recorded (the request succeeds or fails as a
 * whole): administrator (`require_realm_admin`); `default_language` known; owner for
 * `message_retention_days`, the invitation / group-management group settings and
 * `waiting_period_threshold`; value checks of the time limits, enumerations and group settings;
 * announcement / moderation channels accessible (`access_stream_by_id`, "Invalid channel ID"; -1
 * clears). Values equal to the current one are skipped (no record key, no event, not in the reply).
 *
 * Events (to every active user, Zulip's order): the time limits, then the other properties, then
 * the group settings, then the channels. `realm` `update {property, value}` for most settings;
 * `update_dict {property: "default", data: {name: value}}` for `allow_message_editing`,
 * `message_content_edit_limit_seconds` and every group setting. Units: limits in seconds (null =
 * unlimited), `message_retention_days` in days (-1 = unlimited on the wire), waiting period in days.
 *
 * Reply: the changed settings, strings as `"updated"` (Zulip's `update_realm` data).
 */
import { ok, fail, Errors, ZulipError } from '../../errors.js';
import type { GroupSettingValue, RealmSettings } from '../../domain/realm-state.js';
import type { ChangeableRealmSettings, RealmSettingsChanged } from '../../domain/realm-settings.js';
import { accessStreamById, requireRealmAdmin, requireRealmOwner } from '../../domain/access.js';
import {
  AVAILABLE_LANGUAGE_CODES,
  EDIT_HISTORY_VISIBILITY_POLICIES,
  MAX_REALM_DESCRIPTION_LENGTH,
  MAX_REALM_NAME_LENGTH,
  REALM_TOPICS_POLICIES,
  parseRealmGroupChange,
  parseRealmRetentionDays,
  parseTimeLimitSeconds,
} from '../../domain/realm-setting-checks.js';
import { REALM_PERMISSION_GROUP_SETTINGS, copyGroupSetting } from '../../domain/group-permissions.js';
import { MAX_WELCOME_MESSAGE_LENGTH, welcomeTextTooLong } from '../../domain/invites.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import type { Handler } from '../decision.js';
import { activeUserIds } from './user-events.js';

/** The settings `PATCH /realm` accepts, by wire name; undefined = not passed. Values as decoded by the endpoint. */
export interface RealmSettingsRequest {
  name?: string;
  description?: string;
  allow_message_editing?: boolean;
  allow_edit_history?: boolean;
  message_edit_history_visibility_policy?: string;
  /** `"unlimited"` or a positive integer (seconds); checked here. */
  message_content_edit_limit_seconds?: unknown;
  message_content_delete_limit_seconds?: unknown;
  move_messages_within_stream_limit_seconds?: unknown;
  move_messages_between_streams_limit_seconds?: unknown;
  /** `"unlimited"` or a positive integer (days); checked here. */
  message_retention_days?: unknown;
  enable_spectator_access?: boolean;
  avatar_changes_disabled?: boolean;
  emails_restricted_to_domains?: boolean;
  /** ≤ 8000 characters (`Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH`); checked here. */
  welcome_message_custom_text?: string;
  enable_read_receipts?: boolean;
  /** Days. */
  waiting_period_threshold?: number;
  default_language?: string;
  topics_policy?: string;
  /** Deprecated form of `topics_policy` (true = `disable_empty_topic`). */
  mandatory_topics?: boolean;
  message_content_allowed_in_email_notifications?: boolean;
  /** Channel ids; -1 = none. */
  moderation_request_channel_id?: number;
  new_stream_announcements_stream_id?: number;
  signup_announcements_stream_id?: number;
  zulip_update_announcements_stream_id?: number;
  /** `{new, old?}` change requests by realm group-setting name (checked here). */
  groups?: Record<string, unknown>;
}

/** `PATCH /realm`. */
export interface UpdateRealm {
  type: 'update_realm';
  actorId: number;
  settings: RealmSettingsRequest;
}

/** Reply of `update_realm`: the changed settings by wire name (strings as `"updated"`). */
export interface RealmUpdateReplies {
  update_realm: Record<string, unknown>;
}

/** Group settings only an owner may change (Zulip's `update_realm`). */
const OWNER_ONLY_GROUP_SETTINGS = ['create_multiuse_invite_group', 'can_create_groups', 'can_invite_users_group', 'can_manage_all_groups'];

/** The channel settings: wire name → `RealmSettings` key. */
const CHANNEL_SETTINGS = [
  ['moderation_request_channel_id', 'moderationRequestChannelId'],
  ['new_stream_announcements_stream_id', 'newStreamAnnouncementsStreamId'],
  ['signup_announcements_stream_id', 'signupAnnouncementsStreamId'],
  ['zulip_update_announcements_stream_id', 'zulipUpdateAnnouncementsStreamId'],
] as const;

/** The time limits: wire name → `RealmSettings` key, and whether the event is `update_dict`. */
const TIME_LIMITS = [
  ['message_content_delete_limit_seconds', 'messageContentDeleteLimitSeconds', false],
  ['message_content_edit_limit_seconds', 'messageContentEditLimitSeconds', true],
  ['move_messages_within_stream_limit_seconds', 'moveMessagesWithinStreamLimitSeconds', false],
  ['move_messages_between_streams_limit_seconds', 'moveMessagesBetweenStreamsLimitSeconds', false],
] as const;

/** Zulip's defaults of the move limits (7 days), used when the setting was never stored. */
const DEFAULT_MOVE_LIMIT_SECONDS = 7 * 86400;

/** The current value of a `RealmSettings` key, with Zulip's default for the optional ones. */
function current(s: RealmSettings, key: keyof ChangeableRealmSettings): unknown {
  const stored = s[key];
  if (stored !== undefined) return stored;
  switch (key) {
    case 'moveMessagesWithinStreamLimitSeconds':
    case 'moveMessagesBetweenStreamsLimitSeconds':
      return DEFAULT_MOVE_LIMIT_SECONDS;
    case 'editHistoryVisibilityPolicy':
      return s.allowEditHistory ? 'all' : 'none';
    case 'waitingPeriodThreshold':
      return 0;
    case 'defaultLanguage':
      return 'en';
    case 'enableSpectatorAccess':
    case 'avatarChangesDisabled':
    case 'emailsRestrictedToDomains':
    case 'enableReadReceipts':
      return false;
    case 'welcomeMessageCustomText':
      return '';
    case 'messageContentAllowedInEmailNotifications':
      return true;
    default:
      return null;
  }
}

export const updateRealm: Handler<UpdateRealm, RealmUpdateReplies['update_realm']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  const actor = admin.value;
  const req = cmd.settings;
  const s = state.settings;
  const owner = () => requireRealmOwner(actor);

  // 1. Permission and value checks that precede any change (Zulip's order).
  if (req.default_language !== undefined && !AVAILABLE_LANGUAGE_CODES.has(req.default_language)) {
    return fail(Errors.badRequest(`Invalid language '${req.default_language}'`));
  }
  let retentionDays: number | null | undefined;
  if (req.message_retention_days !== undefined) {
    const needOwner = owner();
    if (!needOwner.ok) return needOwner;
    const parsed = parseRealmRetentionDays(req.message_retention_days);
    if (parsed instanceof ZulipError) return fail(parsed);
    retentionDays = parsed;
  }
  const groupRequests = req.groups ?? {};
  for (const name of Object.keys(groupRequests)) {
    if (!(name in REALM_PERMISSION_GROUP_SETTINGS)) return fail(Errors.badRequest(`Invalid setting ${name}`));
  }
  if (OWNER_ONLY_GROUP_SETTINGS.some((name) => groupRequests[name] !== undefined) || req.waiting_period_threshold !== undefined) {
    const needOwner = owner();
    if (!needOwner.ok) return needOwner;
  }
  if (req.name !== undefined && [...req.name].length > MAX_REALM_NAME_LENGTH) return fail(Errors.parameterTooLong('name', MAX_REALM_NAME_LENGTH));
  if (req.description !== undefined && [...req.description].length > MAX_REALM_DESCRIPTION_LENGTH) {
    return fail(Errors.parameterTooLong('description', MAX_REALM_DESCRIPTION_LENGTH));
  }
  if (req.waiting_period_threshold !== undefined && req.waiting_period_threshold < 0) return fail(Errors.badRequest('waiting_period_threshold is too small'));
  let topicsPolicy = req.topics_policy;
  if (topicsPolicy === undefined && req.mandatory_topics !== undefined) topicsPolicy = req.mandatory_topics ? 'disable_empty_topic' : 'allow_empty_topic';
  if (topicsPolicy !== undefined && !(REALM_TOPICS_POLICIES as readonly string[]).includes(topicsPolicy)) return fail(Errors.badRequest('Invalid topics_policy'));
  let historyPolicy = req.message_edit_history_visibility_policy;
  if (historyPolicy === undefined && req.allow_edit_history !== undefined) historyPolicy = req.allow_edit_history ? 'all' : 'none';
  if (historyPolicy !== undefined && !(EDIT_HISTORY_VISIBILITY_POLICIES as readonly string[]).includes(historyPolicy)) {
    return fail(Errors.badRequest('Invalid message_edit_history_visibility_policy'));
  }

  const changes: RealmSettingsChanged['changes'] = {};
  const reply: Record<string, unknown> = {};
  const payloads: EventPayloadOf<'realm'>[] = [];
  const update = (property: string, value: unknown) => payloads.push({ type: 'realm', op: 'update', property, value });
  const updateDict = (property: string, value: unknown) => payloads.push({ type: 'realm', op: 'update_dict', property: 'default', data: { [property]: value } });
  /** Records a changed property; `wire` is the event value, `replyValue` what the reply shows. */
  const set = <K extends keyof ChangeableRealmSettings>(name: string, key: K, value: ChangeableRealmSettings[K], opts: { dict?: boolean; wire?: unknown } = {}) => {
    if (current(s, key) === value) return;
    (changes as Record<string, unknown>)[key] = value;
    const wire = 'wire' in opts ? opts.wire : value;
    reply[name] = typeof wire === 'string' ? 'updated' : wire;
    if (opts.dict) updateDict(name, wire);
    else update(name, wire);
  };

  // 2. Time limits (Zulip sets them first, through parse_and_set_setting_value_if_required).
  for (const [name, key, dict] of TIME_LIMITS) {
    if (req[name] === undefined) continue;
    const parsed = parseTimeLimitSeconds(name, req[name]);
    if (parsed instanceof ZulipError) return fail(parsed);
    set(name, key, parsed, { dict });
  }

  // 3. Properties, in `update_realm`'s parameter order.
  if (req.name !== undefined) set('name', 'name', req.name);
  if (req.description !== undefined) set('description', 'description', req.description);
  if (req.allow_message_editing !== undefined) set('allow_message_editing', 'allowMessageEditing', req.allow_message_editing, { dict: true });
  if (historyPolicy !== undefined && historyPolicy !== current(s, 'editHistoryVisibilityPolicy')) {
    const policy = historyPolicy as 'all' | 'moves' | 'none';
    set('message_edit_history_visibility_policy', 'editHistoryVisibilityPolicy', policy);
    // `allow_edit_history` (deprecated at FL 358) follows: history is visible unless the policy is 'none'.
    set('allow_edit_history', 'allowEditHistory', policy !== 'none');
  }
  if (req.default_language !== undefined) set('default_language', 'defaultLanguage', req.default_language);
  if (req.waiting_period_threshold !== undefined) set('waiting_period_threshold', 'waitingPeriodThreshold', req.waiting_period_threshold);
  if (retentionDays !== undefined) set('message_retention_days', 'messageRetentionDays', retentionDays, { wire: retentionDays ?? -1 });
  if (req.message_content_allowed_in_email_notifications !== undefined) {
    set('message_content_allowed_in_email_notifications', 'messageContentAllowedInEmailNotifications', req.message_content_allowed_in_email_notifications);
  }
  if (req.enable_spectator_access !== undefined) set('enable_spectator_access', 'enableSpectatorAccess', req.enable_spectator_access);
  if (req.avatar_changes_disabled !== undefined) set('avatar_changes_disabled', 'avatarChangesDisabled', req.avatar_changes_disabled);
  if (req.emails_restricted_to_domains !== undefined) set('emails_restricted_to_domains', 'emailsRestrictedToDomains', req.emails_restricted_to_domains);
  if (req.welcome_message_custom_text !== undefined) {
    if (req.welcome_message_custom_text.length > MAX_WELCOME_MESSAGE_LENGTH) return fail(Errors.badRequest(welcomeTextTooLong()));
    set('welcome_message_custom_text', 'welcomeMessageCustomText', req.welcome_message_custom_text);
  }
  if (req.enable_read_receipts !== undefined) set('enable_read_receipts', 'enableReadReceipts', req.enable_read_receipts);
  if (topicsPolicy !== undefined) set('topics_policy', 'topicsPolicy', topicsPolicy as RealmSettings['topicsPolicy']);

  // 4. Group settings, in Realm.REALM_PERMISSION_GROUP_SETTINGS order.
  const groups: Record<string, GroupSettingValue> = {};
  for (const name of Object.keys(REALM_PERMISSION_GROUP_SETTINGS)) {
    if (groupRequests[name] === undefined) continue;
    const next = parseRealmGroupChange(state, name, groupRequests[name]);
    if (next instanceof ZulipError) return fail(next);
    if (next === undefined) continue;
    groups[name] = next;
    reply[name] = copyGroupSetting(next);
    updateDict(name, copyGroupSetting(next));
  }
  if (Object.keys(groups).length > 0) changes.groups = groups;

  // 5. Channels: -1 clears; otherwise the administrator must be able to access the channel.
  for (const [name, key] of CHANNEL_SETTINGS) {
    const id = req[name];
    if (id === undefined || (current(s, key) ?? -1) === id || (id < 0 && current(s, key) === null)) continue;
    if (id >= 0) {
      // `access_stream_by_id(..., allow_realm_admin=True)`: metadata access suffices for administrators.
      const access = accessStreamById(state, actor, id, { requireContentAccess: false });
      if (!access.ok) return access;
    }
    changes[key] = id < 0 ? null : id;
    reply[name] = id;
    update(name, id);
  }

  if (payloads.length === 0) return ok({ records: [], events: [], reply });
  const userIds = activeUserIds(state);
  const events: RealmEvent[] = payloads.map((payload) => ({ userIds, payload }));
  return ok({ records: [{ type: 'realm_settings_changed', v: 1, changes }], events, reply });
};
