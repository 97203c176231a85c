/**
 * Reusable invitation handlers (https://zulip.com/api/create-invite-link,
 * https://zulip.com/api/http-headers, https://zulip.com/api/rest-error-handling;
 * https://zulip.com/api/get-invites; Zulip's
 * `generate_multiuse_invite_backend` / `do_create_multiuse_invite_link` and
 * `revoke_multiuse_invite`).
 *
 * Checks, in Zulip's order, each failing with the state unchanged:
 * 1. guests → "Not allowed for guest users", bots → "This endpoint does not accept bot requests.";
 * 2. not in the realm's `create_multiuse_invite_group` → "Insufficient permission";
 * 3. `invite_as` ∉ {100, 200, 300, 400, 600} → "Invalid invite_as"; owner invites need an owner,
 *    administrator and moderator invites an administrator (no one invites to a more privileged role);
 * 4. each of `stream_ids` must be visible to the requester ("Invalid channel ID <id>. No invites were
 *    sent."); a non-empty list needs the realm's `can_add_subscribers_group` and each channel must be
 *    a default channel or one the requester may add subscribers to ("You do not have permission to
 *    subscribe other users to channels.");
 * 5. each of `group_ids` must be a live user-defined group the requester may add members to;
 * 6. `welcome_message_custom_text` ≤ 8000 characters; it is kept only for administrators.
 *
 * The key (24 lowercase base32 characters) comes from `ctx.randomToken`, so replay reads it from
 * the record. Each change sends `{type: "invites_changed"}` to the realm's administrators and the
 * inviter.
 */
import { welcomeMessages } from '../notifications.js';
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Role, type RealmState, type RoleCode, type User } from '../../domain/realm-state.js';
import { accessStreamById, accessUserGroupForUpdate, canAddSubscribers, canSeeWithSubscribers, hasRealmPermission, isRealmAdmin, requireMemberOrAdmin } from '../../domain/access.js';
import {
  MAX_WELCOME_MESSAGE_LENGTH,
  welcomeTextTooLong,
  invitesOf,
  type MultiuseInvite,
  type MultiuseInviteCreated,
  type MultiuseInviteRevoked,
} from '../../domain/invites.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { CommandContext, Decision, Handler } from '../decision.js';
import type { RealmRecord } from '../../domain/records.js';
import { STREAM_COLORS } from '../../domain/streams.js';
import { inviteByKey, isInviteUsable } from '../../domain/invites.js';
import { createUser } from './users.js';
import type { EmailInviteCommand, EmailInviteReplies } from './email-invites.js';
import { activeEmailInvitesFor } from '../../domain/email-invites.js';
import { emailAllowedForRealm } from '../../domain/realm-domains.js';

/** `POST /invites/multiuse`, validated at the edge for types only. */
export interface CreateMultiuseInvite {
  type: 'create_multiuse_invite';
  actorId: number;
  /** Minutes; null = never expires. */
  expiresInMinutes: number | null;
  invitedAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  welcomeMessageCustomText: string | null;
}

/** `DELETE /invites/multiuse/{invite_id}`. */
export interface RevokeMultiuseInvite {
  type: 'revoke_multiuse_invite';
  actorId: number;
  inviteId: number;
}

/**
 * Registration through a reusable link (`POST /join/{key}/`, `api/join.ts`): creates the account
 * with the invite's role, channels (plus the realm's defaults only when
 * `include_realm_default_subscriptions`), and groups. The password is hashed by the caller.
 */
export interface AcceptMultiuseInvite {
  type: 'accept_multiuse_invite';
  key: string;
  email: string;
  fullName: string;
  passwordHash: string;
  timezone: string;
}

export type InviteCommand = CreateMultiuseInvite | RevokeMultiuseInvite | AcceptMultiuseInvite | EmailInviteCommand;

export interface InviteReplies extends EmailInviteReplies {
  create_multiuse_invite: { inviteId: number; key: string };
  revoke_multiuse_invite: Record<string, never>;
  accept_multiuse_invite: { userId: number; apiKey: string };
}

const VALID_ROLES: ReadonlySet<number> = new Set([Role.owner, Role.admin, Role.moderator, Role.member, Role.guest]);
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 24 lowercase base32 characters from the injected randomness (Zulip: 15 random bytes). */
export function inviteKey(randomToken: (length: number) => string): string {
  const raw = randomToken(24);
  let key = '';
  for (let i = 0; i < 24; i++) key += BASE32[raw.charCodeAt(i) % 32];
  return key;
}

/** Zulip's `check_role_based_permissions`: nobody invites to a role above their own. */
export function checkInviteAs(actor: User, invitedAs: number): Result<RoleCode> {
  if (!VALID_ROLES.has(invitedAs)) return fail(Errors.badRequest('Invalid invite_as'));
  if (invitedAs === Role.owner && actor.role !== Role.owner) return fail(Errors.mustBeOwner());
  if ((invitedAs === Role.admin || invitedAs === Role.moderator) && !isRealmAdmin(actor)) return fail(Errors.mustBeAdmin());
  return ok(invitedAs as RoleCode);
}

