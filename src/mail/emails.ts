/**
 * The mails parley sends, as plain text (Zulip's templates/zerver/emails/*.txt, the plain-text
 * part of each mail): invitation (`invitation`), password reset (`password_reset`) and
 * missed-message notifications (`missed_message`). Each builder takes plain values and returns
 * an `OutgoingEmail`; callers pass URLs derived from the realm's configured URL.
 */
import type { OutgoingEmail } from './mailer.js';

/** What the invitation mail says (zerver/actions/invites.py `do_send_user_invite_email`). */
export interface InvitationEmail {
  to: string;
  inviterName: string;
  inviterEmail: string;
  realmName: string;
  realmUrl: string;
  /** The sign-up link (`<realm url>/join/<key>/`). */
  link: string;
  /** UNIX seconds, or null = never expires. */
  expiresAt: number | null;
  /** The organization's custom welcome text, shown under the invitation; null/'' = none. */
  customText: string | null;
}

/** Zulip's `templates/zerver/emails/invitation.*`. */
export function invitationEmail(m: InvitationEmail): OutgoingEmail {
  const expiry = m.expiresAt === null ? '' : `\nThis invitation expires on ${new Date(m.expiresAt * 1000).toUTCString()}.\n`;
  const custom = m.customText === null || m.customText === '' ? '' : `\nMessage from ${m.inviterName}:\n${m.customText}\n`;
  return {
    kind: 'invitation',
    to: [m.to],
    subject: `${m.inviterName} invited you to join ${m.realmName}`,
    text:
      `Hi there,\n\n${m.inviterName} (${m.inviterEmail}) wants you to join them on Zulip — a team chat app ` +
      `that ${m.realmName} uses at ${m.realmUrl}.\n${custom}\nTo get started, visit the link below:\n    ${m.link}\n${expiry}\n` +
      `Do you have questions or feedback? Reply to ${m.inviterEmail}.\n`,
  };
}

/** What the password reset mail says (zerver/forms.py `ZulipPasswordResetForm.save`). */
export interface PasswordResetEmail {
  to: string;
  realmName: string;
  realmUrl: string;
  /** The reset link, or null when no active account has this address (the mail says so). */
  link: string | null;
  /** Hours the link is valid. */
  validHours: number;
}

/** Zulip's `templates/zerver/emails/password_reset.*`. */
export function passwordResetEmail(m: PasswordResetEmail): OutgoingEmail {
  const text =
    m.link === null
      ? `Someone (possibly you) requested a password reset email for ${m.to} on ${m.realmUrl}, but you do not have an active account in ${m.realmUrl}.\n\n` +
        `If you did not request a password reset, you can safely ignore this email.\n`
      : `Psst. Word on the street is that you need a new password, ${m.to}.\n\n` +
        `It's all good. Follow the link below and we'll take care of the rest:\n    ${m.link}\n\n` +
        `This link will expire in ${m.validHours} hours and can be used only once.\n\n` +
        `If you did not request a password reset, you can safely ignore this email: your password has not changed.\n`;
  return { kind: 'password_reset', to: [m.to], subject: `Zulip password reset`, text };
}

/** One message quoted in a missed-message mail. */
export interface MissedMessageLine {
  senderName: string;
  /** The message's Markdown, or null when content may not be included (the mail says so). */
  content: string | null;
}

/** What a missed-message mail says (zerver/lib/email_notifications.py `do_send_missedmessage_events_reply_in_zulip`). */
export interface MissedMessageEmail {
  to: string;
  realmName: string;
  realmUrl: string;
  /** Header line: `#channel > topic`, `You and Alice` or `You and Alice, Bob`. */
  narrowTitle: string;
  /** Subject per Zulip: `#channel > topic`, `DMs with Alice`, `Group DMs with Alice and Bob`. */
  subject: string;
  /** Link to the conversation in the web app. */
  link: string;
  messages: MissedMessageLine[];
  /** Why the mail was sent, e.g. `mentioned you`, `sent you a direct message`. */
  reason: string;
  /** Settings page (to turn these mails off). */
  settingsUrl: string;
}

/** Zulip's `templates/zerver/emails/missed_message.*`. */
export function missedMessageEmail(m: MissedMessageEmail): OutgoingEmail {
  const lines = m.messages.map((msg) =>
    msg.content === null ? `${msg.senderName}: (This email does not include message content because you have disabled message content in email notifications.)` : `${msg.senderName}:\n${msg.content}`,
  );
  return {
    kind: 'missed_message',
    to: [m.to],
    subject: m.subject,
    text:
      `${m.narrowTitle}\n\n${lines.join('\n\n')}\n\n--\n` +
      `You are receiving this because someone ${m.reason} in ${m.realmName} (${m.realmUrl}).\n` +
      `View or reply in Zulip: ${m.link}\n` +
      `Manage email preferences: ${m.settingsUrl}\n`,
  };
}
