/**
 * Custom emoji and avatar uploads, end to end: the checks that need no image run first (so a
 * refused request never decodes or stores anything), then sharp resizes the image
 * (`storage/images.ts`), the results are put durably in the file store, and only then the command
 * that names their digests runs in the realm actor (the record is the truth; a stored file no
 * record names is garbage for the file store's sweep).
 *
 * Mirrors Zulip's zerver/views/realm_emoji.py `upload_emoji` + zerver/actions/realm_emoji.py
 * `check_add_realm_emoji` + zerver/lib/upload/__init__.py `upload_emoji_image`, and
 * zerver/views/user_settings.py `set_avatar_backend` + `upload_avatar_image`, and
 * zerver/views/realm_icon.py `upload_icon` + `upload_icon_image`.
 */
import { Errors, fail, type Result } from '../errors.js';
import { isEmojiContentType, EMOJI_SIZE_PX } from '../domain/realm-emoji.js';
import { accessAvatarChange } from '../domain/access.js';
import { AVATAR_SIZE_PX, MAX_AVATAR_FILE_SIZE_MIB, MEDIUM_AVATAR_SIZE_PX } from '../domain/avatars.js';
import { BadImage, defaultRealmIconPng, resizeAvatar, resizeEmoji } from '../storage/images.js';
import { checkAddRealmEmoji } from './handlers/realm-emoji.js';
import { ICON_SIZE_PX, MAX_ICON_FILE_SIZE_MIB } from '../domain/realm-icon.js';
import { requireRealmAdmin } from '../domain/access.js';
import type { RealmHandle } from './realm-handle.js';

/**
 * An uploaded file as the media functions need it: declared Content-Type, size in bytes, and
 * its content, read only once the size is known to be small (the HTTP layer staged it on disk).
 */
export interface MediaUpload {
  readonly contentType: string;
  readonly size: number;
  read(): Promise<Uint8Array>;
}

/**
 * Zulip's `THUMBNAIL_ACCEPT_IMAGE_TYPES` (zerver/lib/thumbnail.py): what an avatar may declare
 * itself as ("Invalid image format" otherwise); the bytes are checked by libvips anyway.
 */
const AVATAR_CONTENT_TYPES: ReadonlySet<string> = new Set([
  'image/avif', 'image/gif', 'image/heic', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp', 'image/svg+xml',
]);

/** Runs `work`, turning `BadImage` into Zulip's `BAD_IMAGE` error. */
async function imageWork<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof BadImage) return fail(Errors.badImage(error.message));
    throw error;
  }
}

/**
 * `POST /realm/emoji/{emoji_name}`: `name` already normalized (stripped, spaces → `_`), `files`
 * the request's file parts. Resolves with `{}` or Zulip's error; rejects only on storage failure.
 */
export async function uploadRealmEmoji(realm: RealmHandle, actorId: number, name: string, files: readonly MediaUpload[]): Promise<Result<Record<string, never>>> {
  const first = files[0];
  const refused = checkAddRealmEmoji(realm.state, actorId, name, files.length, first?.size ?? 0);
  if (refused !== null) return fail(refused);
  const file = first!;
  if (!isEmojiContentType(file.contentType)) return fail(Errors.badImage('Invalid image format'));
  const resized = await imageWork(async () => resizeEmoji(await file.read(), file.contentType, EMOJI_SIZE_PX));
  if (!resized.ok) return resized;
  const image = await realm.files.put(resized.value.image);
  const still = resized.value.still === null ? null : await realm.files.put(resized.value.still);
  return realm.execute({
    type: 'add_realm_emoji',
    actorId,
    name,
    contentType: file.contentType,
    isAnimated: resized.value.animated,
    sha256: image.sha256,
    stillSha256: still?.sha256 ?? null,
    uploadBytes: file.size,
  });
}

/**
 * `POST /users/me/avatar`: exactly one image, allowed by `accessAvatarChange`, at most 5 MiB;
 * replies `{avatar_url}`.
 */
export async function uploadAvatar(realm: RealmHandle, actorId: number, files: readonly MediaUpload[]): Promise<Result<{ avatar_url: string }>> {
  if (files.length !== 1) return fail(Errors.exactlyOneAvatar());
  // Checked again by the command against the live state; here so a refused upload is never decoded or stored.
  const allowed = accessAvatarChange(realm.state.users.get(actorId), realm.state.settings.avatarChangesDisabled === true);
  if (!allowed.ok) return allowed;
  const file = files[0]!;
  if (file.size > MAX_AVATAR_FILE_SIZE_MIB * 1024 * 1024) return fail(Errors.fileTooLargeMib(MAX_AVATAR_FILE_SIZE_MIB));
  if (!AVATAR_CONTENT_TYPES.has(file.contentType)) return fail(Errors.badImage('Invalid image format'));
  const resized = await imageWork(async () => {
    const bytes = await file.read();
    return [await resizeAvatar(bytes, AVATAR_SIZE_PX), await resizeAvatar(bytes, MEDIUM_AVATAR_SIZE_PX)] as const;
  });
  if (!resized.ok) return resized;
  const small = await realm.files.put(resized.value[0]);
  const medium = await realm.files.put(resized.value[1]);
  return realm.execute({ type: 'change_avatar', actorId, upload: { sha256: small.sha256, mediumSha256: medium.sha256 } });
}

/**
 * `POST /realm/icon`: administrators only, exactly one image ("You must upload exactly one
 * icon."), at most 5 MiB, resized to a 100×100 PNG (Zulip's `upload_icon_image` uses
 * `resize_avatar`); replies `{icon_url}`.
 */
export async function uploadRealmIcon(realm: RealmHandle, actorId: number, files: readonly MediaUpload[]): Promise<Result<{ icon_url: string }>> {
  const admin = requireRealmAdmin(realm.state.users.get(actorId));
  if (!admin.ok) return admin;
  if (files.length !== 1) return fail(Errors.badRequest('You must upload exactly one icon.'));
  const file = files[0]!;
  if (file.size > MAX_ICON_FILE_SIZE_MIB * 1024 * 1024) return fail(Errors.fileTooLargeMib(MAX_ICON_FILE_SIZE_MIB));
  if (!AVATAR_CONTENT_TYPES.has(file.contentType)) return fail(Errors.badImage('Invalid image format'));
  const resized = await imageWork(async () => resizeAvatar(await file.read(), ICON_SIZE_PX));
  if (!resized.ok) return resized;
  const stored = await realm.files.put(resized.value);
  return realm.execute({ type: 'change_realm_icon', actorId, sha256: stored.sha256 });
}

let defaultIcon: Promise<Buffer> | undefined;

/** parley's default organization icon, a `sizePx` PNG rendered once per process (`storage/images.ts`). */
export function defaultRealmIcon(sizePx: number): Promise<Buffer> {
  defaultIcon ??= defaultRealmIconPng(sizePx);
  return defaultIcon;
}
