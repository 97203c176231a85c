/**
 * People in `POST /register`: the `realm_user` fetch type (`realm_users`, `realm_non_active_users`,
 * `cross_realm_bots` and the current user's own keys) and `realm_bot` (`realm_bots`).
 *
 * Zulip builds the user list with `get_users_for_api` (custom profile fields included for
 * logged-in users) and then, in `post_process_state`, splits it by `is_active` and drops the
 * `is_active` key; lists are sorted by user id. The current user's `avatar_url` is always
 * computed (client_gravatar forced off, Zulip #8253).
 */
import { isSystemBot } from '../../domain/system-bots.js';
import { botToWire, type BotObject } from '../wire/bots.js';
import { Role, type RealmState, type User } from '../../domain/realm-state.js';
import { apiEmail, avatarUrl, avatarUrlMedium } from '../../domain/users.js';
import { avatarSource } from '../../domain/avatars.js';
import { userToWire } from '../wire/users.js';
import { hasRealmPermission } from '../../domain/access.js';

/** `realm_users`, `realm_non_active_users`, `cross_realm_bots` and the own-user keys. */
export function realmUserSection(state: RealmState, me: User, clientGravatar: boolean): Record<string, unknown> {
  const active: Record<string, unknown>[] = [];
  const inactive: Record<string, unknown>[] = [];
  const view = { clientGravatar, includeCustomProfileFields: true };
  const crossRealmBots: Record<string, unknown>[] = [];
  const users = [...state.users.values()].sort((a, b) => a.id - b.id);
  for (const target of users) {
    // The register lists carry no `is_active` (the list itself says it).
    const { is_active: _isActive, ...wire } = userToWire(state, me, target, view);
    if (isSystemBot(target)) crossRealmBots.push({ ...wire, is_system_bot: true });
    else (target.isActive ? active : inactive).push(wire);
  }
  const can = (name: string) => hasRealmPermission(state, me, name);
  const canCreatePrivate = can('can_create_private_channel_group');
  const canCreatePublic = can('can_create_public_channel_group');
  const canCreateWebPublic = can('can_create_web_public_channel_group');
  return {
    realm_users: active,
    realm_non_active_users: inactive,
    // System bots (Notification Bot, Welcome Bot) are Zulip's cross-realm bots (domain/system-bots.ts).
    cross_realm_bots: crossRealmBots,
    avatar_source: avatarSource(me),
    avatar_url_medium: avatarUrlMedium(me),
    avatar_url: avatarUrl(me, false)!,
    can_create_private_streams: canCreatePrivate,
    can_create_public_streams: canCreatePublic,
    can_create_web_public_streams: canCreateWebPublic,
    can_create_streams: canCreatePrivate || canCreatePublic || canCreateWebPublic,
    can_invite_others_to_realm: can('can_invite_users_group'),
    is_admin: me.role <= Role.admin,
    is_owner: me.role === Role.owner,
    // Since FL 380: moderators and above.
    is_moderator: me.role <= Role.moderator,
    is_guest: me.role === Role.guest,
    user_id: me.id,
    email: apiEmail(me, state.host),
    delivery_email: me.email,
    full_name: me.fullName,
  };
}

/**
 * `realm_bots` (`get_owned_bot_dicts`): all bots of the realm for administrators, else the bots
 * the user owns; deactivated bots included (`is_active` false). Shape at FL 417:
 * `{email, user_id, full_name, bot_type, is_active, api_key, default_sending_stream,
 * default_events_register_stream, default_all_public_streams, owner_id, avatar_url, services}`.
 */
export function realmBots(state: RealmState, me: User): BotObject[] {
  const isAdmin = me.role <= Role.admin;
  return [...state.users.values()]
    .filter((u) => u.isBot && !isSystemBot(u) && (isAdmin || u.botOwnerId === me.id))
    .sort((a, b) => a.id - b.id)
    .map((bot) => botToWire(state, bot));
}
