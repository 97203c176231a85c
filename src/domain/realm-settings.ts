/**
 * Organization settings changed after creation (`PATCH /realm`, Zulip's zerver/actions/realm_settings.py
 * `do_set_realm_property` / `do_change_realm_permission_group_setting`; the demo organization and the
 * CLI set the announcement channels). One record kind, `realm_settings_changed`, carries the changed
 * keys of `RealmSettings`; group-setting values are merged key by key into `settings.groups`.
 */
import type { GroupSettingValue, RealmSettings, RealmState } from './realm-state.js';

/** The `RealmSettings` keys a `realm_settings_changed` record may set directly. */
export type ChangeableRealmSettings = Omit<RealmSettings, 'groups' | 'dateCreated' | 'deactivated' | 'emailAddressVisibility' | 'emptyTopicDisplayName'>;

/**
 * `realm_settings_changed` v1: only the keys present changed. `groups` holds only the changed
 * group settings (wire names). Units as in `RealmSettings` (seconds, days).
 */
export interface RealmSettingsChanged {
  type: 'realm_settings_changed';
  v: 1;
  changes: Partial<ChangeableRealmSettings> & { groups?: Record<string, GroupSettingValue> };
}

/** Applies a `realm_settings_changed` record. */
export function realmSettingsChanged(state: RealmState, r: RealmSettingsChanged): void {
  const { groups, ...direct } = r.changes;
  for (const [key, value] of Object.entries(direct)) {
    if (value !== undefined) (state.settings as unknown as Record<string, unknown>)[key] = value;
  }
  if (groups !== undefined) for (const [name, value] of Object.entries(groups)) state.settings.groups[name] = value;
}
