/**
 * What the HTTP layer hands the API layer for uploads and what the API layer hands back for file
 * downloads (https://zulip.com/api/upload-file): plain interfaces, so `api/` never touches the file
 * store (`storage/file-store.ts`) itself; the entry point (`main.ts`) wires the store in.
 */
import type { UploadImage } from '../domain/upload-thumbnails.js';

/**
 * One file part of a multipart request, already streamed to a durable temp file (never held in
 * memory): its digest and size (bytes), and the part's declared name and media type. `commit`
 * makes the bytes visible in the file store (idempotent); the HTTP layer `discard`s every part
 * not committed once the request is answered.
 */
export interface UploadedFile {
  /** The form field name (python-zulip-api sends the file name here). */
  readonly fieldName: string;
  /** The part's `filename` as sent ('' when absent). */
  readonly filename: string;
  /** The part's Content-Type, lower-case ('' when absent). */
  readonly contentType: string;
  readonly sha256: string;
  /** Bytes. */
  readonly size: number;
  commit(): Promise<void>;
  discard(): Promise<void>;
  /** The whole content (small files only: avatars and emoji are read to be decoded and resized). */
  read(): Promise<Buffer>;
}

/** A file answer's body: `length` bytes from `start` (inclusive) of the stored file. */
export interface FileBody {
  readonly start: number;
  readonly length: number;
  /** A stream of exactly those bytes; the HTTP layer destroys it when the client goes away. */
  open(): Promise<AsyncIterable<Uint8Array> & { destroy(): void }>;
}

/** The upload configuration and the file store's read side, as the endpoints need them. */
export interface UploadServices {
  /** `max_file_upload_size_mib` (Zulip's `MAX_FILE_UPLOAD_SIZE`, default 25). */
  readonly maxFileUploadMib: number;
  /** Per-realm upload quota in bytes (`realm_upload_quota_mib`), null = none. */
  readonly quotaBytes: number | null;
  /** Size in bytes of a stored digest, or undefined when the store lacks it. */
  size(sha256: string): Promise<number | undefined>;
  /** Bytes `start..end` (inclusive) of a stored digest; undefined when the store lacks it. */
  open(sha256: string, start: number, end: number): Promise<(AsyncIterable<Uint8Array> & { destroy(): void }) | undefined>;
  /**
   * An attachment naming `sha256` was deleted: remove the bytes once no record of any realm names
   * them (never waits; a file committed in the last minute is left to a later check, since its
   * record may still be on its way).
   */
  forget(sha256: string): void;
  /**
   * Zulip's `maybe_thumbnail` + `ensure_thumbnails` for a committed upload: when `contentType` is
   * one Zulip thumbnails and the bytes decode as an image, its displayed size, frames and
   * thumbnails (already durable in the store); undefined otherwise (not an image: no preview).
   */
  thumbnail(sha256: string, contentType: string): Promise<UploadImage | undefined>;
  /**
   * The key signing temporary upload URLs (`/user_uploads/temporary/…`): per data directory,
   * created with it and kept across restarts, so a URL stays valid for its 60 s.
   */
  readonly urlKey: string;
}