/** Recipients of `invites_changed`: active administrators and the inviter. */
export function inviteEventUsers(state: RealmState, inviterId: number): number[] {
  const ids = new Set<number>([inviterId]);
  for (const u of state.users.values()) if (u.isActive && !u.isBot && isRealmAdmin(u)) ids.add(u.id);
  return [...ids].sort((a, b) => a - b);
}

const noSubscribePermission = () => Errors.badRequest('You do not have permission to subscribe other users to channels.');

/**
 * The channels and groups of an invitation, deduplicated, checked in Zulip's order
 * (`access_streams_for_invite`, `access_user_groups_for_invite`): each channel visible to the
 * inviter ("Invalid channel ID <id>. No invites were sent."), subscribing others allowed
 * (realm `can_add_subscribers_group`, and per channel unless it is a default channel), each group
 * one the inviter may add members to.
 */
export function checkInviteTargets(state: RealmState, actor: User, streamIdsIn: readonly number[], groupIdsIn: readonly number[]): Result<{ streamIds: number[]; groupIds: number[] }> {
  const streamIds = [...new Set(streamIdsIn)];
  const streams = [];
  for (const id of streamIds) {
    // Zulip's `invite_users_backend`: `access_stream_by_id`, with the invitation's own wording.
    const access = accessStreamById(state, actor, id);
    if (!access.ok) return fail(Errors.badRequest(`Invalid channel ID ${id}. No invites were sent.`));
    streams.push(access.value.stream);
  }
  if (streams.length > 0) {
    const realmMay = isRealmAdmin(actor) || hasRealmPermission(state, actor, 'can_add_subscribers_group');
    if (!realmMay) return fail(noSubscribePermission());
    for (const stream of streams) if (!stream.isDefault && !canAddSubscribers(state, actor, stream)) return fail(noSubscribePermission());
  }

  const groupIds = [...new Set(groupIdsIn)];
  for (const id of groupIds) {
    // Zulip's `access_user_groups_for_invite`: access_user_group_for_update(can_add_members_group).
    const access = accessUserGroupForUpdate(state, actor, id, 'can_add_members_group');
    if (!access.ok) return access;
  }

  return ok({ streamIds, groupIds });
}

export const createMultiuseInvite: Handler<CreateMultiuseInvite, InviteReplies['create_multiuse_invite']> = (state, cmd, ctx) => {
  const actorR = requireMemberOrAdmin(state.users.get(cmd.actorId));
  if (!actorR.ok) return actorR;
  const actor = actorR.value;
  if (!isRealmAdmin(actor) && !hasRealmPermission(state, actor, 'create_multiuse_invite_group')) {
    return fail(Errors.insufficientPermission());
  }
  const role = checkInviteAs(actor, cmd.invitedAs);
  if (!role.ok) return role;

  const targets = checkInviteTargets(state, actor, cmd.streamIds, cmd.groupIds);
  if (!targets.ok) return targets;
  const { streamIds, groupIds } = targets.value;

  const text = cmd.welcomeMessageCustomText;
  if (text !== null && text.length > MAX_WELCOME_MESSAGE_LENGTH) {
    return fail(Errors.badRequest(welcomeTextTooLong()));
  }

  const now = ctx.now();
  const current = invitesOf(state);
  const invite: MultiuseInvite = {
    id: current.nextId,
    key: inviteKey(ctx.randomToken),
    invitedById: actor.id,
    invitedAt: now,
    expiresAt: cmd.expiresInMinutes === null ? null : now + cmd.expiresInMinutes * 60,
    invitedAs: role.value,
    streamIds,
    groupIds,
    includeRealmDefaultSubscriptions: cmd.includeRealmDefaultSubscriptions,
    welcomeMessageCustomText: isRealmAdmin(actor) ? text : null,
    revoked: false,
  };
  const record: MultiuseInviteCreated = { type: 'multiuse_invite_created', v: 1, invite };
  const event: RealmEvent = { userIds: inviteEventUsers(state, actor.id), payload: { type: 'invites_changed' } };
  const decision: Decision<InviteReplies['create_multiuse_invite']> = {
    records: [record],
    events: [event],
    reply: { inviteId: invite.id, key: invite.key },
  };
  return ok(decision);
};

export const revokeMultiuseInvite: Handler<RevokeMultiuseInvite, Record<string, never>> = (state, cmd) => {
  const actorR = requireMemberOrAdmin(state.users.get(cmd.actorId));
  if (!actorR.ok) return actorR;
  const actor = actorR.value;
  const invite = invitesOf(state).items.find((i) => i.id === cmd.inviteId);
  if (invite === undefined) return fail(Errors.badRequest('No such invitation'));
  if (invite.invitedById !== actor.id) {
    if (!isRealmAdmin(actor)) return fail(Errors.mustBeAdmin());
    if (invite.invitedAs === Role.owner && actor.role !== Role.owner) return fail(Errors.mustBeOwner());
  }
  if (invite.revoked) return fail(Errors.badRequest('Invitation has already been revoked'));
  const record: MultiuseInviteRevoked = { type: 'multiuse_invite_revoked', v: 1, id: invite.id };
  const event: RealmEvent = { userIds: inviteEventUsers(state, invite.invitedById), payload: { type: 'invites_changed' } };
  return ok({ records: [record], events: [event], reply: {} });
};

