/**
 * Invitation endpoints (https://zulip.com/api/create-invite-link; Zulip's zerver/views/invite.py):
 * - `POST /invites/multiuse`: `invite_expires_in_minutes` (JSON int or null; absent = 14400),
 *   `invite_as` (JSON int, default 400), `stream_ids` / `group_ids` (JSON int lists, default []),
 *   `include_realm_default_subscriptions` (JSON bool, default false), `welcome_message_custom_text`
 *   (string; kept for administrators only) → `{invite_link}`;
 * - `GET /invites`: usable (not expired, not revoked, not used) email invitations and links — all of
 *   the realm's for administrators, otherwise the requester's own;
 * - `DELETE /invites/multiuse/{invite_id}`: revoke.
 *
 * Rules and error strings live in `realm/handlers/invites.ts`; the link is consumed by
 * `GET/POST /join/{key}/` (`api/join.ts`).
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { Role } from '../domain/realm-state.js';
import { DEFAULT_INVITE_EXPIRES_IN_MINUTES, inviteLink, invitesOf, isInviteUsable, inviteWire } from '../domain/invites.js';
import { runCommand } from './run-command.js';
import { emailInvitesOf, emailInviteWire, isEmailInviteUsable } from '../domain/email-invites.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { isRealmAdmin, requireMemberOrAdmin } from '../domain/access.js';

/** `POST /invites/multiuse` (Zulip's zerver/views/invite.py `generate_multiuse_invite_backend`). */
export const createMultiuseInvite = defineEndpoint({
  auth: 'user',
  params: {
    invite_expires_in_minutes: P.json(Type.Union([Type.Integer(), Type.Null()])),
    invite_as: P.int({ default: Role.member }),
    stream_ids: P.json(Type.Array(Type.Integer()), { default: [] }),
    group_ids: P.json(Type.Array(Type.Integer()), { default: [] }),
    include_realm_default_subscriptions: P.bool({ default: false }),
    welcome_message_custom_text: P.string(),
  },
  handler: async ({ realm, user, params }) => {
    const expires = params.invite_expires_in_minutes as number | null | undefined;
    return runCommand(
      realm,
      {
        type: 'create_multiuse_invite',
        actorId: user.id,
        expiresInMinutes: expires === undefined ? DEFAULT_INVITE_EXPIRES_IN_MINUTES : expires,
        invitedAs: params.invite_as,
        streamIds: params.stream_ids as number[],
        groupIds: params.group_ids as number[],
        includeRealmDefaultSubscriptions: params.include_realm_default_subscriptions,
        welcomeMessageCustomText: params.welcome_message_custom_text ?? null,
      },
      (reply) => ({ invite_link: inviteLink(realm.url, reply.key) }),
    );
  },
});

/** `GET /invites` (Zulip's zerver/views/invite.py `get_user_invites`). */
export const getInvites = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm, user }) => {
    const allowed = requireMemberOrAdmin(user);
    if (!allowed.ok) return allowed.error;
    const state = realm.state;
    const now = Date.now() / 1000;
    const isAdmin = isRealmAdmin(user);
    const invites = invitesOf(state)
      .items.filter((i) => isInviteUsable(i, now) && (isAdmin || i.invitedById === user.id))
      .map((i) => inviteWire(realm.url, i));
    // Email invitations first, as Zulip's `do_get_invites_controlled_by_user` lists them.
    const emailInvites = emailInvitesOf(state)
      .filter((i) => isEmailInviteUsable(i, now) && (isAdmin || i.invitedById === user.id))
      .map(emailInviteWire);
    return { invites: [...emailInvites, ...invites] };
  },
});

/** `DELETE /invites/multiuse/{invite_id}` (Zulip's zerver/views/invite.py `revoke_multiuse_invite`). */
export const revokeMultiuseInvite = defineEndpoint({
  auth: 'user',
  pathParams: { invite_id: 'int' },
  params: {},
  handler: async ({ realm, user, path }) => {
    return runCommand(realm, { type: 'revoke_multiuse_invite', actorId: user.id, inviteId: path.invite_id });
  },
});
