/**
 * Environment uWebSockets.js reads once, when its native module loads: imported by `server.ts`
 * BEFORE `uWebSockets.js` (ES modules evaluate imports in order), so every way of starting the
 * server — the CLI, `startServer` in tests, the benches — gets it.
 *
 * `UWS_HTTP_MAX_HEADERS_SIZE`: the largest request head (request line + headers) in bytes. uWS's
 * default, 4 KiB, answers an HTML 431 to a long search narrow in a GET query string; parley allows
 * 16 KiB (nginx's `large_client_header_buffers` default is 8 KiB per line). A value already set in
 * the environment is kept.
 */

/** The request-head limit parley sets when the environment has none (bytes). */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_REQUEST_HEAD_BYTES);
