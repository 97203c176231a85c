/**
 * `create_user`: a new account or bot (https://zulip.com/api/create-user). Validation of the email and
 * name happens here so that the CLI, the demo and `POST /users` share it.
 */
import { ok, fail, Errors } from '../../errors.js';
import { checkFullName, isValidEmail } from '../../domain/users.js';
import type { CreateUser, CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';
import { defaultStreamSubscriptions } from './subscriptions.js';

/** Length of API keys (https://zulip.com/api/http-headers). */
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
  // New humans join the realm's default channels (https://zulip.com/api/create-user).
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
