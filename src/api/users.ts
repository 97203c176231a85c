/**
 * User reads: `GET /users/me` (https://zulip.com/api/get-own-user), `GET /users`
 * (https://zulip.com/api/get-users), `GET /users/{user_id}` (https://zulip.com/api/get-user)
 * and `GET /users/{email}` (https://zulip.com/api/get-own-user, https://zulip.com/api/get-users,
 * https://zulip.com/api/get-user).
 */
import { isSystemBot } from '../domain/system-bots.js';
import Type from 'typebox';
import { Errors } from '../errors.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { findUserByEmail, userToWire } from '../domain/users.js';
import type { RealmState, User } from '../domain/realm-state.js';

const listParams = {
  client_gravatar: P.bool({ default: true }),
  include_custom_profile_fields: P.bool({ default: false }),
};

function oneUser(state: RealmState, viewer: User, target: User | undefined, params: { client_gravatar: boolean; include_custom_profile_fields: boolean }) {
  if (target === undefined) return Errors.noSuchUser();
  return {
    user: userToWire(state, viewer, target, {
      clientGravatar: params.client_gravatar,
      includeCustomProfileFields: params.include_custom_profile_fields,
    }),
  };
}

export const userEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/users/me',
    auth: 'user',
    params: {},
    handler: ({ realm, user }) => {
      const state = realm!.state;
      const wire = userToWire(state, user!, user!, { clientGravatar: false, includeCustomProfileFields: !user!.isBot });
      return { ...wire, max_message_id: state.messages.users.get(user!.id)?.maxId() ?? -1 };
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/users',
    auth: 'user',
    params: { ...listParams, user_ids: P.json(Type.Array(Type.Integer())) },
    handler: ({ realm, user, params }) => {
      const state = realm!.state;
      const view = { clientGravatar: params.client_gravatar, includeCustomProfileFields: params.include_custom_profile_fields };
      const targets =
        params.user_ids === undefined
          ? [...state.users.values()].filter((u) => !isSystemBot(u))
          : params.user_ids.map((id) => state.users.get(id)).filter((u): u is User => u !== undefined);
      return { members: targets.map((target) => userToWire(state, user!, target, view)) };
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/users/{user_id}',
    auth: 'user',
    params: listParams,
    handler: ({ realm, user, params, path }) => oneUser(realm!.state, user!, realm!.state.users.get(path.user_id!), params),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/users/{email:string}',
    auth: 'user',
    params: listParams,
    handler: ({ realm, user, params, stringPath }) =>
      oneUser(realm!.state, user!, findUserByEmail(realm!.state, stringPath.email!), params),
  }),
];
