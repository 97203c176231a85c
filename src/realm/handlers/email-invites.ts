/**
 * Email invitation handlers (https://zulip.com/api/send-invites,
 * https://zulip.com/api/revoke-email-invite, https://zulip.com/api/resend-email-invite; Zulip's
 * zerver/views/invite.py `invite_users_backend`, `revoke_user_invite`, `resend_user_invite_email`
 * and zerver/actions/invites.py `do_invite_users`, `check_invite_limit`).
 *
 * `invite_users` checks, in Zulip's order, each failing with the state unchanged:
 * 1. guests / bots refused (`require_member_or_admin`); not in `can_invite_users_group` →
 *    "Insufficient permission"; `invite_as` checked like a reusable link's;
 * 2. no address → "You must specify at least one email address."; channels and groups as for links;
 * 3. more invitations in 24 hours than `INVITES_DAILY_MAX` → INVITATION_FAILED with
 *    `daily_limit_reached`;
 * 4. any malformed address ("Invalid address.") or one outside the realm's email domains when
 *    `emails_restricted_to_domains` ("Outside your domain.") → INVITATION_FAILED "Some emails did
 *    not validate…", nothing sent;
 * 5. addresses of existing accounts are skipped; if all are → "We weren't able to invite anyone.".
 * The reply lists the skipped addresses: the API layer answers Zulip's partial-success
 * INVITATION_FAILED ("…We did send invitations to everyone else!") once the invites are durable,
 * and mails each invite then (mail never leaves before its record is durable).
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Role, type RealmState, type User } from '../../domain/realm-state.js';
import { hasRealmPermission, isRealmAdmin, requireMemberOrAdmin } from '../../domain/access.js';
import { findUserByEmail, isValidEmail } from '../../domain/users.js';
import { emailAllowedForRealm } from '../../domain/realm-domains.js';
import { MAX_WELCOME_MESSAGE_LENGTH, welcomeTextTooLong } from '../../domain/invites.js';
import {
  INVITES_DAILY_MAX,
  emailInviteByKey,
  emailInvitesOf,
  invitesSentInLastDay,
  isEmailInviteUsable,
  nextEmailInviteId,
  type EmailInvite,
} from '../../domain/email-invites.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Handler } from '../decision.js';
import type { InternalSend } from '../commands.js';
import { checkInviteAs, checkInviteTargets, inviteEventUsers, inviteKey, joinWithInvite, LINK_EXPIRED } from './invites.js';

/** `POST /invites`, validated at the edge for types only. */
export interface InviteUsers {
  type: 'invite_users';
  actorId: number;
  /** The addresses, already split and reduced (`Name <addr>` → `addr`), possibly with blanks. */
  emails: string[];
  /** Minutes; null = never expires. */
  expiresInMinutes: number | null;
  invitedAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
  welcomeMessageCustomText: string | null;
}

/** `DELETE /invites/{invite_id}`. */
export interface RevokeEmailInvite {
  type: 'revoke_email_invite';
  actorId: number;
  inviteId: number;
}

/** `POST /invites/{invite_id}/resend`. */
export interface ResendEmailInvite {
  type: 'resend_email_invite';
  actorId: number;
  inviteId: number;
}

/** Registration through an emailed link (`POST /join/{key}/`): the account gets the invited address. */
export interface AcceptEmailInvite {
  type: 'accept_email_invite';
  key: string;
  fullName: string;
  passwordHash: string;
  timezone: string;
}

export type EmailInviteCommand = InviteUsers | RevokeEmailInvite | ResendEmailInvite | AcceptEmailInvite;

export interface EmailInviteReplies {
  /** `invited`: the invites to mail; `skipped`: `[email, message, is_deactivated]` per existing account. */
  invite_users: { invited: EmailInvite[]; skipped: Array<[string, string, boolean]> };
  revoke_email_invite: Record<string, never>;
  /** `invite`: to mail again; `timestamp`: the new `invited` time (UNIX seconds, integer). */
  resend_email_invite: { invite: EmailInvite; timestamp: number };
  accept_email_invite: { userId: number; apiKey: string };
}

