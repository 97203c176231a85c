/**
 * Organization settings changed after creation. Only the announcement channels exist so far (set
 * by the demo organization and the CLI; `PATCH /realm` is not built): the `realm_settings_changed`
 * record carries the changed keys of `RealmSettings`.
 */
import type { RealmState } from './realm-state.js';

/** `realm_settings_changed` v1: only the keys present changed. */
export interface RealmSettingsChanged {
  type: 'realm_settings_changed';
  v: 1;
  changes: {
    newStreamAnnouncementsStreamId?: number | null;
    signupAnnouncementsStreamId?: number | null;
  };
}

/** Applies a `realm_settings_changed` record. */
export function realmSettingsChanged(state: RealmState, r: RealmSettingsChanged): void {
  if (r.changes.newStreamAnnouncementsStreamId !== undefined) state.settings.newStreamAnnouncementsStreamId = r.changes.newStreamAnnouncementsStreamId;
  if (r.changes.signupAnnouncementsStreamId !== undefined) state.settings.signupAnnouncementsStreamId = r.changes.signupAnnouncementsStreamId;
}
