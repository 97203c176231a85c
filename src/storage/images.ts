/**
 * Image decoding and resizing with sharp (libvips), as Zulip's zerver/lib/thumbnail.py does with
 * pyvips: `libvips_check_image`, `resize_avatar`, `resize_emoji`, and the upload thumbnails
 * (`THUMBNAIL_OUTPUT_FORMATS`: 840×560 WebP).
 *
 * Every function takes the whole image in memory (callers bound its size first: avatars and emoji
 * 5 MiB) and rejects with {@link BadImage} carrying Zulip's message when libvips cannot decode it
 * or it is a decompression bomb; nothing is written anywhere here.
 *
 * Only the loaders Zulip enables are accepted (AVIF/HEIF, GIF, JPEG, PNG, TIFF, WebP; SVG is
 * refused: rasterizing untrusted SVG is out of scope), checked on libvips' detected format, not
 * on the client's Content-Type.
 */
import type { FormatEnum, Metadata, Sharp, SharpOptions } from 'sharp';

/** sharp's constructor: a whole image in memory, or the path of a file (read by libvips itself). */
type SharpFactory = (input: Uint8Array | string, options?: SharpOptions) => Sharp;
let loaded: Promise<SharpFactory> | null = null;
/**
 * sharp, loaded on first use: libvips is a large native library, and most processes (the CLI's
 * subcommands, servers that never see an image) never need it. No libvips operation cache: each
 * image is processed once (Zulip: `cache_set_max(0)`).
 */
function sharp(): Promise<SharpFactory> {
  loaded ??= import('sharp').then((m) => {
    m.default.cache(false);
    return m.default as unknown as SharpFactory;
  });
  return loaded;
}

/** Zulip's `IMAGE_BOMB_TOTAL_PIXELS`: at most this many pixels (all frames counted for emoji). */
export const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;

/** Zulip's `BadImageError` (code `BAD_IMAGE`): the message to send. */
export class BadImage extends Error {
  override readonly name = 'BadImage';
}

const COULD_NOT_DECODE = 'Could not decode image; did you upload an image file?';

/** libvips loader names (sharp `metadata().format`) Zulip's `operation_block_set` leaves enabled. */
const ALLOWED_FORMATS: ReadonlySet<string> = new Set(['heif', 'gif', 'jpeg', 'png', 'tiff', 'webp']);

/** What `checkImage` learned from the header. */
export interface ImageInfo {
  /** libvips loader: `jpeg`, `png`, `gif`, `webp`, `heif`, `tiff`. */
  format: string;
  /** Pixels, as displayed (EXIF orientation 5–8 swaps width and height). */
  width: number;
  height: number;
  /** Frames (1 for a still image). */
  frames: number;
}

/**
 * Zulip's `libvips_check_image`: decodes the header, refuses unknown formats and bombs
 * (`allFrames`: width × height × frames must stay under the limit, for emoji whose every frame is
 * kept; otherwise a still image's width × height, and an animation's first three frames against a
 * third of the limit). Rejects with {@link BadImage}.
 */
