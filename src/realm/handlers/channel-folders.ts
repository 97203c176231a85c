/**
 * Channel folder commands (Zulip FL 389–414: `zerver/views/channel_folders.py`,
 * `zerver/actions/channel_folders.py`, `zerver/lib/channel_folders.py`). Administrators only
 * (Zulip's `@require_realm_admin`; parley answers non-administrators with the seed's BAD_REQUEST
 * "Insufficient permission", as its other administrator-only endpoints). Every success notifies
 * all active users of the realm.
 *
 * Checks, in Zulip's order (administrator, then parameter validation in declaration order, then
 * the view's checks):
 * - create: description longer than 1024 code points → "description is too long (limit: 1024
 *   characters)"; name longer than 60 → "name is too long (limit: 60 characters)"; then the name
 *   rules of `channelFolderNameError` ("Channel folder name can't be empty.", "Invalid character in
 *   channel folder name, at position N.", "Channel folder name already in use"). Reply: the new id.
 * - update: the same length checks; an unknown id → "Invalid channel folder ID"; a `name` that
 *   differs from the current one → the name rules (so a case-only rename is "already in use", as in
 *   Zulip); archiving a folder that still holds a channel (archived channels included) → "You need
 *   to remove all the channels from this folder to archive it.". Unchanged values are skipped.
 *   Unlike Zulip (one transaction per property), nothing is applied when any check fails.
 * - reorder: every folder of the realm (archived ones included) must appear in `order`, else
 *   "Invalid order mapping."; unknown or repeated ids are accepted, as in Zulip.
 *
 * Events: `{type: "channel_folder", op: "add", channel_folder: <folder>}`;
 * `{…, op: "update", channel_folder_id, data}`, one per changed property in the order name,
 * description (`data: {description, rendered_description}`), is_archived;
 * `{…, op: "reorder", order: [ids as sent]}`.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { requireRealmAdmin } from '../../domain/access.js';
import {
  MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
  MAX_CHANNEL_FOLDER_NAME_LENGTH,
  channelFolderInUse,
  channelFolderNameError,
  channelFolderWire,
  channelFoldersOf,
  findChannelFolder,
  tooLongError,
  type ChannelFolder,
  type ChannelFolderUpdated,
} from '../../domain/channel-folders.js';
import { renderMarkdown } from '../../markdown/render.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import type { Handler } from '../decision.js';

/** `POST /channel_folders/create`. */
export interface CreateChannelFolder {
  type: 'create_channel_folder';
  actorId: number;
  name: string;
  description: string;
}

/** `PATCH /channel_folders/{channel_folder_id}`: keys left undefined were not passed. */
export interface UpdateChannelFolder {
  type: 'update_channel_folder';
  actorId: number;
  folderId: number;
  name?: string;
  description?: string;
  isArchived?: boolean;
}

/** `PATCH /channel_folders`: folder ids in the new display order. */
export interface ReorderChannelFolders {
  type: 'reorder_channel_folders';
  actorId: number;
  order: number[];
}

export type ChannelFolderCommand = CreateChannelFolder | UpdateChannelFolder | ReorderChannelFolders;

/** Replies of the channel folder commands (merged into `CommandReplies`). */
export interface ChannelFolderReplies {
  create_channel_folder: { channel_folder_id: number };
  update_channel_folder: Record<string, never>;
  reorder_channel_folders: Record<string, never>;
}

/** Zulip's error strings, byte for byte. */
export const ChannelFolderErrors = {
  invalidId: () => Errors.badRequest('Invalid channel folder ID'),
  inUse: () => Errors.badRequest('You need to remove all the channels from this folder to archive it.'),
  invalidOrder: () => Errors.badRequest('Invalid order mapping.'),
} as const;

/** The acting administrator, or the error (the project's `Insufficient permission` for non-administrators). */
const admin = (state: RealmState, actorId: number): Result<User> => requireRealmAdmin(state.users.get(actorId), Errors.insufficientPermission);

