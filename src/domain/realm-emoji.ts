/**
 * Custom (realm) emoji (https://zulip.com/api/get-custom-emoji, https://zulip.com/api/upload-custom-emoji;
 * Zulip's zerver/models/realm_emoji.py `RealmEmoji`, `get_all_custom_emoji_for_realm`,
 * zerver/lib/emoji.py `check_valid_emoji_name`, `get_emoji_file_name`).
 *
 * State: `state.realmEmoji` = `{ items: Map<id, RealmEmoji>, nextId }`. An emoji is never deleted,
 * only deactivated (`DELETE /realm/emoji/{name}`), so ids and file names stay stable and old
 * messages' `<img>`s keep working. At most one *active* emoji has a given name; a deactivated
 * name can be reused by a new emoji (new id).
 *
 * Files: each emoji names the content digests (`sha256`, and `stillSha256` for animated ones) of
 * its resized image in the server's file store; `fileName` is the public name under
 * `/user_avatars/{realm_id}/emoji/images/`. Records: `realm_emoji_added` v1,
 * `realm_emoji_deactivated` v1.
 */
import { createHash } from 'node:crypto';
import type { RealmState } from './realm-state.js';

/** Zulip's `MAX_EMOJI_FILE_SIZE_MIB` (zproject/default_settings.py): the upload limit, MiB. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

/** Zulip's `DEFAULT_EMOJI_SIZE` (zerver/lib/thumbnail.py): emoji are stored at 64×64 px. */
export const EMOJI_SIZE_PX = 64;

/** One custom emoji (domain form). */
export interface RealmEmoji {
  readonly id: number;
  readonly name: string;
  /** The uploader; null when unknown (Zulip: emoji imported without an author). */
  readonly authorId: number | null;
  /** Public file name (`<8 hex><ext>`), unique in the realm. */
  readonly fileName: string;
  /** Content type of the stored image (`image/png`, `image/gif`…). */
  readonly contentType: string;
  readonly isAnimated: boolean;
  /** SHA-256 (hex) of the stored, resized image. */
  readonly sha256: string;
  /** SHA-256 of the still PNG of an animated emoji (its first frame); null when not animated. */
  readonly stillSha256: string | null;
  deactivated: boolean;
}

/** The realm's emoji by id, and the next id (ids are never reused). */
export interface RealmEmojiState {
  items: Map<number, RealmEmoji>;
  nextId: number;
}

/** `realm_emoji_added` v1: a new active emoji (its files are durable before this is written). */
export interface RealmEmojiAdded {
  type: 'realm_emoji_added';
  v: 1;
  emoji: Omit<RealmEmoji, 'deactivated'>;
}

/** `realm_emoji_deactivated` v1: Zulip's `do_remove_realm_emoji`. */
export interface RealmEmojiDeactivated {
  type: 'realm_emoji_deactivated';
  v: 1;
  id: number;
}

export type RealmEmojiRecord = RealmEmojiAdded | RealmEmojiDeactivated;

/** The realm's emoji state, created on first use. */
export function realmEmojiOf(state: RealmState): RealmEmojiState {
  state.realmEmoji ??= { items: new Map(), nextId: 1 };
  return state.realmEmoji;
}

/** `evolve` for the emoji records. */
export function evolveRealmEmoji(state: RealmState, r: RealmEmojiRecord): void {
  const emoji = realmEmojiOf(state);
  if (r.type === 'realm_emoji_added') {
    emoji.items.set(r.emoji.id, { ...r.emoji, deactivated: false });
    emoji.nextId = Math.max(emoji.nextId, r.emoji.id + 1);
    return;
  }
  const item = emoji.items.get(r.id);
  if (item !== undefined) item.deactivated = true;
}

/** The active emoji with this exact name (Zulip's `get_name_keyed_dict_for_active_realm_emoji`). */
export function activeRealmEmojiByName(state: RealmState, name: string): RealmEmoji | undefined {
  for (const e of state.realmEmoji?.items.values() ?? []) if (!e.deactivated && e.name === name) return e;
  return undefined;
}

/** The emoji (active or not) stored under a public file name, for serving. */
export function realmEmojiByFileName(state: RealmState, fileName: string): RealmEmoji | undefined {
  for (const e of state.realmEmoji?.items.values() ?? []) if (e.fileName === fileName) return e;
  return undefined;
}

