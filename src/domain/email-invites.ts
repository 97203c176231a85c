/**
 * Email invitations (https://zulip.com/api/send-invites, https://zulip.com/api/get-invites;
 * Zulip's `PreregistrationUser` model and zerver/actions/invites.py `do_invite_users`,
 * `do_revoke_user_invite`, `do_resend_user_invite_email`): one invite per invited address,
 * kept in `state.invites.emails` beside the reusable links (own id sequence, as Zulip's
 * separate tables: `DELETE /invites/{id}` vs `DELETE /invites/multiuse/{id}`).
 *
 * Records: `email_invites_created` v1 (the whole invites, keys included: drawn from
 * `ctx.randomToken` in the handler), `email_invite_revoked` v1, `email_invite_resent` v1 (new
 * `invitedAt` and expiry, Zulip resets `invited_at`), `email_invites_used` v1 (an account was made
 * for the address: every active invite to it is used up, as Zulip's `revoke_preregistration_users`
 * does for the others).
 */
import type { RealmState } from './realm-state.js';
import { invitesOf, type InviteState, type InviteTerms } from './invites.js';

/** One invitation sent to one address (domain form); `key` is in the emailed link. */
export interface EmailInvite extends InviteTerms {
  /** The invited address, as typed (compared case-insensitively). */
  email: string;
  /** Send the inviter a direct message when the invitee joins. */
  notifyReferrerOnJoin: boolean;
  status: 'active' | 'used' | 'revoked';
}

/** `email_invites_created` v1: one request's invites. */
export interface EmailInvitesCreated {
  type: 'email_invites_created';
  v: 1;
  invites: EmailInvite[];
}

/** `email_invite_revoked` v1. */
export interface EmailInviteRevoked {
  type: 'email_invite_revoked';
  v: 1;
  id: number;
}

/** `email_invite_resent` v1: the invite was mailed again at `invitedAt` (UNIX seconds). */
export interface EmailInviteResent {
  type: 'email_invite_resent';
  v: 1;
  id: number;
  invitedAt: number;
  expiresAt: number | null;
}

/** `email_invites_used` v1: an account now exists for `email`. */
export interface EmailInvitesUsed {
  type: 'email_invites_used';
  v: 1;
  email: string;
}

export type EmailInviteRecord = EmailInvitesCreated | EmailInviteRevoked | EmailInviteResent | EmailInvitesUsed;

/**
 * Invitations one realm may send per 24 hours (Zulip's `INVITES_DEFAULT_REALM_DAILY_MAX`, the
 * default of `realm.max_invites`, checked by zerver/actions/invites.py `check_invite_limit`).
 */
export const INVITES_DAILY_MAX = 3000;

/** The realm's email invites, oldest first. */
export function emailInvitesOf(state: RealmState): readonly EmailInvite[] {
  return invitesOf(state).emails ?? [];
}

/** The next email invite id. */
export function nextEmailInviteId(state: RealmState): number {
  return invitesOf(state).nextEmailId ?? 1;
}

/** Whether `invite` can still be used at `nowSeconds` (active and not expired). */
export function isEmailInviteUsable(invite: EmailInvite, nowSeconds: number): boolean {
  return invite.status === 'active' && (invite.expiresAt === null || invite.expiresAt > nowSeconds);
}

/** The email invite with this key, or undefined. */
export function emailInviteByKey(state: RealmState, key: string): EmailInvite | undefined {
  return emailInvitesOf(state).find((i) => i.key === key);
}

/** The active (unused, unrevoked) invites to `email`, compared case-insensitively. */
export function activeEmailInvitesFor(state: RealmState, email: string): EmailInvite[] {
  const lower = email.trim().toLowerCase();
  return emailInvitesOf(state).filter((i) => i.status === 'active' && i.email.toLowerCase() === lower);
}

/** Invitations mailed in the 24 hours before `nowSeconds` (counted for the daily limit). */
export function invitesSentInLastDay(state: RealmState, nowSeconds: number): number {
  return emailInvitesOf(state).filter((i) => i.invitedAt > nowSeconds - 86400).length;
}

/** `GET /invites` entry of an email invite (https://zulip.com/api/get-invites). */
export function emailInviteWire(invite: EmailInvite): Record<string, unknown> {
  return {
    invited_by_user_id: invite.invitedById,
    invited: Math.floor(invite.invitedAt),
    expiry_date: invite.expiresAt === null ? null : Math.floor(invite.expiresAt),
    id: invite.id,
    email: invite.email,
    invited_as: invite.invitedAs,
    notify_referrer_on_join: invite.notifyReferrerOnJoin,
    is_multiuse: false,
  };
}

function withEmails(current: InviteState, emails: EmailInvite[], nextEmailId: number): InviteState {
  return { ...current, emails, nextEmailId };
}

/** `evolve` for email invite records. */
export function evolveEmailInvites(state: RealmState, r: EmailInviteRecord): void {
  const current = invitesOf(state);
  const emails = current.emails ?? [];
  const nextId = current.nextEmailId ?? 1;
  switch (r.type) {
    case 'email_invites_created': {
      const added = r.invites.map((i) => structuredClone(i));
      state.invites = withEmails(current, [...emails, ...added], Math.max(nextId, ...added.map((i) => i.id + 1)));
      return;
    }
    case 'email_invite_revoked':
      state.invites = withEmails(current, emails.map((i) => (i.id === r.id ? { ...i, status: 'revoked' } : i)), nextId);
      return;
    case 'email_invite_resent':
      state.invites = withEmails(current, emails.map((i) => (i.id === r.id ? { ...i, invitedAt: r.invitedAt, expiresAt: r.expiresAt } : i)), nextId);
      return;
    case 'email_invites_used': {
      const email = r.email.trim().toLowerCase();
      state.invites = withEmails(current, emails.map((i) => (i.status === 'active' && i.email.toLowerCase() === email ? { ...i, status: 'used' } : i)), nextId);
      return;
    }
  }
}
