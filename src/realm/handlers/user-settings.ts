/**
 * `update_settings`: `PATCH /settings`, the caller's own account (Zulip's
 * zerver/views/user_settings.py `json_change_settings`): name, time zone, email address
 * visibility and the generic personal settings.
 */
import { checkPersonalSetting, personalSetting, withSettings } from '../../domain/user-settings.js';
import { DISPLAY_SETTINGS_LEGACY, NOTIFICATION_SETTINGS_LEGACY } from '../../domain/user-setting-defaults.js';
import { fail, ok, Errors } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { apiEmail, checkFullName, canSeeDeliveryEmail } from '../../domain/users.js';
import type { UserUpdated } from '../../domain/user-admin.js';
import { draftsClearedBySettings } from '../../domain/drafts.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Handler } from '../decision.js';
import { activeUserIds, avatarEvent, personEvent } from './user-events.js';
import { presenceSettingEvents } from './user-status.js';
import { userStatusOf } from '../../domain/user-status.js';
import type { RealmRecord } from '../../domain/records.js';

/** `PATCH /settings`: the caller's own name, time zone and email visibility (absent = unchanged). */
export interface UpdateSettings {
  type: 'update_settings';
  actorId: number;
  fullName?: string;
  timezone?: string;
  emailAddressVisibility?: number;
  /** The `presence_enabled` setting, stored as the user's status `away` = !presence_enabled (seed §4.9). */
  presenceEnabled?: boolean;
  /** Generic personal settings by wire name (`GENERIC_USER_SETTINGS`), types already checked. */
  settings?: Record<string, string | number | boolean>;
}

/** Reply of `update_settings`. */
export interface UserSettingsReplies {
  update_settings: Record<string, never>;
}

const bad = Errors.badRequest;

let zoneNames: Set<string> | undefined;
let zoneNamesLower: Map<string, string> | undefined;

/**
 * Whether `tz` is an IANA time zone name (Zulip checks membership in the tz database, so case
 * matters and '' is not a zone). Canonical names and the aliases the runtime's ICU knows
 * (`US/Eastern`, `UTC`) are accepted; a different-case spelling of a canonical name is not.
 */
export function isValidTimezone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  zoneNames ??= new Set(Intl.supportedValuesOf('timeZone'));
  zoneNamesLower ??= new Map([...zoneNames].map((z) => [z.toLowerCase(), z]));
  if (zoneNames.has(tz)) return true;
  const canonical = zoneNamesLower.get(tz.toLowerCase());
  if (canonical !== undefined) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz.split('/').every((part) => /^[A-Z0-9+\-]/.test(part));
  } catch {
    return false;
  }
}

/**
 * `PATCH /settings` (Zulip's `json_change_settings`, humans only) for `full_name`, `timezone` and
 * `email_address_visibility`, validated in that order before anything is recorded.
 * Events: name → `realm_user` `{user_id, full_name}` to all; time zone → `user_settings` update and
 * the legacy `update_display_settings` to the user, `realm_user` `{user_id, email, timezone}` to
 * all; email visibility → `user_settings` update to the user, `realm_user` `{user_id,
 * delivery_email}` to each user who gains (address) or loses (null) sight of the address, and when
 * "everyone" is involved the API email change `{user_id, new_email}` and the gravatar change to all.
 */
