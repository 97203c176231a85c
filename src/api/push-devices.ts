/**
 * Mobile push device registration (https://zulip.com/api/add-apns-token,
 * https://zulip.com/api/remove-apns-token, https://zulip.com/api/add-fcm-token,
 * https://zulip.com/api/remove-fcm-token; Zulip's zerver/views/push_notifications.py and
 * zerver/lib/push_notifications.py `validate_token`):
 * - `POST /users/me/apns_device_token`: `token`, `appid` (both required; `appid` must match
 *   `[.a-zA-Z0-9-]+`, else "Invalid app ID");
 * - `DELETE /users/me/apns_device_token`: `token`;
 * - `POST` / `DELETE /users/me/android_gcm_reg_id`: `token`.
 * A token is 1–4096 characters ("Empty or invalid length token"); an APNs token must be
 * base64-decodable (Zulip's `b64_to_hex`, else "Invalid APNS token"). Tokens are stored per user
 * (`domain/push-devices.ts`); parley has no push bouncer, so nothing is sent to them yet.
 */
import { Errors, type ZulipError } from '../errors.js';
import type { PushDeviceKind } from '../domain/push-devices.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/**
 * Python's `base64.b64decode` (non-validating) succeeds: characters outside the alphabet are
 * skipped; the data characters must fill whole quads, or be completed by enough `=` padding.
 */
function base64Decodable(s: string): boolean {
  const data = s.replace(/[^A-Za-z0-9+/]/g, '').length;
  const rest = data % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const padding = /=*$/.exec(s.replace(/[^A-Za-z0-9+/=]/g, ''))![0].length;
  return padding >= 4 - rest;
}

/** Zulip's `validate_token`: the error, or null. */
function validateToken(token: string, kind: PushDeviceKind): ZulipError | null {
  if (token === '' || [...token].length > 4096) return Errors.pushTokenInvalidLength();
  if (kind === 'apns' && !base64Decodable(token)) return Errors.invalidApnsToken();
  return null;
}

const APP_ID = /^[.a-zA-Z0-9-]+$/;

/** `POST /users/me/apns_device_token` (Zulip's `add_apns_device_token`). */
export const addApnsToken = defineEndpoint({
  auth: 'user',
  params: { token: P.string({ required: true }), appid: P.string({ required: true }) },
  handler: ({ realm, user, params }) => {
    if (!APP_ID.test(params.appid)) return Errors.invalidAppId();
    const invalid = validateToken(params.token, 'apns');
    if (invalid) return invalid;
    return runCommand(realm, { type: 'add_push_device', actorId: user.id, kind: 'apns', token: params.token, appId: params.appid });
  },
});

/** `DELETE /users/me/apns_device_token` (Zulip's `remove_apns_device_token`). */
export const removeApnsToken = defineEndpoint({
  auth: 'user',
  params: { token: P.string({ required: true }) },
  handler: ({ realm, user, params }) => {
    const invalid = validateToken(params.token, 'apns');
    if (invalid) return invalid;
    return runCommand(realm, { type: 'remove_push_device', actorId: user.id, kind: 'apns', token: params.token });
  },
});

/** `POST /users/me/android_gcm_reg_id` (Zulip's `add_android_reg_id`). */
export const addFcmToken = defineEndpoint({
  auth: 'user',
  params: { token: P.string({ required: true }) },
  handler: ({ realm, user, params }) => {
    const invalid = validateToken(params.token, 'fcm');
    if (invalid) return invalid;
    return runCommand(realm, { type: 'add_push_device', actorId: user.id, kind: 'fcm', token: params.token, appId: null });
  },
});

/** `DELETE /users/me/android_gcm_reg_id` (Zulip's `remove_android_reg_id`). */
export const removeFcmToken = defineEndpoint({
  auth: 'user',
  params: { token: P.string({ required: true }) },
  handler: ({ realm, user, params }) => {
    const invalid = validateToken(params.token, 'fcm');
    if (invalid) return invalid;
    return runCommand(realm, { type: 'remove_push_device', actorId: user.id, kind: 'fcm', token: params.token });
  },
});
