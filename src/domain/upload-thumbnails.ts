/**
 * Thumbnails of uploaded images, as Zulip's zerver/lib/thumbnail.py keeps them in its
 * `ImageAttachment` rows: the original's displayed size and frame count, and the thumbnails made
 * of it (`THUMBNAIL_OUTPUT_FORMATS`: `840x560-anim.webp` for animations, `840x560.webp`; plus
 * `TRANSCODED_IMAGE_FORMAT` 4032×3024 WebP for image types browsers cannot show inline).
 *
 * - URL of a thumbnail: `/user_uploads/thumbnail/{path_id}/{format}` (`get_image_thumbnail_path`);
 *   reading it is reading the upload (zerver/views/upload.py `serve_file`).
 * - Rendered messages show the default thumbnail (`get_default_thumbnail_url`: the first output
 *   format whose animated-ness matches the original) with `data-original-dimensions`, or Zulip's
 *   loading placeholder while none exists (`get_user_upload_previews`).
 */
import type { Attachment } from './attachments.js';
import type { RealmState } from './realm-state.js';

/** One stored thumbnail (Zulip's `StoredThumbnailFormat`). */
export interface StoredThumbnail {
  /** `{maxWidth}x{maxHeight}[-anim].webp`. */
  format: string;
  /** The file store digest of its bytes. */
  sha256: string;
  /** Pixels of the thumbnail itself (one frame). */
  width: number;
  height: number;
  /** Bytes. */
  size: number;
}

/** What an upload that decoded as an image records (Zulip's `ImageAttachment`). */
export interface UploadImage {
  /** Pixels, as displayed (after EXIF orientation). */
  width: number;
  height: number;
  /** Frames: 1 for a still image. */
  frames: number;
  thumbnails: StoredThumbnail[];
}

/** A format Zulip generates: name and box in pixels. */
export interface ThumbnailFormat {
  readonly name: string;
  readonly maxWidth: number;
  readonly maxHeight: number;
  readonly animated: boolean;
}

/** Zulip's `THUMBNAIL_OUTPUT_FORMATS`, in order (the first of each kind goes into messages). */
export const THUMBNAIL_OUTPUT_FORMATS: readonly ThumbnailFormat[] = [
  { name: '840x560-anim.webp', maxWidth: 840, maxHeight: 560, animated: true },
  { name: '840x560.webp', maxWidth: 840, maxHeight: 560, animated: false },
];

/**
 * Zulip's `THUMBNAIL_ACCEPT_IMAGE_TYPES`: uploads declaring another type are never parsed as
 * images (no thumbnail, no preview). SVG is listed by Zulip but not rasterized here.
 */
export const THUMBNAIL_ACCEPT_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/avif', 'image/gif', 'image/heic', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp',
]);

/** Types Zulip serves inline, so needs no transcoded copy (its `INLINE_MIME_TYPES` images). */
const BROWSER_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/apng', 'image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp']);

/**
 * The formats to generate for an upload of `contentType` (`missing_thumbnails`): the output
 * formats, plus the 4032×3024 transcode (3024×4032 for a portrait original) for types browsers
 * cannot show. Animated formats are skipped by the renderer for still images.
 */
export function thumbnailFormatsFor(contentType: string, width: number, height: number): ThumbnailFormat[] {
  const formats = [...THUMBNAIL_OUTPUT_FORMATS];
  if (!BROWSER_IMAGE_TYPES.has(contentType)) {
    const [w, h] = width >= height ? [4032, 3024] : [3024, 4032];
    formats.push({ name: `${w}x${h}.webp`, maxWidth: w, maxHeight: h, animated: false });
  }
  return formats;
}

/** `/user_uploads/thumbnail/{pathId}/{format}` (`get_image_thumbnail_path`). */
export function thumbnailUrl(pathId: string, format: string): string {
  return `/user_uploads/thumbnail/${pathId}/${format}`;
}

/** The stored thumbnail of `a` in `format`, or undefined (not an image, or no such format). */
export function findThumbnail(a: Attachment, format: string): StoredThumbnail | undefined {
  return a.image?.thumbnails.find((t) => t.format === format);
}

/** Every file-store digest of `a`'s thumbnails. */
export function thumbnailDigests(a: Attachment): string[] {
  return a.image?.thumbnails.map((t) => t.sha256) ?? [];
}

/** What a rendered message shows for an uploaded image (Zulip's `MarkdownImageMetadata`). */
export interface UploadImagePreview {
  /** Pixels of the original, as displayed. */
  width: number;
  height: number;
  /** The default thumbnail's URL, or null while none exists (then the loading placeholder). */
  thumbnailUrl: string | null;
  /** The upload's Content-Type (`data-original-content-type`). */
  contentType: string;
  /** The default thumbnail is animated (`data-animated="true"`). */
  animated: boolean;
  /** The transcoded full-size format name for types browsers cannot show (`data-transcoded-image`), or null. */
  transcodedFormat: string | null;
}

/**
 * Zulip's `get_user_upload_previews` for one path id of realm `state`: undefined when the path
 * names no upload that decoded as an image (then the link gets no preview).
 */
export function uploadImagePreview(state: RealmState, pathId: string): UploadImagePreview | undefined {
  const id = state.attachments?.byPath.get(pathId);
  const a = id === undefined ? undefined : state.attachments!.byId.get(id);
  const image = a?.image;
  if (a === undefined || image === undefined) return undefined;
  const animated = image.frames > 1;
  const format = THUMBNAIL_OUTPUT_FORMATS.find((f) => f.animated === animated) ?? THUMBNAIL_OUTPUT_FORMATS[0]!;
  const stored = image.thumbnails.find((t) => t.format === format.name);
  // get_transcoded_format: the largest thumbnail, only for types browsers cannot show.
  const largest = [...image.thumbnails].sort((x, y) => y.width * y.height - x.width * x.height)[0];
  return {
    width: image.width,
    height: image.height,
    thumbnailUrl: stored === undefined ? null : thumbnailUrl(a.pathId, stored.format),
    contentType: a.contentType,
    animated: stored !== undefined && format.animated,
    transcodedFormat: BROWSER_IMAGE_TYPES.has(a.contentType) || largest === undefined ? null : largest.format,
  };
}
