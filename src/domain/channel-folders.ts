/**
 * Channel folders (https://zulip.com/api/update-stream `folder_id`; Zulip FL 389–414,
 * `zerver/models/channel_folders.py`,
 * `zerver/lib/channel_folders.py`, `zerver/actions/channel_folders.py`): realm-wide, administrator-managed
 * groups of channels shown as sections of the web app's left sidebar. A channel belongs to at most
 * one folder (`Stream.folderId`).
 *
 * State shape: `RealmState.channelFolders` = `{folders: id → folder, nextId}`. Ids are per realm,
 * from 1, never reused (folders are archived, not deleted). The field is optional: states built by
 * hand and snapshots written before channel folders lack it (= no folders).
 *
 * Ordering (FL 414): a new folder's `order` is its id (as Zulip's `check_add_channel_folder`);
 * `PATCH /channel_folders` then sets `order` to each id's index in the given list (the LAST index
 * when an id is repeated, as Python's `{id: i for i, id in enumerate(order)}`). Lists are sorted by
 * `order`, then id (Zulip's `apply_event` sorts by `order` after a reorder, so /register must too).
 */
import { codePointLength, invalidCharPosition } from './messages.js';
import type { RealmState } from './realm-state.js';
import { assertNever } from './record-versions.js';

/** Zulip's `ChannelFolder.MAX_NAME_LENGTH` (= register's `max_channel_folder_name_length`), in code points. */
export const MAX_CHANNEL_FOLDER_NAME_LENGTH = 60;
/** Zulip's `ChannelFolder.MAX_DESCRIPTION_LENGTH` (= register's `max_channel_folder_description_length`). */
export const MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH = 1024;

/** One channel folder (domain form). */
export interface ChannelFolder {
  readonly id: number;
  /** Unique in the realm case-insensitively (archived folders included); not stripped. */
  name: string;
  /** Raw Markdown, possibly empty. */
  description: string;
  /** HTML of `description` ('' for an empty description). */
  renderedDescription: string;
  /** The administrator who created it. */
  creatorId: number | null;
  /** Integer UNIX seconds. */
  dateCreated: number;
  isArchived: boolean;
  /** Display position (lower first); see the module comment. */
  order: number;
}

/** The realm's folders and the next id. */
export interface ChannelFolderState {
  folders: Map<number, ChannelFolder>;
  nextId: number;
}

/** `channel_folder_created` v1: the complete new folder (its id, order and rendered description decided). */
export interface ChannelFolderCreated {
  type: 'channel_folder_created';
  v: 1;
  folder: ChannelFolder;
}

/** `channel_folder_updated` v1: only the keys present changed (`renderedDescription` with `description`). */
export interface ChannelFolderUpdated {
  type: 'channel_folder_updated';
  v: 1;
  folderId: number;
  name?: string;
  description?: string;
  renderedDescription?: string;
  isArchived?: boolean;
}

/** `channel_folders_reordered` v1: the `order` list as sent (it names every folder at least once). */
export interface ChannelFoldersReordered {
  type: 'channel_folders_reordered';
  v: 1;
  order: number[];
}

export type ChannelFolderRecord = ChannelFolderCreated | ChannelFolderUpdated | ChannelFoldersReordered;

const emptyFolders = (): ChannelFolderState => ({ folders: new Map(), nextId: 1 });

/** The realm's folder state (a fresh empty one when the state has none: do not mutate it then). */
export function channelFoldersOf(state: RealmState): ChannelFolderState {
  return state.channelFolders ?? emptyFolders();
}

/** The folder with this id, or undefined. */
export function findChannelFolder(state: RealmState, id: number): ChannelFolder | undefined {
  return state.channelFolders?.folders.get(id);
}

/** Whether a channel may be put in folder `id`: it exists and is not archived. */
export function isUsableChannelFolder(state: RealmState, id: number): boolean {
  const folder = findChannelFolder(state, id);
  return folder !== undefined && !folder.isArchived;
}

/** Whether any channel (archived channels included, as Zulip's `check_channel_folder_in_use`) is in folder `id`. */
export function channelFolderInUse(state: RealmState, id: number): boolean {
  for (const stream of state.streams.values()) if (stream.folderId === id) return true;
  return false;
}

/** Python `str.strip()` (Unicode whitespace). */
const strip = (s: string) => s.replace(/^\s+|\s+$/gu, '');

