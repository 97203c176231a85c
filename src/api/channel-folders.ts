/**
 * Channel folder endpoints (Zulip FL 389–414, `zerver/views/channel_folders.py`), Zulip's typed
 * dialect:
 * - `POST /channel_folders/create` (admin): `name`, `description` (both required strings) →
 *   `{channel_folder_id}`;
 * - `GET /channel_folders` (any user): `include_archived` (JSON bool, default false) →
 *   `{channel_folders: [{id, name, description, rendered_description, creator_id, date_created,
 *   is_archived, order}, ...]}` sorted by `order`;
 * - `PATCH /channel_folders/{channel_folder_id}` (admin): `description`, `is_archived` (JSON bool),
 *   `name`, all optional;
 * - `PATCH /channel_folders` (admin): `order`, a JSON list of folder ids (required).
 *
 * As Zulip's `@require_realm_admin`, the administrator check comes before the parameter checks, so
 * required parameters are declared optional and their absence reported here (in Zulip's
 * declaration order: `description` before `name`). JSON-typed parameters (`is_archived`, `order`)
 * are decoded before the handler runs, so their type errors precede the administrator check.
 * The rules and the other error strings are in `realm/handlers/channel-folders.ts`.
 */
import Type from 'typebox';
import { Errors, type ZulipError } from '../errors.js';
import type { User } from '../domain/realm-state.js';
import { requireRealmAdmin } from '../domain/access.js';
import { channelFoldersWire } from '../domain/channel-folders.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Zulip's `require_realm_admin`, with the project's answer for non-administrators. */
const notAdmin = (user: User | null | undefined): ZulipError | null => {
  const admin = requireRealmAdmin(user, Errors.insufficientPermission);
  return admin.ok ? null : admin.error;
};

/** `GET /channel_folders` (Zulip's zerver/views/channel_folders.py `get_channel_folders`). */
export const getChannelFolders = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { include_archived: P.bool({ default: false }) },
  handler: ({ realm, params }) => ({ channel_folders: channelFoldersWire(realm.state, params.include_archived) }),
});

/** `POST /channel_folders/create` (Zulip's zerver/views/channel_folders.py `create_channel_folder`). */
export const createChannelFolder = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { description: P.string(), name: P.string() },
  handler: async ({ realm, user, params }) => {
    const denied = notAdmin(user);
    if (denied) return denied;
    if (params.description === undefined) return Errors.missingArgument('description');
    if (params.name === undefined) return Errors.missingArgument('name');
    return runCommand(
      realm,
      { type: 'create_channel_folder', actorId: user.id, name: params.name, description: params.description },
      (reply) => ({ channel_folder_id: reply.channel_folder_id }),
    );
  },
});

/**
 * `PATCH /channel_folders/{channel_folder_id}` (Zulip's zerver/views/channel_folders.py
 * `update_channel_folder`).
 */
export const updateChannelFolder = defineEndpoint({
  auth: 'user',
  pathParams: { channel_folder_id: 'int' },
  dialect: 'typed',
  params: { description: P.string(), is_archived: P.bool(), name: P.string() },
  handler: async ({ realm, user, path, params }) => {
    const denied = notAdmin(user);
    if (denied) return denied;
    return runCommand(realm, {
      type: 'update_channel_folder',
      actorId: user.id,
      folderId: path.channel_folder_id,
      ...(params.description !== undefined && { description: params.description }),
      ...(params.is_archived !== undefined && { isArchived: params.is_archived }),
      ...(params.name !== undefined && { name: params.name }),
    });
  },
});

/** `PATCH /channel_folders` (Zulip's zerver/views/channel_folders.py `reorder_realm_channel_folders`). */
export const reorderChannelFolders = defineEndpoint({
  auth: 'user',
  dialect: 'typed',
  params: { order: P.json(Type.Array(Type.Integer())) },
  handler: async ({ realm, user, params }) => {
    const denied = notAdmin(user);
    if (denied) return denied;
    if (params.order === undefined) return Errors.missingArgument('order');
    return runCommand(realm, { type: 'reorder_channel_folders', actorId: user.id, order: params.order });
  },
});
