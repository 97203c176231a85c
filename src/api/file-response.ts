/**
 * The answer that serves one uploaded file (Zulip's zerver/views/upload.py `serve_local`, with
 * nginx's part done here): its stored media type, `Content-Disposition` inline only for
 * `INLINE_MIME_TYPES` (HTML, SVG and the like always download: no stored XSS), `nosniff`, a
 * sandboxing CSP, `Cache-Control: private, immutable` (the bytes under a path never change), and
 * single byte ranges (RFC 9110 §14: 206 with `Content-Range`, 416 when unsatisfiable; several
 * ranges are answered with the whole file).
 */
import parseRange from 'range-parser';
import { Errors } from '../errors.js';
import type { Attachment } from '../domain/attachments.js';
import type { ApiResponse } from './registry.js';
import type { UploadServices } from './uploaded-file.js';
import { contentDisposition, INLINE_MIME_TYPES } from './upload-names.js';

/** Serves attachment `a` or one of its thumbnails (bytes from `uploads`), honouring a `Range` header. */
export async function fileResponse(uploads: UploadServices, a: Pick<Attachment, 'sha256' | 'contentType' | 'name'>, rangeHeader: string | undefined, download = false): Promise<ApiResponse> {
  const size = await uploads.size(a.sha256);
  if (size === undefined) return { status: 404, body: Errors.fileNotFound().toBody() };
  const inline = !download && INLINE_MIME_TYPES.has(a.contentType);
  const headers: Record<string, string> = {
    'Content-Type': a.contentType.startsWith('text/') ? `${a.contentType}; charset=utf-8` : a.contentType,
    'Content-Disposition': contentDisposition(a.name, !inline),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'Cache-Control': 'private, immutable',
    'Accept-Ranges': 'bytes',
  };
  let start = 0;
  let end = size - 1;
  let status = 200;
  if (rangeHeader !== undefined && size > 0) {
    const ranges = parseRange(size, rangeHeader, { combine: true });
    if (ranges === -1) {
      // An empty file body: sent with `Content-Length: 0` (a bodiless JSON answer would have none).
      const empty = { start: 0, length: 0, open: () => Promise.reject(new Error('empty body')) };
      return { status: 416, headers: { ...headers, 'Content-Range': `bytes */${size}` }, body: null, file: empty };
    }
    if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
      start = ranges[0]!.start;
      end = ranges[0]!.end;
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
  }
  const length = size === 0 ? 0 : end - start + 1;
  return {
    status,
    headers,
    body: null,
    file: {
      start,
      length,
      open: async () => {
        const stream = await uploads.open(a.sha256, start, Math.max(start, end));
        if (stream === undefined) throw Errors.fileNotFound();
        return stream;
      },
    },
  };
}
