/**
 * Which file-store digests a realm's records name: the file store's garbage collection keeps
 * exactly these (src/storage/file-store.ts `sweep`): uploads, custom emoji (their image and
 * still) uploaded avatars (both sizes) and the uploaded organization icon, so one function answers "is this file still someone's".
 */
import { attachmentDigests } from './attachments.js';
import { realmEmojiDigests } from './realm-emoji.js';
import { avatarDigests } from './avatars.js';
import { realmIconDigests } from './realm-icon.js';
import type { RealmState } from './realm-state.js';

/** Every SHA-256 the realm's records reference. */
export function fileDigests(state: RealmState): Set<string> {
  return new Set([...attachmentDigests(state), ...realmEmojiDigests(state), ...avatarDigests(state), ...realmIconDigests(state)]);
}
