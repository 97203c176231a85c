/**
 * Writing a file answer (`ApiResponse.file`, e.g. `GET /user_uploads/...`) to uWS: status and
 * headers, then the bytes streamed chunk by chunk with uWS backpressure (`tryEnd` + `onWritable`,
 * uWS's own streaming recipe), so a large file never sits in memory and a slow client never makes
 * the server buffer the whole file. uWS adds `Content-Length` from the total size. A client that
 * goes away stops the stream.
 */
import type { HttpResponse } from 'uWebSockets.js';
import type { ApiResponse } from '../api/registry.js';
import type { FileBody } from '../api/uploaded-file.js';
import type { ResponseState } from './request.js';
import { statusLine } from './response.js';

/** Sends one chunk; resolves true once the whole response is written, false when more is wanted. */
function sendChunk(res: HttpResponse, state: ResponseState, chunk: Uint8Array, total: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (state.aborted) return resolve(true);
    const startOffset = res.getWriteOffset();
    let result: [boolean, boolean] = [false, false];
    res.cork(() => {
      result = res.tryEnd(chunk, total);
    });
    const [ok, done] = result;
    if (done) return resolve(true);
    if (ok) return resolve(false);
    state.onAbort = () => resolve(true);
    res.onWritable((offset) => {
      const [retryOk, retryDone] = res.tryEnd(chunk.subarray(offset - startOffset), total);
      if (retryDone || retryOk) {
        state.onAbort = null;
        resolve(retryDone);
      }
      return retryOk;
    });
  });
}

/**
 * Writes `response` (which has a `file`) unless the client left; HEAD gets the headers and the
 * length only. Resolves when done (or abandoned); rejects only when opening the file fails before
 * anything was written (the caller then answers with an error).
 */
export async function writeFileResponse(res: HttpResponse, state: ResponseState, response: ApiResponse, head: boolean): Promise<void> {
  const file = response.file as FileBody;
  const writeHead = () => {
    res.writeStatus(statusLine(response.status));
    const headers = response.headers ?? {};
    for (const name in headers) res.writeHeader(name, headers[name]!);
  };
  if (head || file.length === 0) {
    if (state.aborted || state.done) return;
    state.done = true;
    res.cork(() => {
      writeHead();
      res.endWithoutBody(file.length);
    });
    return;
  }
  const stream = await file.open();
  if (state.aborted || state.done) {
    stream.destroy();
    return;
  }
  state.done = true;
  res.cork(writeHead);
  let finished = false;
  try {
    for await (const chunk of stream) {
      if (await sendChunk(res, state, chunk, file.length)) {
        finished = true;
        break;
      }
    }
  } finally {
    stream.destroy();
    // The file ended short of its length (or failed): the client must not wait forever.
    if (!finished && !state.aborted) res.close();
  }
}