/** Parameter length checks in Zulip's declaration order (description before name). */
function lengthError(description: string | undefined, name: string | undefined): string | null {
  return (
    (description === undefined ? null : tooLongError('description', description, MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH)) ??
    (name === undefined ? null : tooLongError('name', name, MAX_CHANNEL_FOLDER_NAME_LENGTH))
  );
}

/** Zulip's `render_channel_folder_description` ('' stays ''). */
const render = (description: string) => (description === '' ? '' : renderMarkdown(description));

const everyone = (state: RealmState) => [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);

export const createChannelFolder: Handler<CreateChannelFolder, ChannelFolderReplies['create_channel_folder']> = (state, cmd, ctx) => {
  const actor = admin(state, cmd.actorId);
  if (!actor.ok) return actor;
  const tooLong = lengthError(cmd.description, cmd.name);
  if (tooLong !== null) return fail(Errors.badRequest(tooLong));
  const nameError = channelFolderNameError(state, cmd.name);
  if (nameError !== null) return fail(Errors.badRequest(nameError));

  const id = channelFoldersOf(state).nextId;
  const folder: ChannelFolder = {
    id,
    name: cmd.name,
    description: cmd.description,
    renderedDescription: render(cmd.description),
    creatorId: actor.value.id,
    dateCreated: Math.floor(ctx.now()),
    isArchived: false,
    order: id,
  };
  const payload: EventPayloadOf<'channel_folder'> = { type: 'channel_folder', op: 'add', channel_folder: channelFolderWire(folder) };
  return ok({
    records: [{ type: 'channel_folder_created', v: 1, folder }],
    events: [{ userIds: everyone(state), payload }],
    reply: { channel_folder_id: id },
  });
};

export const updateChannelFolder: Handler<UpdateChannelFolder, Record<string, never>> = (state, cmd) => {
  const actor = admin(state, cmd.actorId);
  if (!actor.ok) return actor;
  const tooLong = lengthError(cmd.description, cmd.name);
  if (tooLong !== null) return fail(Errors.badRequest(tooLong));
  const folder = findChannelFolder(state, cmd.folderId);
  if (folder === undefined) return fail(ChannelFolderErrors.invalidId());

  const record: ChannelFolderUpdated = { type: 'channel_folder_updated', v: 1, folderId: folder.id };
  const changes: Array<Extract<EventPayloadOf<'channel_folder'>, { op: 'update' }>['data']> = [];
  if (cmd.name !== undefined && cmd.name !== folder.name) {
    const nameError = channelFolderNameError(state, cmd.name);
    if (nameError !== null) return fail(Errors.badRequest(nameError));
    record.name = cmd.name;
    changes.push({ name: cmd.name });
  }
  if (cmd.description !== undefined && cmd.description !== folder.description) {
    record.description = cmd.description;
    record.renderedDescription = render(cmd.description);
    changes.push({ description: record.description, rendered_description: record.renderedDescription });
  }
  if (cmd.isArchived !== undefined && cmd.isArchived !== folder.isArchived) {
    if (cmd.isArchived && channelFolderInUse(state, folder.id)) return fail(ChannelFolderErrors.inUse());
    record.isArchived = cmd.isArchived;
    changes.push({ is_archived: cmd.isArchived });
  }
  if (changes.length === 0) return ok({ records: [], events: [], reply: {} });

  const userIds = everyone(state);
  const events: RealmEvent[] = changes.map((data) => ({
    userIds,
    payload: { type: 'channel_folder', op: 'update', channel_folder_id: folder.id, data },
  }));
  return ok({ records: [record], events, reply: {} });
};

export const reorderChannelFolders: Handler<ReorderChannelFolders, Record<string, never>> = (state, cmd) => {
  const actor = admin(state, cmd.actorId);
  if (!actor.ok) return actor;
  const listed = new Set(cmd.order);
  for (const id of channelFoldersOf(state).folders.keys()) if (!listed.has(id)) return fail(ChannelFolderErrors.invalidOrder());
  return ok({
    records: [{ type: 'channel_folders_reordered', v: 1, order: [...cmd.order] }],
    events: [{ userIds: everyone(state), payload: { type: 'channel_folder', op: 'reorder', order: [...cmd.order] } }],
    reply: {},
  });
};
