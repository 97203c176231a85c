/**
 * Password reset tokens (Django's `PasswordResetTokenGenerator`, which Zulip's
 * `ZulipPasswordResetForm` uses): `<timestamp base 36>-<HMAC>` with the HMAC over the user's id,
 * current password hash and address and the timestamp. Nothing is stored: the token stops working
 * when it expires or once the password changes (so it is good for one reset), or the address does.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a reset link works: 24 hours (the validity Zulip's password reset mail states). */
export const PASSWORD_RESET_VALID_SECONDS = 24 * 3600;

/** What the token is bound to. */
export interface ResetSubject {
  realmId: number;
  userId: number;
  email: string;
  /** The current argon2 hash (null: no password yet). */
  passwordHash: string | null;
}

function mac(secret: string, s: ResetSubject, timestamp: number): string {
  return createHmac('sha256', secret)
    .update(`${s.realmId}\u0000${s.userId}\u0000${s.email}\u0000${s.passwordHash ?? ''}\u0000${timestamp}`)
    .digest('hex')
    .slice(0, 40);
}

/** A token for `subject` issued at `nowSeconds` (UNIX seconds). */
export function makeResetToken(secret: string, subject: ResetSubject, nowSeconds: number): string {
  const timestamp = Math.floor(nowSeconds);
  return `${timestamp.toString(36)}-${mac(secret, subject, timestamp)}`;
}

/** Whether `token` is valid for `subject` at `nowSeconds` (well formed, authentic, not expired). */
export function checkResetToken(secret: string, subject: ResetSubject, token: string, nowSeconds: number): boolean {
  const match = /^([0-9a-z]{1,13})-([0-9a-f]{40})$/.exec(token);
  if (match === null) return false;
  const timestamp = parseInt(match[1]!, 36);
  if (!Number.isSafeInteger(timestamp) || nowSeconds - timestamp > PASSWORD_RESET_VALID_SECONDS || timestamp > nowSeconds + 60) return false;
  const expected = Buffer.from(mac(secret, subject, timestamp));
  return timingSafeEqual(expected, Buffer.from(match[2]!));
}

/** The user id in a reset link (`uidb64`: the id in URL-safe base64, as Django's `urlsafe_base64_encode`). */
export function encodeUid(userId: number): string {
  return Buffer.from(String(userId)).toString('base64url');
}

/** The user id of a link's `uidb64`, or null when malformed. */
export function decodeUid(uid: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(uid)) return null;
  const text = Buffer.from(uid, 'base64url').toString('utf8');
  return /^[1-9]\d{0,9}$/.test(text) ? Number(text) : null;
}