const DAILY_LIMIT_MSG =
  'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.';

/** Zulip's `get_existing_user_errors`: the skip reason for an address that has an account. */
function existingUserError(state: RealmState, email: string): [string, string, boolean] | null {
  const user = findUserByEmail(state, email);
  if (user === undefined || user.isBot) return null;
  return user.isActive ? [email, 'Already has an account.', false] : [email, 'Account has been deactivated.', true];
}

/** The invitation's actor: member or admin, in `can_invite_users_group`. */
function inviter(state: RealmState, actorId: number): Result<User> {
  const actor = requireMemberOrAdmin(state.users.get(actorId));
  if (!actor.ok) return actor;
  if (!hasRealmPermission(state, actor.value, 'can_invite_users_group')) return fail(Errors.insufficientPermission());
  return actor;
}

export const inviteUsers: Handler<InviteUsers, EmailInviteReplies['invite_users']> = (state, cmd, ctx) => {
  const actorR = inviter(state, cmd.actorId);
  if (!actorR.ok) return actorR;
  const actor = actorR.value;
  const role = checkInviteAs(actor, cmd.invitedAs);
  if (!role.ok) return role;
  const emails = [...new Set(cmd.emails.map((e) => e.trim()))].filter((e) => e !== '');
  if (emails.length === 0) return fail(Errors.badRequest('You must specify at least one email address.'));
  const targets = checkInviteTargets(state, actor, cmd.streamIds, cmd.groupIds);
  if (!targets.ok) return targets;
  const text = cmd.welcomeMessageCustomText;
  if (text !== null && text.length > MAX_WELCOME_MESSAGE_LENGTH) {
    return fail(Errors.badRequest(welcomeTextTooLong()));
  }
  const now = ctx.now();
  if (invitesSentInLastDay(state, now) + emails.length > INVITES_DAILY_MAX) return fail(Errors.invitationFailed(DAILY_LIMIT_MSG, [], false, true));
  // Zulip's `validate_email_is_valid` with the realm's validator (`get_realm_email_validator`).
  const invalid = emails.flatMap((e): Array<[string, string, boolean]> => {
    if (!isValidEmail(e)) return [[e, 'Invalid address.', false]];
    return emailAllowedForRealm(state, e) ? [] : [[e, 'Outside your domain.', false]];
  });
  if (invalid.length > 0) return fail(Errors.invitationFailed("Some emails did not validate, so we didn't send any invitations.", invalid, false));
  const skipped: Array<[string, string, boolean]> = [];
  const good: string[] = [];
  for (const email of emails) {
    const error = existingUserError(state, email);
    if (error === null) good.push(email);
    else skipped.push(error);
  }
  if (good.length === 0) return fail(Errors.invitationFailed("We weren't able to invite anyone.", skipped, false));

  let id = nextEmailInviteId(state);
  const invited = good.map(
    (email): EmailInvite => ({
      id: id++,
      key: inviteKey(ctx.randomToken),
      email,
      invitedById: actor.id,
      invitedAt: now,
      expiresAt: cmd.expiresInMinutes === null ? null : now + cmd.expiresInMinutes * 60,
      invitedAs: role.value,
      streamIds: targets.value.streamIds,
      groupIds: targets.value.groupIds,
      includeRealmDefaultSubscriptions: cmd.includeRealmDefaultSubscriptions,
      notifyReferrerOnJoin: cmd.notifyReferrerOnJoin,
      welcomeMessageCustomText: isRealmAdmin(actor) ? text : null,
      status: 'active',
    }),
  );
  const event: RealmEvent = { userIds: inviteEventUsers(state, actor.id), payload: { type: 'invites_changed' } };
  return ok({ records: [{ type: 'email_invites_created', v: 1, invites: invited }], events: [event], reply: { invited, skipped } });
};

