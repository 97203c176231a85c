/**
 * Value checks of `PATCH /realm` (https://zulip.com/api/update-realm; Zulip's zerver/views/realm.py
 * `update_realm`, zerver/lib/retention.py `parse_message_retention_days`,
 * zerver/actions/realm_settings.py `parse_and_set_setting_value_if_required`, zerver/lib/user_groups.py
 * `check_setting_configuration_for_system_groups`). Pure functions: each returns the decoded value
 * or the `ZulipError` Zulip answers with. Who may change what is `access/realm.ts`'s.
 */
import { Errors, ZulipError } from '../errors.js';
import { parseGroupSettingValue, sameGroupSetting } from './channel-settings.js';
import { REALM_PERMISSION_GROUP_SETTINGS, realmGroupSetting } from './group-permissions.js';
import type { GroupSettingValue, RealmState } from './realm-state.js';

/** Zulip's `Realm.MAX_REALM_NAME_LENGTH` / `MAX_REALM_DESCRIPTION_LENGTH`, in characters. */
export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;

/**
 * Language codes of Zulip's bundled translations (`get_available_language_codes`, the
 * `locale/language_name_map.json` codes).
 */
export const AVAILABLE_LANGUAGE_CODES: ReadonlySet<string> = new Set([
  'ar', 'be', 'bg', 'bn', 'ca', 'cs', 'cy', 'da', 'de', 'el', 'en', 'en_GB', 'eo', 'es', 'fa', 'fi', 'fr', 'gl',
  'gu', 'hi', 'hu', 'id', 'it', 'ja', 'ko', 'lt', 'lv', 'ml', 'mn', 'nl', 'no', 'pl', 'pt', 'pt_BR', 'pt_PT',
  'ro', 'ru', 'si', 'sk', 'sr', 'sv', 'ta', 'te', 'tl', 'tr', 'uk', 'uz', 'vi', 'zh-hans', 'zh-hant', 'zh_TW',
]);

/** Realm-level `topics_policy` values (FL 392). */
export const REALM_TOPICS_POLICIES = ['allow_empty_topic', 'disable_empty_topic'] as const;

/** `message_edit_history_visibility_policy` values (FL 358). */
export const EDIT_HISTORY_VISIBILITY_POLICIES = ['all', 'moves', 'none'] as const;

/**
 * A time-limit setting (`message_content_edit_limit_seconds`, `message_content_delete_limit_seconds`,
 * `move_messages_*_limit_seconds`): `"unlimited"` → null, a positive integer → seconds, else
 * "Bad value for '<name>': <value>".
 */
export function parseTimeLimitSeconds(name: string, raw: unknown): number | null | ZulipError {
  if (raw === 'unlimited') return null;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw > 0) return raw;
  return Errors.badValue(name, typeof raw === 'string' ? raw : JSON.stringify(raw));
}

/**
 * `message_retention_days` for the realm (`parse_message_retention_days` with
 * `Realm.MESSAGE_RETENTION_SPECIAL_VALUES_MAP`): `"unlimited"` → null (kept forever), a
 * positive integer → days, else "Bad value for 'message_retention_days': <value>".
 */
export function parseRealmRetentionDays(raw: unknown): number | null | ZulipError {
  if (raw === 'unlimited' || raw === -1) return null;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw > 0) return raw;
  return Errors.badValue('message_retention_days', typeof raw === 'string' ? raw : JSON.stringify(raw));
}

/**
 * Zulip's `check_setting_configuration_for_system_groups` for a realm setting: the value's
 * named group must satisfy the setting's `GroupPermissionSetting` (system group required,
 * `role:internet` / `role:nobody` / `role:everyone` allowed, allowed system groups).
 */
function checkRealmGroupConfiguration(state: RealmState, name: string, value: GroupSettingValue): ZulipError | null {
  const config = REALM_PERMISSION_GROUP_SETTINGS[name]!;
  if (typeof value !== 'number') return config.require_system_group ? Errors.badRequest(`'${name}' must be a system user group.`) : null;
  const group = state.groups.get(value)!;
  if (config.require_system_group && !group.isSystemGroup) return Errors.badRequest(`'${name}' must be a system user group.`);
  if (!group.isSystemGroup) return null;
  const refuse = (groupName: string) => Errors.badRequest(`'${name}' setting cannot be set to '${groupName}' group.`);
  if (!config.allow_internet_group && group.name === 'role:internet') return refuse('role:internet');
  if (!config.allow_nobody_group && group.name === 'role:nobody') return refuse('role:nobody');
  if (!config.allow_everyone_group && group.name === 'role:everyone') return refuse('role:everyone');
  if (config.allowed_system_groups.length > 0 && !config.allowed_system_groups.includes(group.name)) return refuse(group.name);
  return null;
}

/**
 * A realm group-setting change request `{new, old?}` (Zulip's `GroupSettingChangeRequest`): the
 * normalized new value, `undefined` when it equals the current value (no change, no event), or
 * the error: an invalid value, a configuration the setting forbids, or an `old` that is not the
 * current value ("'old' value does not match the expected value.").
 */
export function parseRealmGroupChange(state: RealmState, name: string, raw: unknown): GroupSettingValue | undefined | ZulipError {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('new' in raw)) {
    return Errors.badRequest(`${name} is not a valid group-setting update`);
  }
  const request = raw as { new: unknown; old?: unknown };
  const next = parseGroupSettingValue(state, name, request.new);
  if (next instanceof ZulipError) return next;
  const current = realmGroupSetting(state, name);
  if ('old' in request) {
    const old = parseGroupSettingValue(state, name, request.old);
    if (old instanceof ZulipError || !sameGroupSetting(old, current)) return Errors.badRequest("'old' value does not match the expected value.");
  }
  if (sameGroupSetting(next, current)) return undefined;
  return checkRealmGroupConfiguration(state, name, next) ?? next;
}
