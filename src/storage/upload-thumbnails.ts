/**
 * Thumbnailing an upload once its bytes are committed (Zulip's zerver/lib/thumbnail.py
 * `maybe_thumbnail`, then the thumbnail worker's `ensure_thumbnails`, done here before the
 * upload is recorded so every message linking it renders its thumbnail at once): libvips reads the
 * stored file by path (never the JS heap), each thumbnail is put durably in the file store, and the
 * result names their digests for the attachment record. Anything libvips cannot decode is simply
 * not an image (no thumbnail, no preview), as in Zulip.
 */
import { log } from '../log.js';
import { THUMBNAIL_ACCEPT_IMAGE_TYPES, thumbnailFormatsFor, type UploadImage } from '../domain/upload-thumbnails.js';
import type { FileStore } from './file-store.js';
import { BadImage, checkImage, renderUploadThumbnails } from './images.js';

/**
 * The image facts and stored thumbnails of the committed upload `sha256` declared as
 * `contentType`, or undefined when it is not a thumbnailable image. Rejects only when the store
 * cannot write (ENOSPC…).
 */
export async function thumbnailUpload(files: FileStore, sha256: string, contentType: string): Promise<UploadImage | undefined> {
  if (!THUMBNAIL_ACCEPT_IMAGE_TYPES.has(contentType) || (await files.size(sha256)) === undefined) return undefined;
  const path = files.pathOf(sha256);
  try {
    const header = await checkImage(path, false);
    const rendered = await renderUploadThumbnails(path, thumbnailFormatsFor(contentType, header.width, header.height));
    const thumbnails = [];
    for (const t of rendered.thumbnails) {
      const stored = await files.put(t.data);
      thumbnails.push({ format: t.format, sha256: stored.sha256, width: t.width, height: t.height, size: stored.size });
    }
    return { width: header.width, height: header.height, frames: header.frames, thumbnails };
  } catch (error) {
    if (error instanceof BadImage) {
      log.debug({ sha256, reason: error.message }, 'upload is not a thumbnailable image');
      return undefined;
    }
    throw error;
  }
}
