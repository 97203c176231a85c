/**
 * User status endpoints (https://zulip.com/api/update-status; Zulip's zerver/views/presence.py),
 * Zulip's typed-endpoint dialect:
 * - `POST /users/me/status`: `away` (JSON bool, deprecated: `presence_enabled` = !away),
 *   `status_text` (stripped; ≤ 60 characters; '' clears), `emoji_name` ('' clears the emoji),
 *   `emoji_code`, `reaction_type`. Human users only.
 * - `POST /users/{user_id}/status` (FL 407): the same without `away`, administrators only.
 * - `GET /users/{user_id}/status` (FL 262): `{status: {...}}` with the register's per-user form
 *   (falsy keys omitted; `{}` for the default status); "No such user" for an unknown or
 *   deactivated user.
 * The rules and error messages are in `realm/handlers/user-status.ts`.
 */
import { userStatusOf, userStatusWire } from '../domain/user-status.js';
import { accessUserById } from '../domain/access.js';
import type { UpdateUserStatus } from '../realm/commands.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

const statusParams = {
  status_text: P.string(),
  emoji_name: P.string(),
  emoji_code: P.string(),
  reaction_type: P.string(),
};

interface StatusParams {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

/** The command for the decoded parameters (undefined = not passed). */
function command(actorId: number, targetId: number, params: StatusParams): UpdateUserStatus {
  return {
    type: 'update_user_status',
    actorId,
    targetId,
    ...(params.away !== undefined && { away: params.away }),
    ...(params.status_text !== undefined && { statusText: params.status_text.trim() }),
    ...(params.emoji_name !== undefined && { emojiName: params.emoji_name }),
    ...(params.emoji_code !== undefined && { emojiCode: params.emoji_code }),
    ...(params.reaction_type !== undefined && { reactionType: params.reaction_type }),
  };
}


/** `POST /users/me/status` (Zulip's zerver/views/presence.py `update_user_status_backend`). */
export const updateStatus = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { ...statusParams, away: P.bool() },
  handler: async ({ realm, user, params }) => runCommand(realm, command(user.id, user.id, params)),
});

/**
 * `POST /users/{user_id}/status`: an administrator sets another user's status (Zulip's
 * zerver/views/presence.py `update_user_status_admin`).
 */
export const updateUserStatus = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int' },
  dialect: 'typed',
  params: statusParams,
  handler: async ({ realm, user, params, path }) => runCommand(realm, command(user.id, path.user_id, params)),
});

/** `GET /users/{user_id}/status` (Zulip's zerver/views/presence.py `get_status_backend`). */
export const getUserStatus = defineEndpoint({
  auth: 'user',
  pathParams: { user_id: 'int' },
  dialect: 'typed',
  params: {},
  handler: ({ realm, user, path }) => {
    const state = realm.state;
    // Zulip's get_status_backend: access_user_by_id(for_admin=False), no bots, no deactivated users.
    const target = accessUserById(state, user, path.user_id, { forAdmin: false });
    if (!target.ok) return target.error;
    return { status: userStatusWire(userStatusOf(state, target.value.id)) };
  },
});
