/**
 * Subscription endpoints (https://zulip.com/api/subscribe and its siblings; Zulip's
 * zerver/views/streams.py):
 * - `POST /users/me/subscriptions`: subscribe self or `principals`, creating missing channels;
 * - `DELETE /users/me/subscriptions`: unsubscribe;
 * - `PATCH /users/me/subscriptions`: bulk `add` / `delete`;
 * - `POST /users/me/subscriptions/properties` and `PATCH /users/me/subscriptions/{stream_id}`:
 *   the user's own subscription settings;
 * - `GET /users/{user_id}/subscriptions/{stream_id}`: `{is_subscribed}`.
 * - `GET /users/me/subscriptions`: the user's subscriptions, sorted by channel name.
 * Writes go through the realm actor as
 * `update_subscriptions` / `set_subscription_properties` commands.
 */
import Type from 'typebox';
import { Errors, ZulipError } from '../errors.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { MAX_STREAM_DESCRIPTION_LENGTH } from '../domain/messages.js';
import { accessStreamById, accessUserById, isSubscribed } from '../domain/access.js';
import type { UpdateSubscriptions } from '../realm/commands.js';
import { subscriptionToWire } from '../events/wire/streams.js';
import { byName } from './streams.js';

/** One `subscriptions` / `add` entry: `{name, color?, description?}`, no other keys. */
const subscriptionEntry = Type.Object(
  {
    name: Type.String(),
    color: Type.Optional(Type.String()),
    description: Type.Optional(Type.String({ maxLength: MAX_STREAM_DESCRIPTION_LENGTH })),
  },
  { additionalProperties: false },
);
const subscriptionList = Type.Array(subscriptionEntry);
const principalList = Type.Union([Type.Array(Type.String()), Type.Array(Type.Integer())]);
const nameList = Type.Array(Type.String());
const propertyChange = Type.Object({
  stream_id: Type.Integer(),
  property: Type.String(),
  value: Type.Union([Type.String(), Type.Boolean()]),
});

const HEX_COLOR = /^#([a-fA-F0-9]{3,6})$/;

type Entry = { name: string; color?: string; description?: string };

/** Zulip's color check on each entry: `'<var>[i]["color"] is not a valid hex color code'`. */
function checkColors(entries: readonly Entry[], varName: string): ZulipError | undefined {
  for (const [i, e] of entries.entries()) {
    if (e.color !== undefined && !HEX_COLOR.test(e.color)) {
      return Errors.badRequest(`${varName}[${i}]["color"] is not a valid hex color code`);
    }
  }
  return undefined;
}

const addOptions = {
  principals: P.json(principalList),
  invite_only: P.bool({ default: false }),
  is_web_public: P.bool({ default: false }),
  is_default_stream: P.bool({ default: false }),
  history_public_to_subscribers: P.bool(),
  announce: P.bool({ default: false }),
  authorization_errors_fatal: P.bool({ default: true }),
};

type AddOptions = {
  principals?: Array<string | number> | undefined;
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean | undefined;
  authorization_errors_fatal: boolean;
  announce?: boolean;
};

function command(actorId: number, add: Entry[], remove: string[], p: AddOptions): UpdateSubscriptions {
  return {
    type: 'update_subscriptions',
    actorId,
    add,
    remove,
    ...(p.principals !== undefined && { principals: p.principals }),
    inviteOnly: p.invite_only,
    isWebPublic: p.is_web_public,
    ...(p.history_public_to_subscribers !== undefined && { historyPublicToSubscribers: p.history_public_to_subscribers }),
    isDefault: p.is_default_stream,
    authorizationErrorsFatal: p.authorization_errors_fatal,
    ...(p.announce === true && { announce: true }),
  };
}

/**
 * `GET /users/me/subscriptions`: the caller's subscriptions, by channel name (Zulip's
 * zerver/views/streams.py `list_subscriptions_backend`).
 */
export const getSubscriptions = defineEndpoint({
  auth: 'user',
  params: { include_subscribers: P.bool({ default: false }) },
  handler: ({ realm, user, params }) => {
    const state = realm.state;
    const streams = [...(state.userStreams.get(user.id) ?? [])].map((id) => state.streams.get(id)!).sort(byName);
    return {
      subscriptions: streams.map((s) =>
        subscriptionToWire(state, s, state.subscriptions.get(s.id)!.get(user.id)!, params.include_subscribers),
      ),
    };
  },
});