/**
 * Zulip's `check_channel_folder_name`: the error message, or null when `name` is acceptable.
 * Blank after stripping → "Channel folder name can't be empty."; a control, surrogate or
 * non-character code point → "Invalid character in channel folder name, at position N." (1-based);
 * a folder with the same name case-insensitively (archived ones, and the folder being renamed,
 * included) → "Channel folder name already in use". The length limit is checked by the caller
 * (it is a parameter-validation error in Zulip, reported first).
 */
export function channelFolderNameError(state: RealmState, name: string): string | null {
  if (strip(name) === '') return "Channel folder name can't be empty.";
  const pos = invalidCharPosition(name);
  if (pos > 0) return `Invalid character in channel folder name, at position ${pos}.`;
  const lower = name.toLowerCase();
  for (const folder of channelFoldersOf(state).folders.values()) {
    if (folder.name.toLowerCase() === lower) return 'Channel folder name already in use';
  }
  return null;
}

/** Code-point length check of a `@typed_endpoint` string parameter: the message, or null. */
export function tooLongError(param: string, value: string, limit: number): string | null {
  return codePointLength(value) > limit ? `${param} is too long (limit: ${limit} characters)` : null;
}

/** `evolve` of the channel folder records. */
export function evolveChannelFolders(state: RealmState, r: ChannelFolderRecord): void {
  const all = (state.channelFolders ??= emptyFolders());
  switch (r.type) {
    case 'channel_folder_created':
      all.folders.set(r.folder.id, { ...r.folder });
      all.nextId = Math.max(all.nextId, r.folder.id + 1);
      return;
    case 'channel_folder_updated': {
      const folder = all.folders.get(r.folderId);
      if (folder === undefined) return;
      if (r.name !== undefined) folder.name = r.name;
      if (r.description !== undefined) folder.description = r.description;
      if (r.renderedDescription !== undefined) folder.renderedDescription = r.renderedDescription;
      if (r.isArchived !== undefined) folder.isArchived = r.isArchived;
      return;
    }
    case 'channel_folders_reordered': {
      const position = orderMapping(r.order);
      for (const folder of all.folders.values()) {
        const order = position.get(folder.id);
        if (order !== undefined) folder.order = order;
      }
      return;
    }
    default:
      assertNever(r, 'record type');
  }
}

/** id → index in `order`, the last index winning for repeated ids (Python's dict comprehension). */
export function orderMapping(order: readonly number[]): Map<number, number> {
  const position = new Map<number, number>();
  order.forEach((id, i) => position.set(id, i));
  return position;
}

/** Wire form of a folder (Zulip's `ChannelFolderDict`, FL 414 with `order`). */
export interface ChannelFolderWire {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  creator_id: number | null;
  date_created: number;
  is_archived: boolean;
  order: number;
}

/** Wire form of one folder (events, GET, register). */
export function channelFolderWire(f: ChannelFolder): ChannelFolderWire {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    rendered_description: f.renderedDescription,
    creator_id: f.creatorId,
    date_created: f.dateCreated,
    is_archived: f.isArchived,
    order: f.order,
  };
}

/**
 * `GET /channel_folders` (`include_archived`, default false) and /register `channel_folders`
 * (Zulip passes `include_archived=True` there): the folders sorted by `order`, then id.
 */
export function channelFoldersWire(state: RealmState, includeArchived: boolean): ChannelFolderWire[] {
  return [...channelFoldersOf(state).folders.values()]
    .filter((f) => includeArchived || !f.isArchived)
    .sort((a, b) => a.order - b.order || a.id - b.id)
    .map(channelFolderWire);
}

/** Snapshot form (absent in snapshots written before channel folders, or when there are none). */
export interface ChannelFoldersCore {
  folders: ChannelFolder[];
  nextId: number;
}

/** Snapshot form of `state.channelFolders`; undefined when the realm never had a folder. */
export function channelFoldersToCore(state: RealmState): ChannelFoldersCore | undefined {
  const all = state.channelFolders;
  if (all === undefined || (all.folders.size === 0 && all.nextId === 1)) return undefined;
  return { folders: [...all.folders.values()], nextId: all.nextId };
}

/** Restores `state.channelFolders` (`undefined` = an older snapshot, or none: left absent). */
export function channelFoldersFromCore(state: RealmState, core: ChannelFoldersCore | undefined): void {
  if (core === undefined) return;
  state.channelFolders = { folders: new Map(core.folders.map((f) => [f.id, { ...f }])), nextId: core.nextId };
}
