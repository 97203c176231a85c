/**
 * Exclusive listening for every uWebSockets.js app parley starts (the API port, the metrics port).
 *
 * uWS's default `listen` sets SO_REUSEPORT, so a second server on a busy port would "succeed" and
 * the kernel would split connections between two processes and two stores. The
 * (host, port, options, cb) form with `LIBUS_LISTEN_EXCLUSIVE_PORT` exists at runtime but is
 * missing from the typings (the enum is declared but not exported).
 */
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** uWS's ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/** Listens on `host:port` without SO_REUSEPORT; `cb` gets the listen socket, or false on failure. */
export function listenExclusive(
  app: TemplatedApp,
  host: string,
  port: number,
  cb: (listenSocket: us_listen_socket | false) => void,
): void {
  const listen = app.listen as unknown as (
    host: string,
    port: number,
    options: number,
    cb: (listenSocket: us_listen_socket | false) => void,
  ) => void;
  listen.call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, cb);
}