/** `POST /users/me/subscriptions` (Zulip's zerver/views/streams.py `add_subscriptions_backend`). */
export const subscribe = defineEndpoint({
  auth: 'user',
  params: { subscriptions: P.json(subscriptionList, { required: true }), ...addOptions },
  handler: async ({ realm, user, params }) => {
    const bad = checkColors(params.subscriptions, 'subscriptions');
    if (bad) return bad;
    return runCommand(realm, command(user.id, params.subscriptions, [], params), (reply) => ({ ...reply }));
  },
});

/** `DELETE /users/me/subscriptions` (Zulip's zerver/views/streams.py `remove_subscriptions_backend`). */
export const unsubscribe = defineEndpoint({
  auth: 'user',
  params: { subscriptions: P.json(nameList, { required: true }), principals: P.json(principalList) },
  handler: async ({ realm, user, params }) => {
    return runCommand(
      realm,
      command(user.id, [], params.subscriptions, {
        principals: params.principals,
        invite_only: false,
        is_web_public: false,
        is_default_stream: false,
        authorization_errors_fatal: true,
      }),
      (reply) => ({ ...reply }),
    );
  },
});

/**
 * `PATCH /users/me/subscriptions`: bulk add and remove (Zulip's zerver/views/streams.py
 * `update_subscriptions_backend`).
 */
export const updateSubscriptions = defineEndpoint({
  auth: 'user',
  params: { add: P.json(subscriptionList, { default: [] }), delete: P.json(nameList, { default: [] }), ...addOptions },
  handler: async ({ realm, user, params }) => {
    if (params.add.length === 0 && params.delete.length === 0) {
      return Errors.badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    }
    const bad = checkColors(params.add, 'add');
    if (bad) return bad;
    return runCommand(realm, command(user.id, params.add, params.delete, params), (reply) => ({
      subscribed: {},
      already_subscribed: {},
      removed: [],
      not_removed: [],
      ...reply,
    }));
  },
});

/**
 * `POST /users/me/subscriptions/properties` (Zulip's zerver/views/streams.py
 * `update_subscription_properties_backend`).
 */
export const updateSubscriptionSettings = defineEndpoint({
  auth: 'user',
  params: { subscription_data: P.json(Type.Array(propertyChange), { required: true }) },
  handler: async ({ realm, user, params }) => {
    return runCommand(realm, {
      type: 'set_subscription_properties',
      actorId: user.id,
      changes: params.subscription_data.map((c) => ({ streamId: c.stream_id, property: c.property, value: c.value })),
    });
  },
});

/**
 * `PATCH /users/me/subscriptions/{stream_id}` (Zulip's zerver/views/streams.py
 * `update_subscriptions_property`).
 */
export const updateSubscriptionSettingsOfStream = defineEndpoint({
  auth: 'user',
  pathParams: { stream_id: 'int' },
  params: { property: P.string({ required: true }), value: P.jsonOrString({ required: true }) },
  handler: async ({ realm, user, params, path }) => {
    return runCommand(realm, {
      type: 'set_subscription_properties',
      actorId: user.id,
      changes: [{ streamId: path.stream_id, property: params.property, value: params.value }],
    });
  },
});

/**
 * `GET /users/{user_id}/subscriptions/{stream_id}` (Zulip's zerver/views/users.py
 * `get_subscription_backend`).
 */
export const getSubscriptionStatus = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int', stream_id: 'int' },
  params: {},
  handler: ({ realm, user, path }) => {
    const state = realm.state;
    // Zulip's get_subscription_backend: access_user_by_id(for_admin=False), then the channel.
    const target = accessUserById(state, user, path.user_id, { forAdmin: false });
    if (!target.ok) return target.error;
    const access = accessStreamById(state, user, path.stream_id, { requireActive: false, requireContentAccess: false });
    return access.ok ? { is_subscribed: isSubscribed(state, target.value.id, access.value.stream.id) } : access.error;
  },
});