/**
 * The email invite `inviteId` if `actor` controls it (Zulip's `revoke_user_invite` /
 * `resend_user_invite_email`): their own, or any for an administrator (owner invites: an owner).
 * Used, revoked and unknown invites are all "No such invitation".
 */
function controlledInvite(state: RealmState, actorId: number, inviteId: number): Result<{ actor: User; invite: EmailInvite }> {
  const actorR = requireMemberOrAdmin(state.users.get(actorId));
  if (!actorR.ok) return actorR;
  const actor = actorR.value;
  const invite = emailInvitesOf(state).find((i) => i.id === inviteId);
  if (invite === undefined || invite.status !== 'active') return fail(Errors.badRequest('No such invitation'));
  if (invite.invitedById !== actor.id) {
    if (invite.invitedAs === Role.owner && actor.role !== Role.owner) return fail(Errors.mustBeOwner());
    if (!isRealmAdmin(actor)) return fail(Errors.mustBeAdmin());
  }
  return ok({ actor, invite });
}

export const revokeEmailInvite: Handler<RevokeEmailInvite, Record<string, never>> = (state, cmd) => {
  const found = controlledInvite(state, cmd.actorId, cmd.inviteId);
  if (!found.ok) return found;
  const { invite } = found.value;
  const event: RealmEvent = { userIds: inviteEventUsers(state, invite.invitedById), payload: { type: 'invites_changed' } };
  return ok({ records: [{ type: 'email_invite_revoked', v: 1, id: invite.id }], events: [event], reply: {} });
};

export const resendEmailInvite: Handler<ResendEmailInvite, EmailInviteReplies['resend_email_invite']> = (state, cmd, ctx) => {
  const found = controlledInvite(state, cmd.actorId, cmd.inviteId);
  if (!found.ok) return found;
  const { invite } = found.value;
  const now = ctx.now();
  // A resend counts toward the daily limit (Zulip's `do_resend_user_invite_email` calls `check_invite_limit(realm, 1)`).
  if (invitesSentInLastDay(state, now) + 1 > INVITES_DAILY_MAX) return fail(Errors.invitationFailed(DAILY_LIMIT_MSG, [], false, true));
  // The link keeps its validity period, counted again from now.
  const expiresAt = invite.expiresAt === null ? null : now + (invite.expiresAt - invite.invitedAt);
  const resent: EmailInvite = { ...invite, invitedAt: now, expiresAt };
  const event: RealmEvent = { userIds: inviteEventUsers(state, invite.invitedById), payload: { type: 'invites_changed' } };
  return ok({
    records: [{ type: 'email_invite_resent', v: 1, id: invite.id, invitedAt: now, expiresAt }],
    events: [event],
    reply: { invite: resent, timestamp: Math.floor(now) },
  });
};

export const acceptEmailInvite: Handler<AcceptEmailInvite, EmailInviteReplies['accept_email_invite']> = (state, cmd, ctx) => {
  const invite = emailInviteByKey(state, cmd.key);
  if (invite === undefined || !isEmailInviteUsable(invite, ctx.now())) return fail(Errors.badRequest(LINK_EXPIRED));
  const joined = joinWithInvite(state, invite, { email: invite.email, fullName: cmd.fullName, passwordHash: cmd.passwordHash, timezone: cmd.timezone }, ctx);
  if (!joined.ok) return joined;
  const decision = joined.value;
  const referrer = state.users.get(invite.invitedById);
  const followUps: InternalSend[] = [...(decision.followUps ?? [])] as InternalSend[];
  if (invite.notifyReferrerOnJoin && referrer !== undefined && referrer.isActive) {
    // zerver/actions/create_user.py `process_new_human_user`: a DM from Notification Bot.
    const user = `${cmd.fullName.trim()} <\`${invite.email.toLowerCase()}\`>`;
    followUps.push({ type: 'internal_send', bot: 'notification', messageType: 'private', to: [referrer.id], content: `${user} accepted your invitation to join Zulip!` });
  }
  return ok({ ...decision, followUps });
};
