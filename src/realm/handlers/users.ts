/**
 * `create_user`: a new account or bot (zulip-behavior.md §11.6). Validation of the email and
 * name happens here so that the CLI, the demo and `POST /users` share it.
 */
import { ok, fail, Errors } from '../../errors.js';
import { checkFullName, isValidEmail } from '../../domain/users.js';
import type { RoleCode } from '../../domain/realm-state.js';
import type { CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';
import { defaultStreamSubscriptions } from './subscriptions.js';

/** A new account or bot (`POST /users`, `POST /bots`, the CLI and the demo organization). */
export interface CreateUser {
  type: 'create_user';
  email: string;
  fullName: string;
  role: RoleCode;
  /** argon2id hash computed by the caller (off the actor's critical path), or null. */
  passwordHash: string | null;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  timezone: string;
}

/** Length of API keys (zulip-behavior.md §0.4). */
export const API_KEY_LENGTH = 32;

export const createUser: Handler<CreateUser, CommandReplies['create_user']> = (state, cmd, ctx) => {
  const name = checkFullName(cmd.fullName);
  if (!name.ok) return fail(Errors.badRequest(name.msg));
  const email = cmd.email.trim().toLowerCase();
  if (!isValidEmail(email)) return fail(Errors.badRequest('Bad name or username'));
  if (state.usersByEmail.has(email)) return fail(Errors.badRequest(`Email '${cmd.email}' already in use`));
  if (cmd.botOwnerId !== null && !state.users.has(cmd.botOwnerId)) return fail(Errors.noSuchUser());
  const id = state.nextIds.user;
  let apiKey = ctx.randomToken(API_KEY_LENGTH);
  while (state.usersByApiKey.has(apiKey)) apiKey = ctx.randomToken(API_KEY_LENGTH);
  // New humans join the realm's default channels (zulip-behavior.md §11.6).
  const defaults = defaultStreamSubscriptions(state, { id, isBot: cmd.isBot });
  return ok({
    records: [
      {
        type: 'user_created',
        v: 1,
        id,
        email,
        fullName: name.name,
        role: cmd.role,
        isBot: cmd.isBot,
        botType: cmd.botType,
        botOwnerId: cmd.botOwnerId,
        dateJoined: ctx.now(),
        timezone: cmd.timezone,
        apiKey,
        passwordHash: cmd.passwordHash,
      },
      ...defaults.records,
    ],
    events: defaults.events,
    reply: { userId: id, apiKey },
  });
};
