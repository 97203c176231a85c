/**
 * Which file-store digests a realm's records name: the file store's garbage collection keeps
 * exactly these (src/storage/file-store.ts `sweep`). Uploads today; custom emoji and avatars add
 * theirs here, so one function answers "is this file still someone's".
 */
import { attachmentDigests } from './attachments.js';
import type { RealmState } from './realm-state.js';

/** Every SHA-256 the realm's records reference. */
export function fileDigests(state: RealmState): Set<string> {
  return new Set(attachmentDigests(state));
}