export const updateSettings: Handler<UpdateSettings, Record<string, never>> = (state, cmd) => {
  const user = state.users.get(cmd.actorId);
  if (user === undefined || !user.isActive) return fail(Errors.insufficientPermission());
  if (user.isBot) return fail(Errors.noBots());
  const update: UserUpdated = { type: 'user_updated', v: 1, userId: user.id };
  const everyone = activeUserIds(state);
  const events: RealmEvent[] = [];
  if (cmd.fullName !== undefined && cmd.fullName !== user.fullName) {
    const name = checkFullName(cmd.fullName);
    if (!name.ok) return fail(bad(name.msg));
    if (name.name !== user.fullName) {
      update.fullName = name.name;
      events.push(personEvent(state, { user_id: user.id, full_name: name.name }, everyone));
    }
  }
  if (cmd.timezone !== undefined) {
    if (!isValidTimezone(cmd.timezone)) return fail(bad(`Invalid timezone '${cmd.timezone}'`));
    if (cmd.timezone !== user.timezone) {
      update.timezone = cmd.timezone;
      const email = apiEmail(user, state.host);
      events.push({ userIds: [user.id], payload: { type: 'user_settings', op: 'update', property: 'timezone', value: cmd.timezone } });
      events.push({ userIds: [user.id], payload: { type: 'update_display_settings', user: email, setting_name: 'timezone', setting: cmd.timezone } });
      events.push(personEvent(state, { user_id: user.id, email, timezone: cmd.timezone }, everyone));
    }
  }
  if (cmd.emailAddressVisibility !== undefined) {
    const visibility = cmd.emailAddressVisibility;
    if (![1, 2, 3, 4, 5].includes(visibility)) return fail(bad('Invalid email_address_visibility'));
    if (visibility !== user.emailAddressVisibility) {
      update.emailAddressVisibility = visibility;
      events.push({ userIds: [user.id], payload: { type: 'user_settings', op: 'update', property: 'email_address_visibility', value: visibility } });
      const after: User = { ...user, emailAddressVisibility: visibility };
      const gained: number[] = [];
      const lost: number[] = [];
      for (const id of everyone) {
        const viewer = state.users.get(id)!;
        const could = canSeeDeliveryEmail(viewer, user);
        const can = canSeeDeliveryEmail(viewer, after);
        if (can && !could) gained.push(id);
        else if (could && !can) lost.push(id);
      }
      if (gained.length > 0) events.push(personEvent(state, { user_id: user.id, delivery_email: user.email }, gained));
      if (lost.length > 0) events.push(personEvent(state, { user_id: user.id, delivery_email: null }, lost));
      if (user.emailAddressVisibility === 1 || visibility === 1) {
        events.push(personEvent(state, { user_id: user.id, new_email: apiEmail(after, state.host) }, everyone));
        events.push(avatarEvent(state, user, user.email, everyone));
      }
    }
  }
  if (cmd.settings !== undefined) {
    const changed: Record<string, string | number | boolean> = {};
    for (const [name, value] of Object.entries(cmd.settings)) {
      const error = checkPersonalSetting(name, value);
      if (error !== null) return fail(bad(error));
      if (personalSetting(user, name) !== value) changed[name] = value;
    }
    if (Object.keys(changed).length > 0) {
      update.settings = withSettings(user, changed);
      events.push(...personalSettingEvents(state, user, changed));
    }
  }
  // Turning draft synchronisation off deletes the user's drafts, without events (Zulip's do_change_user_setting).
  const cleared = draftsClearedBySettings(state, user.id, personalSetting(user, 'enable_drafts_synchronization'), cmd.settings);
  const presence = presenceChange(state, user, cmd.presenceEnabled, everyone);
  events.push(...presence.events);
  return ok({ records: [...(Object.keys(update).length > 3 ? [update] : []), ...cleared, ...presence.records], events, reply: {} });
};

/**
 * `presence_enabled` through `PATCH /settings`: stored as the status's `away` (seed §4.9, the two
 * are one value), so a change records `user_status_set` and sends both families of events: the
 * setting's (`presenceSettingEvents`, to the user) and `user_status` `{user_id, away}` to every
 * active user. An unchanged value does nothing (Zulip's `json_change_settings` skips equal values).
 */
function presenceChange(state: RealmState, user: User, presenceEnabled: boolean | undefined, everyone: number[]): { records: RealmRecord[]; events: RealmEvent[] } {
  if (presenceEnabled === undefined || userStatusOf(state, user.id).presenceEnabled === presenceEnabled) return { records: [], events: [] };
  return {
    records: [{ type: 'user_status_set', v: 1, userId: user.id, away: !presenceEnabled }],
    events: [
      ...presenceSettingEvents(state, user.id, presenceEnabled),
      { userIds: everyone, payload: { type: 'user_status', user_id: user.id, away: !presenceEnabled } },
    ],
  };
}

/**
 * Events for changed personal settings (Zulip's `do_change_user_setting`): `user_settings` update
 * per property, plus the legacy `update_display_settings` / `update_global_notifications` event
 * for settings in those legacy groups.
 */
function personalSettingEvents(state: RealmState, user: User, changed: Readonly<Record<string, string | number | boolean>>): RealmEvent[] {
  const events: RealmEvent[] = [];
  const email = apiEmail(user, state.host);
  for (const [name, value] of Object.entries(changed)) {
    events.push({ userIds: [user.id], payload: { type: 'user_settings', op: 'update', property: name, value } });
    if (name in DISPLAY_SETTINGS_LEGACY) {
      events.push({ userIds: [user.id], payload: { type: 'update_display_settings', user: email, setting_name: name, setting: value } });
    } else if (name in NOTIFICATION_SETTINGS_LEGACY) {
      events.push({ userIds: [user.id], payload: { type: 'update_global_notifications', user: email, notification_name: name, setting: value } });
    }
  }
  return events;
}

