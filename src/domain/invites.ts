/**
 * Reusable invitation links (https://zulip.com/api/create-invite-link,
 * https://zulip.com/api/get-invites): the realm's multiuse invites,
 * their records, `evolve` and snapshot form, and their wire form for `GET /invites`.
 *
 * State: `state.invites` = `{ items, nextId }` (optional: realms and snapshots from before
 * invitations lack it). Records: `multiuse_invite_created` v1 (the whole invite, key included —
 * the key is drawn from `ctx.randomToken` in the handler, never here) and
 * `multiuse_invite_revoked` v1. A multiuse invite is never marked used; it stops working when it
 * expires or is revoked.
 */
import type { RealmState, RoleCode } from './realm-state.js';

/** What every invitation (a reusable link or an emailed one) grants, and its life (domain form). */
export interface InviteTerms {
  id: number;
  /** 24 lowercase base32 characters; the link is `<realm url>/join/<key>/`. */
  key: string;
  invitedById: number;
  /** UNIX seconds (an emailed invitation's is reset by a resend). */
  invitedAt: number;
  /** UNIX seconds, or null = never expires. */
  expiresAt: number | null;
  invitedAs: RoleCode;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  /** null = organization default; '' = none; otherwise Markdown. */
  welcomeMessageCustomText: string | null;
}

/** One reusable invitation link (domain form). */
export interface MultiuseInvite extends InviteTerms {
  revoked: boolean;
}

/** The realm's invites and the next id (ids are never reused). */
export interface InviteState {
  items: MultiuseInvite[];
  nextId: number;
  /** Email invitations (`email-invites.ts`); absent in states from before them. */
  emails?: import('./email-invites.js').EmailInvite[];
  /** Next email invitation id (absent = 1). */
  nextEmailId?: number;
}

/** `multiuse_invite_created` v1. */
export interface MultiuseInviteCreated {
  type: 'multiuse_invite_created';
  v: 1;
  invite: MultiuseInvite;
}

/** `multiuse_invite_revoked` v1. */
export interface MultiuseInviteRevoked {
  type: 'multiuse_invite_revoked';
  v: 1;
  id: number;
}

export type InviteRecord = MultiuseInviteCreated | MultiuseInviteRevoked | import('./email-invites.js').EmailInviteRecord;

/** Default link validity (Zulip's INVITATION_LINK_VALIDITY_MINUTES). */
export const DEFAULT_INVITE_EXPIRES_IN_MINUTES = 14400;
/** Longest `welcome_message_custom_text`. */
export const MAX_WELCOME_MESSAGE_LENGTH = 8000;

/** Zulip's (pydantic) error for a `welcome_message_custom_text` over {@link MAX_WELCOME_MESSAGE_LENGTH}. */
export const welcomeTextTooLong = (): string => `welcome_message_custom_text is too long (limit: ${MAX_WELCOME_MESSAGE_LENGTH} characters)`;

/** The realm's invite state (tolerates states built before invitations existed). */
export function invitesOf(state: RealmState): InviteState {
  return state.invites ?? { items: [], nextId: 1 };
}

/** `evolve` for invitation records. */
export function evolveInvites(state: RealmState, r: MultiuseInviteCreated | MultiuseInviteRevoked): void {
  const current = invitesOf(state);
  if (r.type === 'multiuse_invite_created') {
    state.invites = { ...current, items: [...current.items, structuredClone(r.invite)], nextId: Math.max(current.nextId, r.invite.id + 1) };
  } else {
    state.invites = { ...current, items: current.items.map((i) => (i.id === r.id ? { ...i, revoked: true } : i)), nextId: current.nextId };
  }
}

/** Whether the invite can still be used at `now` (not revoked, not expired). */
export function isInviteUsable(invite: MultiuseInvite, now: number): boolean {
  return !invite.revoked && (invite.expiresAt === null || invite.expiresAt > now);
}

/** The usable invite with this key, or undefined. */
export function inviteByKey(state: RealmState, key: string): MultiuseInvite | undefined {
  return invitesOf(state).items.find((i) => i.key === key);
}

/** The join link of an invite: `<realm URL>/join/<key>/` (Zulip's `create_confirmation_link`). */
export function inviteLink(realmUrl: string, key: string): string {
  return `${realmUrl}/join/${key}/`;
}

/** `GET /invites` entry of a multiuse invite (https://zulip.com/api/get-invites). */
export function inviteWire(realmUrl: string, invite: MultiuseInvite): Record<string, unknown> {
  return {
    invited_by_user_id: invite.invitedById,
    invited: Math.floor(invite.invitedAt),
    expiry_date: invite.expiresAt === null ? null : Math.floor(invite.expiresAt),
    id: invite.id,
    link_url: inviteLink(realmUrl, invite.key),
    invited_as: invite.invitedAs,
    is_multiuse: true,
  };
}

export type InvitesCore = InviteState;

/** Snapshot form (undefined when there are none, so old snapshots and new ones look alike). */
export function invitesToCore(state: RealmState): InvitesCore | undefined {
  const s = state.invites;
  return s === undefined || (s.items.length === 0 && (s.emails ?? []).length === 0) ? undefined : s;
}

/** Restores the snapshot form (absent → empty). */
export function invitesFromCore(state: RealmState, core: InvitesCore | undefined): void {
  state.invites = core === undefined ? { items: [], nextId: 1 } : structuredClone(core);
}
