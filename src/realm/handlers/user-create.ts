/**
 * New accounts: `admin_create_user` (`POST /users`, zulip-behavior.md §11.6) and `add_bot`
 * (`POST /bots`, Zulip's zerver/views/users.py `create_user_backend`, `add_bot_backend`).
 * Both build on `create_user` (`users.ts`) and announce the account with `newUserEvents`.
 */
import type { Static } from 'typebox';
import type { BotSchema } from '../../events/register/schemas.js';
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Role, type RealmState, type User } from '../../domain/realm-state.js';
import { apiEmail, checkFullName, gravatarUrl, isValidEmail } from '../../domain/users.js';
import { emailAllowedForRealm } from '../../domain/realm-domains.js';
import type { UserCreated } from '../../domain/records.js';
import type { Handler } from '../decision.js';
import { createUser } from './users.js';
import { botWatchers, newUserEvents, userFromRecord } from './user-events.js';
import { hasRealmPermission, isRealmAdmin, requireNonGuest } from '../../domain/access.js';

/**
 * `POST /users`: a new member account created by an organization owner (parley's stand-in for
 * Zulip's administrator + `can_create_users`). The endpoint has checked the password's strength and
 * hashed it.
 */
export interface AdminCreateUser {
  type: 'admin_create_user';
  actorId: number;
  email: string;
  fullName: string;
  passwordHash: string;
}

/** `POST /bots`: a bot owned by the caller (parley creates generic bots, `bot_type` 1). */
export interface AddBot {
  type: 'add_bot';
  actorId: number;
  fullName: string;
  shortName: string;
  botType: number;
}

export type UserCreateCommand = AdminCreateUser | AddBot;

/** Replies of the commands above. */
export interface UserCreateReplies {
  admin_create_user: { userId: number };
  add_bot: { userId: number; apiKey: string; avatarUrl: string };
}

const bad = Errors.badRequest;

/**
 * Permission for `POST /users` (Zulip's zerver/views/users.py `create_user_backend`): administrators
 * only (`require_realm_admin`: UNAUTHORIZED_PRINCIPAL "Must be an organization administrator"; the
 * seed's BAD_REQUEST list, §5.3, does not name this endpoint), then Zulip's server-granted
 * `can_create_users`, which parley treats as held by organization owners (BAD_REQUEST "User not
 * authorized to create users" for other administrators).
 */
export function checkCanCreateUsers(actor: User | undefined): Result<User> {
  // Zulip's require_realm_admin on POST /users (zerver/views/users.py create_user_backend).
  if (actor === undefined || !actor.isActive || !isRealmAdmin(actor)) return fail(Errors.mustBeAdmin());
  if (actor.role !== Role.owner) return fail(bad('User not authorized to create users'));
  return ok(actor);
}

/**
 * The account validations of `POST /users` that precede the password check, in Zulip's order:
 * name (§11.1), "Bad name or username", the realm's email domains (`email_allowed_for_realm`:
 * "Email '<email>' not allowed in this organization"), "Email '<email>' already in use". Parley has
 * no disposable-address or `+` restrictions, so their errors never occur.
 */
export function checkNewAccount(state: RealmState, email: string, fullName: string): Result<void> {
  const name = checkFullName(fullName);
  if (!name.ok) return fail(bad(name.msg));
  const lower = email.trim().toLowerCase();
  if (!isValidEmail(lower)) return fail(bad('Bad name or username'));
  if (!emailAllowedForRealm(state, lower)) return fail(bad(`Email '${email}' not allowed in this organization`));
  if (state.usersByEmail.has(lower)) return fail(bad(`Email '${email}' already in use`));
  return ok(undefined);
}

export const adminCreateUser: Handler<AdminCreateUser, UserCreateReplies['admin_create_user']> = (state, cmd, ctx) => {
  const actor = checkCanCreateUsers(state.users.get(cmd.actorId));
  if (!actor.ok) return actor;
  const checked = checkNewAccount(state, cmd.email, cmd.fullName);
  if (!checked.ok) return checked;
  const created = createUser(state, {
    type: 'create_user', email: cmd.email, fullName: cmd.fullName, role: Role.member, passwordHash: cmd.passwordHash,
    isBot: false, botType: null, botOwnerId: null, timezone: '',
  }, ctx);
  if (!created.ok) return created;
  const record = created.value.records[0] as UserCreated;
  return ok({
    records: created.value.records,
    events: [...newUserEvents(state, record), ...created.value.events],
    reply: { userId: created.value.reply.userId },
  });
};

/** Bot types `POST /bots` creates: generic (1). Incoming/outgoing webhook and embedded bots are not supported. */
const BOT_TYPES: readonly number[] = [1];

/** A bot as `realm_bots` and `realm_bot` events show it (matches `realmBots` in register). */
function botToWire(state: RealmState, bot: User): Static<typeof BotSchema> {
  return {
    email: apiEmail(bot, state.host), user_id: bot.id, full_name: bot.fullName, bot_type: bot.botType, is_active: bot.isActive,
    api_key: bot.apiKey, default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false,
    owner_id: bot.botOwnerId, avatar_url: gravatarUrl(bot.email, bot.avatarVersion), services: [],
  };
}

/**
 * `POST /bots` (Zulip's `add_bot_backend`), checks in Zulip's order: guests ("Not allowed for guest
 * users"), the name (§11.1), the email `<short_name>-bot@<realm host>` ("Bad name or username",
 * "Username already in use"), an active user with the same name ("Name is already in use!"), the
 * realm's `can_create_bots_group` ("Insufficient permission"), the bot type ("Invalid bot type").
 * Events: `realm_user` `add` and system-group `add_members` (as for any new user), then
 * `realm_bot` `add` to administrators and the owner.
 */
export const addBot: Handler<AddBot, UserCreateReplies['add_bot']> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.insufficientPermission());
  const nonGuest = requireNonGuest(actor);
  if (!nonGuest.ok) return nonGuest;
  const name = checkFullName(cmd.fullName);
  if (!name.ok) return fail(bad(name.msg));
  const email = `${cmd.shortName.trim()}-bot@${state.host}`.toLowerCase();
  if (!isValidEmail(email)) return fail(bad('Bad name or username'));
  if (state.usersByEmail.has(email)) return fail(bad('Username already in use'));
  for (const u of state.users.values()) if (u.isActive && u.fullName === name.name) return fail(bad('Name is already in use!'));
  if (!hasRealmPermission(state, actor, 'can_create_bots_group')) return fail(Errors.insufficientPermission());
  if (!BOT_TYPES.includes(cmd.botType)) return fail(bad('Invalid bot type'));
  const created = createUser(state, {
    type: 'create_user', email, fullName: name.name, role: Role.member, passwordHash: null,
    isBot: true, botType: cmd.botType, botOwnerId: actor.id, timezone: '',
  }, ctx);
  if (!created.ok) return created;
  const record = created.value.records[0] as UserCreated;
  const bot = userFromRecord(state, record);
  return ok({
    records: created.value.records,
    events: [
      ...newUserEvents(state, record),
      ...created.value.events,
      { userIds: botWatchers(state, bot), payload: { type: 'realm_bot', op: 'add', bot: botToWire(state, bot) } },
    ],
    reply: { userId: bot.id, apiKey: bot.apiKey, avatarUrl: gravatarUrl(bot.email, bot.avatarVersion) },
  });
};
