/**
 * Custom emoji commands (https://zulip.com/api/upload-custom-emoji,
 * https://zulip.com/api/deactivate-custom-emoji; Zulip's zerver/views/realm_emoji.py
 * `upload_emoji`, `delete_emoji`, zerver/actions/realm_emoji.py `check_add_realm_emoji`,
 * `do_remove_realm_emoji`).
 *
 * Add, checks in Zulip's order (`checkAddRealmEmoji`, also run by `realm/media.ts` before the
 * image is decoded, so a refused upload never touches the file store):
 * 1. the name (already stripped, spaces → `_`): "Emoji name is missing", "Emoji names must end
 *    with either a letter or digit.", "Emoji names must contain only lowercase English letters,
 *    digits, spaces, dashes, and underscores.";
 * 2. guests "Not allowed for guest users"; outside `can_add_custom_emoji_group` "Insufficient
 *    permission";
 * 3. an active emoji has the name: "A custom emoji with this name already exists.";
 * 4. exactly one file ("You must upload exactly one file.");
 * 5. a Unicode emoji name needs an administrator: "Only administrators can override built-in emoji.";
 * 6. at most 5 MiB: "Uploaded file is larger than the allowed limit of 5 MiB".
 * The image checks (format, decoding) come after, in `realm/media.ts`.
 *
 * Remove: no active emoji of that name → "Emoji '<name>' does not exist"; not an administrator
 * nor the author → "Must be an organization administrator or emoji author". The emoji is
 * deactivated, never deleted.
 *
 * Both send `{type: "realm_emoji", op: "update", realm_emoji: {...every emoji...}}` to every
 * active user and reply `{}`.
 */
import { ok, fail, Errors, type Result, type ZulipError } from '../../errors.js';
import type { RealmState } from '../../domain/realm-state.js';
import { checkCanAddCustomEmoji, checkCanRemoveCustomEmoji } from '../../domain/access.js';
import { unicodeEmojiCodeByName } from '../../domain/emoji.js';
import {
  activeRealmEmojiByName,
  emojiFileName,
  emojiNameProblem,
  isEmojiContentType,
  MAX_EMOJI_FILE_SIZE_MIB,
  realmEmojiWire,
  type RealmEmoji,
  type RealmEmojiRecord,
} from '../../domain/realm-emoji.js';
import { Role } from '../../domain/realm-state.js';
import type { Decision, Handler, RealmEvent } from '../decision.js';
import { activeUserIds } from './user-events.js';

/** `POST /realm/emoji/{emoji_name}` once the image is stored: record the new emoji. */
export interface AddRealmEmoji {
  type: 'add_realm_emoji';
  actorId: number;
  /** Normalized name (stripped, spaces → `_`). */
  name: string;
  /** Content type of the stored image (one `isEmojiContentType` accepts). */
  contentType: string;
  isAnimated: boolean;
  /** Digest of the stored resized image, and of its still PNG when animated. */
  sha256: string;
  stillSha256: string | null;
  /** Size in bytes of the upload as received (Zulip checks the original's size). */
  uploadBytes: number;
}

/** `DELETE /realm/emoji/{emoji_name}`. */
export interface RemoveRealmEmoji {
  type: 'remove_realm_emoji';
  actorId: number;
  name: string;
}

export type RealmEmojiCommand = AddRealmEmoji | RemoveRealmEmoji;

/**
 * Zulip's `upload_emoji` checks 1–6 (see the module header): the error, or null. `fileCount` is
 * the number of files in the request, `uploadBytes` the first one's size.
 */
export function checkAddRealmEmoji(state: RealmState, actorId: number, name: string, fileCount: number, uploadBytes: number): ZulipError | null {
  switch (emojiNameProblem(name)) {
    case 'missing':
      return Errors.emojiNameMissing();
    case 'bad_end':
      return Errors.emojiNameBadEnd();
    case 'bad_chars':
      return Errors.emojiNameBadChars();
  }
  const actor = state.users.get(actorId);
  if (actor === undefined || !actor.isActive) return Errors.noSuchUser();
  const denied = checkCanAddCustomEmoji(state, actor);
  if (denied !== null) return denied;
  if (activeRealmEmojiByName(state, name) !== undefined) return Errors.emojiNameTaken();
  if (fileCount !== 1) return Errors.exactlyOneFile();
  if (unicodeEmojiCodeByName(name) !== undefined && actor.role > Role.admin) return Errors.onlyAdminsOverrideBuiltInEmoji();
  if (uploadBytes > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) return Errors.fileTooLargeMib(MAX_EMOJI_FILE_SIZE_MIB);
  return null;
}

/** The records plus the `realm_emoji` event with the list after them. */
function decide(state: RealmState, record: RealmEmojiRecord, after: Map<number, RealmEmoji>): Result<Decision<Record<string, never>>> {
  const view = { ...state, realmEmoji: { items: after, nextId: 0 } } as RealmState;
  const event: RealmEvent = { userIds: activeUserIds(state), payload: { type: 'realm_emoji', op: 'update', realm_emoji: realmEmojiWire(view) } };
  return ok({ records: [record], events: [event], reply: {} });
}

export const addRealmEmoji: Handler<AddRealmEmoji, Record<string, never>> = (state, cmd) => {
  const refused = checkAddRealmEmoji(state, cmd.actorId, cmd.name, 1, cmd.uploadBytes);
  if (refused !== null) return fail(refused);
  if (!isEmojiContentType(cmd.contentType)) return fail(Errors.badImage('Invalid image format'));
  const current = state.realmEmoji;
  const id = current?.nextId ?? 1;
  const emoji = {
    id,
    name: cmd.name,
    authorId: cmd.actorId,
    fileName: emojiFileName(id, cmd.sha256, cmd.contentType),
    contentType: cmd.contentType,
    isAnimated: cmd.isAnimated,
    sha256: cmd.sha256,
    stillSha256: cmd.isAnimated ? cmd.stillSha256 : null,
  };
  const after = new Map(current?.items ?? []);
  after.set(id, { ...emoji, deactivated: false });
  return decide(state, { type: 'realm_emoji_added', v: 1, emoji }, after);
};

export const removeRealmEmoji: Handler<RemoveRealmEmoji, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const emoji = activeRealmEmojiByName(state, cmd.name);
  if (emoji === undefined) return fail(Errors.emojiDoesNotExist(cmd.name));
  const denied = checkCanRemoveCustomEmoji(actor, emoji);
  if (denied !== null) return fail(denied);
  const after = new Map(state.realmEmoji?.items ?? []);
  after.set(emoji.id, { ...emoji, deactivated: true });
  return decide(state, { type: 'realm_emoji_deactivated', v: 1, id: emoji.id }, after);
};
