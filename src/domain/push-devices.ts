/**
 * Mobile push device registrations (https://zulip.com/api/add-apns-token,
 * https://zulip.com/api/add-fcm-token; Zulip's `zerver/lib/push_notifications.py`
 * `add_push_device_token` / `remove_push_device_token`, model `PushDeviceToken`): per user, the
 * APNs tokens and FCM (formerly GCM) registration ids of their phones. parley stores them (no push
 * bouncer: nothing is sent yet); regenerating the API key forgets them, as Zulip's
 * `clear_push_device_tokens` does.
 *
 * State shape: `RealmState.pushDevices` = user id → devices in registration order; a token is
 * unique per (user, kind). Optional: states built by hand and older snapshots lack it.
 */
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** `apns` (Apple) or `fcm` (Google; Zulip's `PushDeviceToken.FCM`, formerly `GCM`). */
export type PushDeviceKind = 'apns' | 'fcm';

/** One registered device. */
export interface PushDevice {
  kind: PushDeviceKind;
  token: string;
  /** APNs only: the iOS app id (`appid`), e.g. `org.zulip.Zulip`; null for FCM. */
  appId: string | null;
  /** UNIX seconds (integer) of the last registration. */
  lastUpdated: number;
}

/** A device token was registered, or registered again (then only `lastUpdated` changes). */
export interface PushDeviceAdded {
  type: 'push_device_added';
  v: 1;
  userId: number;
  device: PushDevice;
}

/** Device tokens of a user were removed: one (`DELETE …`), or all of them when `token` is absent. */
export interface PushDevicesRemoved {
  type: 'push_devices_removed';
  v: 1;
  userId: number;
  kind?: PushDeviceKind;
  token?: string;
}

export type PushDeviceRecord = PushDeviceAdded | PushDevicesRemoved;

/** The user's devices (a shared empty list when none: do not mutate). */
export function pushDevicesOf(state: RealmState, userId: number): readonly PushDevice[] {
  return state.pushDevices?.get(userId) ?? [];
}

/** The user's device with this kind and token, or undefined. */
export function findPushDevice(state: RealmState, userId: number, kind: PushDeviceKind, token: string): PushDevice | undefined {
  return pushDevicesOf(state, userId).find((d) => d.kind === kind && d.token === token);
}

/** `evolve` of the push-device records. */
export function evolvePushDevices(state: RealmState, r: PushDeviceRecord): void {
  const all = (state.pushDevices ??= new Map<number, PushDevice[]>());
  const mine: PushDevice[] = all.get(r.userId) ?? [];
  switch (r.type) {
    case 'push_device_added': {
      const rest = mine.filter((d) => !(d.kind === r.device.kind && d.token === r.device.token));
      const existing = mine.find((d) => d.kind === r.device.kind && d.token === r.device.token);
      // Re-registering keeps the device's place; only the time (and app id) change.
      if (existing !== undefined) Object.assign(existing, r.device);
      else all.set(r.userId, [...rest, { ...r.device }]);
      return;
    }
    case 'push_devices_removed': {
      const rest = r.token === undefined ? [] : mine.filter((d) => !(d.kind === r.kind && d.token === r.token));
      if (rest.length === 0) all.delete(r.userId);
      else all.set(r.userId, rest);
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** Snapshot form. */
export type PushDevicesCore = Array<[userId: number, devices: PushDevice[]]>;

export function pushDevicesToCore(state: RealmState): PushDevicesCore {
  return [...(state.pushDevices ?? [])];
}

/** Restores `state.pushDevices` (`undefined` = a snapshot written before push devices: none). */
export function pushDevicesFromCore(state: RealmState, core: PushDevicesCore | undefined): void {
  state.pushDevices = new Map((core ?? []).map(([userId, devices]) => [userId, devices.map((d) => ({ ...d }))]));
}
