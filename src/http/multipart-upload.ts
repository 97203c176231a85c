/**
 * Streaming multipart bodies for upload routes (`POST /user_uploads`; Django's
 * `MultiPartParser` spooling files to disk, as Zulip relies on): the body is fed chunk by chunk
 * from uWS into busboy, the first file part is streamed into `stage` (the file store's temp file,
 * size-checked as it goes) and never held in memory; further file parts are counted and drained
 * (the endpoint refuses more than one). uWS is paused while busboy or the disk lags.
 *
 * Limits: a declared `Content-Length` or a received body over `maxBodyBytes` (the file limit plus
 * room for the form's other parts) fails at once with the route's `tooLarge` error; `stage`
 * rejecting (file over its limit, disk full) fails likewise. The caller then answers and closes
 * the connection (the rest of the body is never read). A broken body → 400 "Malformed
 * multipart/form-data request body: …". Staged files of a failed request are discarded here.
 */
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import type { HttpResponse } from 'uWebSockets.js';
import { Errors, ZulipError } from '../errors.js';
import type { UploadedFile } from '../api/uploaded-file.js';
import { RequestAborted, type RequestHead, type ResponseState } from './request.js';

/** A file written by `stage`: what `UploadedFile` adds to the part's names. */
export type StagedBytes = Pick<UploadedFile, 'sha256' | 'size' | 'commit' | 'discard' | 'read'>;

/** An upload route as the HTTP layer sees it. */
export interface UploadRoute {
  /** Whether this request (method and path) is an upload. */
  matches(method: string, path: string): boolean;
  /** Largest accepted file, bytes. */
  readonly maxFileBytes: number;
  /** The error for a too large file or body. */
  tooLarge(): ZulipError;
  /** Streams `source` into a temp file; rejects (a ZulipError for a too large file) past `maxBytes`. */
  stage(source: Readable, maxBytes: number): Promise<StagedBytes>;
}

/**
 * The POST paths whose multipart bodies are streamed to disk under the upload limit rather than
 * `--max-body-bytes` (uploads, avatars, custom emoji); an entry ending in `/` is a prefix. The
 * reverse proxy configs of `parley print-config` allow large bodies on exactly these.
 */
export const UPLOAD_PATHS: readonly string[] = ['/api/v1/user_uploads', '/json/user_uploads', '/api/v1/users/me/avatar', '/api/v1/realm/emoji/'];

/** Whether `path` is one of `UPLOAD_PATHS` (or under a prefix entry). */
export function isUploadPath(path: string): boolean {
  // A loop, not `some`: its callback was a closure per POST.
  for (const p of UPLOAD_PATHS) if (p.endsWith('/') ? path.startsWith(p) && path.length > p.length : path === p) return true;
  return false;
}

/** Room for the non-file parts of an upload form: 1 MiB. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
/** File parts beyond this are not even counted: busboy stops (the request is refused anyway). */
const MAX_FILE_PARTS = 16;

/** Whether a Content-Type is multipart/form-data. */
export function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*multipart\/form-data\s*(;|$)/i.test(contentType);
}

/** Reads a multipart upload body (see the module header): its fields and its staged file parts. */
export function readMultipartUpload(
  res: HttpResponse,
  state: ResponseState,
  head: RequestHead,
  route: UploadRoute,
): Promise<{ fields: [string, string][]; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    if (state.aborted) return reject(new RequestAborted());
    const maxBodyBytes = route.maxFileBytes + FORM_OVERHEAD_BYTES;
    const declared = head.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBodyBytes) return reject(route.tooLarge());
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': head.headers['content-type']! },
        defParamCharset: 'utf8',
        limits: { files: MAX_FILE_PARTS, fieldSize: FORM_OVERHEAD_BYTES, fields: 1000 },
      });
    } catch (error) {
      return reject(Errors.badRequest(`Malformed multipart/form-data request body: ${error instanceof Error ? error.message : String(error)}`));
    }
    const fields: [string, string][] = [];
    const files: UploadedFile[] = [];
    const pending: Promise<void>[] = [];
    let extraParts = 0;
    let settled = false;
    let paused = false;
    /** A paused socket must be resumed before answering, or the keep-alive connection hangs. */
    const resumeIfPaused = () => {
      if (paused && !state.aborted) res.resume();
      paused = false;
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      state.onAbort = null;
      resumeIfPaused();
      parser.removeAllListeners();
      parser.on('error', () => {});
      parser.destroy();
      // Whatever was staged (now or later) is garbage.
      void Promise.allSettled(pending).then(() => Promise.all(files.map((f) => f.discard())));
      reject(error);
    };
    state.onAbort = () => fail(new RequestAborted());
    parser.on('field', (name, value) => fields.push([name, value]));
    parser.on('file', (fieldName, stream, info) => {
      // A truncated body errors the part's stream after its consumer may have stopped listening.
      stream.on('error', () => {});
      if (files.length + pending.length > 0) {
        extraParts++;
        stream.resume();
        return;
      }
      pending.push(
        route.stage(stream, route.maxFileBytes).then(
          (staged) => {
            const file: UploadedFile = {
              fieldName, filename: info.filename ?? '', contentType: (info.mimeType ?? '').toLowerCase(),
              sha256: staged.sha256, size: staged.size, commit: staged.commit, discard: staged.discard, read: staged.read,
            };
            files.push(file);
            if (settled) void file.discard();
          },
          (error: unknown) => {
            stream.resume();
            fail(error);
          },
        ),
      );
    });
    parser.on('error', (error: unknown) =>
      fail(Errors.badRequest(`Malformed multipart/form-data request body: ${error instanceof Error ? error.message : String(error)}`)),
    );
    parser.on('close', () => {
      void Promise.all(pending).then(() => {
        if (settled) return;
        settled = true;
        state.onAbort = null;
        resumeIfPaused();
        // Extra file parts only need counting: the endpoint refuses more than one file.
        for (let i = 0; i < extraParts; i++) files.push(EXTRA_PART);
        resolve({ fields, files });
      });
    });
    let received = 0;
    res.onData((chunk, isLast) => {
      if (settled) return;
      received += chunk.byteLength;
      if (received > maxBodyBytes) return fail(route.tooLarge());
      const more = parser.write(Buffer.from(new Uint8Array(chunk)));
      if (isLast) parser.end();
      else if (!more && !paused) {
        paused = true;
        res.pause();
        parser.once('drain', () => {
          if (!settled) resumeIfPaused();
        });
      }
    });
  });
}

/** Stands for a file part beyond the first (drained, never stored). */
const EXTRA_PART: UploadedFile = {
  fieldName: '', filename: '', contentType: '', sha256: '', size: 0,
  commit: () => Promise.reject(new Error('extra upload part')),
  discard: () => Promise.resolve(),
  read: () => Promise.reject(new Error('extra upload part')),
};
