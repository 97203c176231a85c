/**
 * Registering mobile push devices (https://zulip.com/api/add-apns-token,
 * https://zulip.com/api/add-fcm-token, https://zulip.com/api/remove-apns-token,
 * https://zulip.com/api/remove-fcm-token; Zulip's `zerver/views/push_notifications.py`,
 * `zerver/lib/push_notifications.py` `validate_token`, `add_push_device_token`,
 * `remove_push_device_token`). Humans only (`human_users_only`: "This endpoint does not accept
 * bot requests."). The endpoint has validated the token and app id.
 *
 * Adding an existing token refreshes it (Zulip updates `last_updated`, and the app id); removing
 * an unknown token is "Token does not exist". No client event (Zulip sends none).
 */
import { ok, fail, Errors } from '../../errors.js';
import { findPushDevice, type PushDeviceKind } from '../../domain/push-devices.js';
import type { Handler } from '../decision.js';

/** `POST /users/me/apns_device_token` (kind `apns`, with `appId`) or `/users/me/android_gcm_reg_id` (kind `fcm`). */
export interface AddPushDevice {
  type: 'add_push_device';
  actorId: number;
  kind: PushDeviceKind;
  token: string;
  /** APNs: the iOS app id; FCM: null. */
  appId: string | null;
}

/** `DELETE /users/me/apns_device_token` or `/users/me/android_gcm_reg_id`. */
export interface RemovePushDevice {
  type: 'remove_push_device';
  actorId: number;
  kind: PushDeviceKind;
  token: string;
}

export type PushDeviceCommand = AddPushDevice | RemovePushDevice;

/** Replies of the push-device commands (merged into `CommandReplies`). */
export interface PushDeviceReplies {
  add_push_device: Record<string, never>;
  remove_push_device: Record<string, never>;
}

export const addPushDevice: Handler<AddPushDevice, Record<string, never>> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  if (actor.isBot) return fail(Errors.noBots());
  const device = { kind: cmd.kind, token: cmd.token, appId: cmd.appId, lastUpdated: Math.floor(ctx.now()) };
  return ok({ records: [{ type: 'push_device_added', v: 1, userId: actor.id, device }], events: [], reply: {} });
};

export const removePushDevice: Handler<RemovePushDevice, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  if (actor.isBot) return fail(Errors.noBots());
  if (findPushDevice(state, actor.id, cmd.kind, cmd.token) === undefined) return fail(Errors.pushTokenDoesNotExist());
  return ok({ records: [{ type: 'push_devices_removed', v: 1, userId: actor.id, kind: cmd.kind, token: cmd.token }], events: [], reply: {} });
};