/**
 * The sign-up form's refusal of an address outside the realm's email domains (Zulip's
 * zerver/forms.py `email_is_not_disposable` / `RegistrationForm`, `email_allowed_for_realm`).
 */
export const emailNotInRealmDomains = (email: string): string =>
  `Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`;

/** The error for a link that is unknown, expired or revoked (Zulip shows it as a 404 page). */
export const LINK_EXPIRED = 'The confirmation link has expired or been deactivated.';

export const acceptMultiuseInvite: Handler<AcceptMultiuseInvite, InviteReplies['accept_multiuse_invite']> = (state, cmd, ctx) => {
  const invite = inviteByKey(state, cmd.key);
  if (invite === undefined || !isInviteUsable(invite, ctx.now())) return fail(Errors.badRequest(LINK_EXPIRED));
  return joinWithInvite(state, invite, cmd, ctx);
};

/** What an invitation grants the account made through it (multiuse or email invite). */
export type InviteGrant = Pick<MultiuseInvite, 'invitedAs' | 'streamIds' | 'groupIds' | 'includeRealmDefaultSubscriptions' | 'welcomeMessageCustomText'>;

/**
 * Creates the account of someone accepting `invite` (Zulip's `do_create_user` with the
 * prereg user's role, streams and groups): the realm's default channels only when the invite asks
 * for them, the invite's channels and groups, the welcome messages as follow-ups.
 */
export function joinWithInvite(
  state: RealmState,
  invite: InviteGrant,
  cmd: Pick<AcceptMultiuseInvite, 'email' | 'fullName' | 'passwordHash' | 'timezone'>,
  ctx: CommandContext,
): Result<Decision<InviteReplies['accept_multiuse_invite']>> {
  if (!emailAllowedForRealm(state, cmd.email)) return fail(Errors.badRequest(emailNotInRealmDomains(cmd.email)));
  const created = createUser(state, {
    type: 'create_user', email: cmd.email, fullName: cmd.fullName, role: invite.invitedAs, passwordHash: cmd.passwordHash,
    isBot: false, botType: null, botOwnerId: null, timezone: cmd.timezone,
  }, ctx);
  if (!created.ok) return created;
  const userId = created.value.reply.userId;
  // create_user's records: `user_created`, then the default-channel subscriptions (kept only on request).
  const records: RealmRecord[] = invite.includeRealmDefaultSubscriptions ? [...created.value.records] : [created.value.records[0]!];
  const events = invite.includeRealmDefaultSubscriptions ? [...created.value.events] : [];
  const subscribed = new Set<number>();
  for (const r of records) if (r.type === 'subscriptions_added') subscribed.add(r.streamId);
  const everyone = [...state.users.values()].filter((u) => u.isActive);
  let colorIndex = subscribed.size;
  for (const streamId of invite.streamIds) {
    const stream = state.streams.get(streamId);
    if (stream === undefined || stream.isArchived || subscribed.has(streamId)) continue;
    subscribed.add(streamId);
    const color = STREAM_COLORS[colorIndex++] ?? STREAM_COLORS[stream.recipientId % STREAM_COLORS.length]!;
    records.push({ type: 'subscriptions_added', v: 1, streamId, subscriptions: [{ userId, color }] });
    const after = new Set([...(state.subscriptions.get(streamId)?.keys() ?? []), userId]);
    const to = everyone.filter((u) => canSeeWithSubscribers(state, u, stream, after)).map((u) => u.id);
    if (to.length > 0) events.push({ userIds: to, payload: { type: 'subscription', op: 'peer_add', stream_ids: [streamId], user_ids: [userId] } });
  }
  const groupWatchers = everyone.map((u) => u.id);
  for (const groupId of invite.groupIds) {
    const group = state.groups.get(groupId);
    if (group === undefined || group.deactivated || group.isSystemGroup) continue;
    records.push({ type: 'user_group_membership_changed', v: 1, groupId, addMembers: [userId], removeMembers: [], addSubgroups: [], removeSubgroups: [] });
    events.push({ userIds: groupWatchers, payload: { type: 'user_group', op: 'add_members', group_id: groupId, user_ids: [userId] } });
  }
  // Zulip's `revoke_preregistration_users`: the address's pending invitations are used up, and
  // their inviters' and the administrators' invitation lists change.
  const pending = activeEmailInvitesFor(state, cmd.email);
  if (pending.length > 0) {
    records.push({ type: 'email_invites_used', v: 1, email: cmd.email.trim() });
    const to = new Set(pending.flatMap((i) => inviteEventUsers(state, i.invitedById)));
    events.push({ userIds: [...to].sort((a, b) => a - b), payload: { type: 'invites_changed' } });
  }
  return ok({ records, events, reply: created.value.reply, followUps: welcomeMessages(state, userId, invite.welcomeMessageCustomText) });
};