export async function checkImage(bytes: Uint8Array | string, allFrames: boolean): Promise<ImageInfo> {
  const make = await sharp();
  let meta: Metadata;
  try {
    meta = await make(bytes, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    throw new BadImage(COULD_NOT_DECODE);
  }
  const { format, width, height } = meta;
  if (format === undefined || !ALLOWED_FORMATS.has(format) || width === undefined || height === undefined) {
    throw new BadImage(COULD_NOT_DECODE);
  }
  const frames = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? height;
  const pixels = allFrames ? width * frameHeight * frames : frames === 1 ? width * frameHeight : width * frameHeight * Math.min(3, frames);
  const limit = allFrames || frames === 1 ? IMAGE_BOMB_TOTAL_PIXELS : IMAGE_BOMB_TOTAL_PIXELS / 3;
  if (pixels > limit) throw new BadImage('Image size exceeds limit.');
  const swapped = meta.orientation !== undefined && meta.orientation >= 5 && meta.orientation <= 8;
  return { format, width: swapped ? frameHeight : width, height: swapped ? width : frameHeight, frames };
}

/** Runs a sharp pipeline, turning libvips failures into Zulip's "corrupted or truncated" error. */
async function render(pipeline: Sharp): Promise<Buffer> {
  try {
    return await pipeline.toBuffer();
  } catch {
    throw new BadImage('Image is corrupted or truncated');
  }
}

/**
 * Zulip's `resize_avatar`: a `size`×`size` PNG, scaled so the smaller side fits and centre-cropped
 * (upscaling small images). `size` in pixels (100, or 500 for the medium avatar).
 */
export async function resizeAvatar(bytes: Uint8Array, size: number): Promise<Buffer> {
  await checkImage(bytes, false);
  return render((await sharp())(bytes, { limitInputPixels: false }).rotate().resize(size, size, { fit: 'cover', position: 'centre' }).png());
}

/** A resized emoji: the image in its own format, and a PNG still of the first frame when animated. */
export interface ResizedEmoji {
  image: Buffer;
  still: Buffer | null;
  animated: boolean;
}

/** sharp output format per emoji content type (Zulip writes the emoji in its uploaded format). */
const EMOJI_OUTPUT: Readonly<Record<string, keyof FormatEnum>> = {
  'image/png': 'png',
  'image/gif': 'gif',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
  'image/avif': 'avif',
};

/**
 * Zulip's `resize_emoji`: `size`×`size` pixels. A still image is centre-cropped; an animated one
 * keeps every frame, padded with transparency to a square (`gravity centre`), written in the
 * upload's format, plus a centre-cropped PNG still of its first frame.
 */
export async function resizeEmoji(bytes: Uint8Array, contentType: string, size: number): Promise<ResizedEmoji> {
  const info = await checkImage(bytes, true);
  const format = EMOJI_OUTPUT[contentType] ?? 'png';
  if (info.frames === 1) {
    const image = await render((await sharp())(bytes, { limitInputPixels: false }).rotate().resize(size, size, { fit: 'cover', position: 'centre' }).toFormat(format));
    return { image, still: null, animated: false };
  }
  const still = await render((await sharp())(bytes, { limitInputPixels: false }).resize(size, size, { fit: 'cover', position: 'centre' }).png());
  const image = await render(
    (await sharp())(bytes, { animated: true, limitInputPixels: false })
      .resize(size, size, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .toFormat(format),
  );
  return { image, still, animated: true };
}

/**
 * Zulip's upload thumbnail (`THUMBNAIL_OUTPUT_FORMATS[1]`, "840x560.webp"): fits within
 * `maxWidth`×`maxHeight` without upscaling, first frame only, EXIF orientation applied, WebP.
 */
export async function thumbnailWebp(bytes: Uint8Array, maxWidth: number, maxHeight: number): Promise<Buffer> {
  await checkImage(bytes, false);
  return render(
    (await sharp())(bytes, { limitInputPixels: false }).rotate().resize(maxWidth, maxHeight, { fit: 'inside', withoutEnlargement: true }).webp(),
  );
}

/** Whether (x, y) lies in the rectangle [x0, x1)×[y0, y1) with corners rounded by `r`. */
function inRoundedRect(x: number, y: number, x0: number, y0: number, x1: number, y1: number, r: number): boolean {
  if (x < x0 || x >= x1 || y < y0 || y >= y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/**
 * parley's default organization icon (`size`×`size` PNG, drawn from pixels, no SVG): a white
 * speech bubble on a blue rounded square, transparent outside it. Served where Zulip would show a
 * gravatar identicon, which needs the outside network.
 */
export async function defaultRealmIconPng(size: number): Promise<Buffer> {
  const px = Buffer.alloc(size * size * 4);
  const s = size / 128;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const [u, v] = [(x + 0.5) / s, (y + 0.5) / s];
      if (!inRoundedRect(u, v, 0, 0, 128, 128, 28)) continue;
      // The bubble: a rounded rectangle and its tail (a triangle below its left part).
      const tail = v >= 84 && v <= 104 && u >= 40 && u <= 62 && u - 40 <= (104 - v) * 1.1;
      const white = inRoundedRect(u, v, 26, 32, 102, 86, 12) || tail;
      px.set(white ? [255, 255, 255, 255] : [0x64, 0x92, 0xfe, 255], (y * size + x) * 4);
    }
  }
  return render((await sharp())(px, { raw: { width: size, height: size, channels: 4 } }).png());
}

/**
 * One thumbnail format of an uploaded image (Zulip's `ThumbnailFormat`): its name is
 * `{maxWidth}x{maxHeight}[-anim].{extension}` (`BaseThumbnailFormat.__str__`), e.g. `840x560.webp`.
 */
export interface ThumbnailFormatSpec {
  readonly name: string;
  /** Pixels. */
  readonly maxWidth: number;
  readonly maxHeight: number;
  /** Every frame kept (an animated WebP), or the first frame only. */
  readonly animated: boolean;
}

/** A generated thumbnail: its format name, WebP bytes and pixel size. */
export interface RenderedThumbnail {
  readonly format: string;
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
}

/**
 * Zulip's `maybe_thumbnail` + thumbnail worker `ensure_thumbnails` for one uploaded image at
 * `input` (a file path, so a large upload is never read into the JS heap): the header check
 * (`libvips_check_image` with truncated animations), then each format of `formats` resized to fit
 * inside its box without upscaling, EXIF orientation applied, as WebP; animated formats keep every
 * frame, and are skipped for a still image (`missing_thumbnails`). Rejects with {@link BadImage}.
 */
export async function renderUploadThumbnails(input: Uint8Array | string, formats: readonly ThumbnailFormatSpec[]): Promise<{ info: ImageInfo; thumbnails: RenderedThumbnail[] }> {
  const info = await checkImage(input, false);
  const make = await sharp();
  const thumbnails: RenderedThumbnail[] = [];
  for (const format of formats) {
    if (format.animated && info.frames === 1) continue;
    const pipeline = make(input, { limitInputPixels: false, ...(format.animated && { animated: true }) })
      .rotate()
      .resize(format.maxWidth, format.maxHeight, { fit: 'inside', withoutEnlargement: true })
      .webp();
    try {
      const { data, info: out } = await pipeline.toBuffer({ resolveWithObject: true });
      thumbnails.push({ format: format.name, data, width: out.width, height: out.pageHeight ?? out.height });
    } catch {
      throw new BadImage('Image is corrupted or truncated');
    }
  }
  return { info, thumbnails };
}