/**
 * Zulip's `check_valid_emoji_name`: the error message for a bad name, or null. Names are
 * lower-case ASCII letters, digits, `-` and `_`, ending with a letter or digit (spaces were
 * already turned into `_` by the view).
 */
export function emojiNameProblem(name: string): 'missing' | 'bad_end' | 'bad_chars' | null {
  if (name === '') return 'missing';
  if (/^[0-9a-z\-_]+$/.test(name)) return /[\-_]$/.test(name) ? 'bad_end' : null;
  return 'bad_chars';
}

/** Python's `mimetypes.guess_extension` for the emoji image types Zulip accepts. */
const EMOJI_EXTENSIONS: Readonly<Record<string, string>> = {
  'image/avif': '.avif',
  'image/gif': '.gif',
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
};

/**
 * The emoji content types Zulip accepts (`THUMBNAIL_ACCEPT_IMAGE_TYPES` ∩ `INLINE_MIME_TYPES`);
 * anything else is `BadImageError("Invalid image format")`.
 */
export function isEmojiContentType(contentType: string): boolean {
  return Object.hasOwn(EMOJI_EXTENSIONS, contentType);
}

/**
 * Zulip's `get_emoji_file_name`: 8 hex characters that clients cannot enumerate plus the
 * extension of the content type. Zulip salts the id with a server secret; here the id is salted
 * with the image's digest, which clients cannot guess either and which keeps replay exact.
 */
export function emojiFileName(id: number, sha256: string, contentType: string): string {
  const hash = createHash('sha256').update(`${sha256}:${id}`).digest('hex').slice(0, 8);
  return hash + (EMOJI_EXTENSIONS[contentType] ?? '.png');
}

/** `/user_avatars/{realm_id}/emoji/images/{file_name}` (Zulip's LocalUploadBackend `get_emoji_url`). */
export function emojiSourceUrl(realmId: number, fileName: string): string {
  return `/user_avatars/${realmId}/emoji/images/${fileName}`;
}

/** The still image of an animated emoji: `…/emoji/images/still/{name without extension}.png`. */
export function emojiStillUrl(realmId: number, fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return `/user_avatars/${realmId}/emoji/images/still/${dot < 0 ? fileName : fileName.slice(0, dot)}.png`;
}

/** One emoji on the wire (Zulip's `EmojiInfo`). */
export interface RealmEmojiWire {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
  author_id: number | null;
  still_url: string | null;
}

/**
 * Every emoji of the realm, deactivated ones included, keyed by id as a string (Zulip's
 * `get_all_custom_emoji_for_realm`): `GET /realm/emoji`'s `emoji`, register's `realm_emoji`, and
 * the `realm_emoji` event's payload.
 */
export function realmEmojiWire(state: RealmState): Record<string, RealmEmojiWire> {
  const out: Record<string, RealmEmojiWire> = {};
  for (const e of state.realmEmoji?.items.values() ?? []) {
    out[String(e.id)] = {
      id: String(e.id),
      name: e.name,
      source_url: emojiSourceUrl(state.id, e.fileName),
      deactivated: e.deactivated,
      author_id: e.authorId,
      still_url: e.isAnimated ? emojiStillUrl(state.id, e.fileName) : null,
    };
  }
  return out;
}

/** Snapshot form: the emoji list and the next id (absent = none). */
export interface RealmEmojiCore {
  items: RealmEmoji[];
  nextId: number;
}

export function realmEmojiToCore(state: RealmState): RealmEmojiCore | undefined {
  const e = state.realmEmoji;
  return e === undefined || e.items.size === 0 ? undefined : { items: [...e.items.values()], nextId: e.nextId };
}

export function realmEmojiFromCore(state: RealmState, core: RealmEmojiCore | undefined): void {
  if (core === undefined) return;
  state.realmEmoji = { items: new Map(core.items.map((e) => [e.id, { ...e }])), nextId: core.nextId };
}

/** Every file digest the realm's emoji name (for the file store's sweep). */
export function realmEmojiDigests(state: RealmState): string[] {
  const out: string[] = [];
  for (const e of state.realmEmoji?.items.values() ?? []) {
    out.push(e.sha256);
    if (e.stillSha256 !== null) out.push(e.stillSha256);
  }
  return out;
}
