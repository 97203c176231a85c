/**
 * Email invitation endpoints (https://zulip.com/api/send-invites,
 * https://zulip.com/api/revoke-email-invite, https://zulip.com/api/resend-email-invite; Zulip's
 * zerver/views/invite.py):
 * - `POST /invites`: `invitee_emails` (string: addresses separated by commas or newlines, `Name
 *   <addr>` reduced to `addr`), `invite_expires_in_minutes` (JSON int or null, default 14400),
 *   `invite_as` (default 400), `stream_ids` (JSON int list, required), `group_ids` (default []),
 *   `include_realm_default_subscriptions` (default false), `notify_referrer_on_join` (default
 *   true), `welcome_message_custom_text`;
 * - `DELETE /invites/{invite_id}`: revoke;
 * - `POST /invites/{invite_id}/resend` → `{timestamp}`.
 *
 * Rules live in `realm/handlers/email-invites.ts`. Each invitation mail is queued on the mailer
 * only once the command's records are durable (the reply has arrived); mail failures never fail
 * the request (the mailer retries in the background).
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { Role } from '../domain/realm-state.js';
import { DEFAULT_INVITE_EXPIRES_IN_MINUTES, inviteLink } from '../domain/invites.js';
import type { EmailInvite } from '../domain/email-invites.js';
import type { RealmHandle } from '../realm/realm-handle.js';
import type { Mailer } from '../mail/mailer.js';
import { invitationEmail } from '../mail/emails.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Zulip's `get_invitee_emails_set`: split on commas and newlines, `Name <addr>` → `addr`, stripped. */
export function inviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    out.add((named === null ? part : named[1]!).trim());
  }
  return [...out];
}

/** Queues the invitation mail of `invite` (after its record is durable). */
function mailInvite(mailer: Mailer, realm: RealmHandle, invite: EmailInvite): void {
  const inviter = realm.state.users.get(invite.invitedById);
  const settings = realm.state.settings;
  mailer.send(
    invitationEmail({
      to: invite.email,
      inviterName: inviter?.fullName ?? 'Someone',
      inviterEmail: inviter?.email ?? mailer.from,
      realmName: settings.name,
      realmUrl: realm.url,
      link: inviteLink(realm.url, invite.key),
      expiresAt: invite.expiresAt,
      customText: invite.welcomeMessageCustomText,
    }),
  );
}

/** The three endpoints, bound to the server's mailer. */
export function emailInviteEndpoints(mailer: Mailer) {
  /** `POST /invites` (`invite_users_backend`). */
  const sendInvites = defineEndpoint({
    auth: 'user',
    params: {
      invitee_emails: P.string({ required: true }),
      invite_expires_in_minutes: P.json(Type.Union([Type.Integer(), Type.Null()])),
      invite_as: P.int({ default: Role.member }),
      stream_ids: P.json(Type.Array(Type.Integer()), { required: true }),
      group_ids: P.json(Type.Array(Type.Integer()), { default: [] }),
      include_realm_default_subscriptions: P.bool({ default: false }),
      notify_referrer_on_join: P.bool({ default: true }),
      welcome_message_custom_text: P.string(),
    },
    handler: async ({ realm, user, params }) => {
      const expires = params.invite_expires_in_minutes as number | null | undefined;
      const result = await realm.execute({
        type: 'invite_users',
        actorId: user.id,
        emails: inviteeEmails(params.invitee_emails),
        expiresInMinutes: expires === undefined ? DEFAULT_INVITE_EXPIRES_IN_MINUTES : expires,
        invitedAs: params.invite_as,
        streamIds: params.stream_ids as number[],
        groupIds: params.group_ids as number[],
        includeRealmDefaultSubscriptions: params.include_realm_default_subscriptions,
        notifyReferrerOnJoin: params.notify_referrer_on_join,
        welcomeMessageCustomText: params.welcome_message_custom_text ?? null,
      });
      if (!result.ok) return result.error;
      for (const invite of result.value.invited) mailInvite(mailer, realm, invite);
      if (result.value.skipped.length > 0) {
        return Errors.invitationFailed(
          "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
          result.value.skipped,
          true,
        );
      }
      return {};
    },
  });

  /** `DELETE /invites/{invite_id}` (`revoke_user_invite`). */
  const revokeEmailInvite = defineEndpoint({
    auth: 'user',
    pathParams: { invite_id: 'int' },
    params: {},
    handler: async ({ realm, user, path }) => {
      const result = await realm.execute({ type: 'revoke_email_invite', actorId: user.id, inviteId: path.invite_id });
      return result.ok ? {} : result.error;
    },
  });

  /** `POST /invites/{invite_id}/resend` (`resend_user_invite_email`). */
  const resendEmailInvite = defineEndpoint({
    auth: 'user',
    pathParams: { invite_id: 'int' },
    params: {},
    handler: async ({ realm, user, path }) => {
      const result = await realm.execute({ type: 'resend_email_invite', actorId: user.id, inviteId: path.invite_id });
      if (!result.ok) return result.error;
      mailInvite(mailer, realm, result.value.invite);
      return { timestamp: result.value.timestamp };
    },
  });

  return { sendInvites, revokeEmailInvite, resendEmailInvite };
}
