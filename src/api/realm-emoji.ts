/**
 * Custom emoji endpoints (https://zulip.com/api/get-custom-emoji,
 * https://zulip.com/api/upload-custom-emoji, https://zulip.com/api/deactivate-custom-emoji;
 * Zulip's zerver/views/realm_emoji.py):
 * - `GET /realm/emoji` (any user): `{emoji: {<id>: {id, name, source_url, deactivated, author_id,
 *   still_url}}}`, deactivated emoji included;
 * - `POST /realm/emoji/{emoji_name}` (multipart, one image file): the name is stripped and its
 *   spaces become `_`; rules, resizing and storage in `realm/media.ts`;
 * - `DELETE /realm/emoji/{emoji_name}`: deactivates the emoji.
 */
import { realmEmojiWire } from '../domain/realm-emoji.js';
import { uploadRealmEmoji } from '../realm/media.js';
import { defineEndpoint } from './define-endpoint.js';
import { runCommand } from './run-command.js';

/** Python `str.strip()` (Unicode whitespace). */
const strip = (s: string) => s.replace(/^\s+|\s+$/gu, '');

/** `GET /realm/emoji` (Zulip's `list_emoji`). */
export const listEmoji = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm }) => ({ emoji: realmEmojiWire(realm.state) }),
});

/** `POST /realm/emoji/{emoji_name}` (Zulip's `upload_emoji`). */
export const uploadEmoji = defineEndpoint({
  auth: 'user',
  pathParams: { emoji_name: 'string' },
  params: {},
  handler: async ({ realm, user, path, files }) => {
    const name = strip(path.emoji_name).replaceAll(' ', '_');
    const result = await uploadRealmEmoji(realm, user.id, name, files);
    return result.ok ? {} : result.error;
  },
});

/** `DELETE /realm/emoji/{emoji_name}` (Zulip's `delete_emoji`). */
export const deleteEmoji = defineEndpoint({
  auth: 'user',
  pathParams: { emoji_name: 'string' },
  params: {},
  handler: ({ realm, user, path }) => runCommand(realm, { type: 'remove_realm_emoji', actorId: user.id, name: path.emoji_name }),
});
