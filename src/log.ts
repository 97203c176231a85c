/**
 * The server's structured log (issue 13 §2): pino, one JSON object per line, or pino-pretty's
 * coloured text on a terminal. Logs go to **stderr**; stdout carries only the start-up banner
 * (demo accounts, `parley listening on http://HOST:PORT`), which scripts and tests parse.
 *
 * The logger is a process-wide singleton so that any module (failed logins in `api/auth.ts`,
 * snapshots in `realm/`) can log without threading a handle through every constructor. Until
 * `configureLogger` is called (the CLI does, in-process tests do not) it writes errors only, so
 * tests stay quiet; child-process tests set `PARLEY_LOG_LEVEL` (warn by default).
 *
 * Per-request cost: JSON lines are written through pino's asynchronous destination (sonic-boom,
 * buffered, flushed at 4 KiB or on exit), so a request line costs one object serialization and no
 * syscall (see `npm run bench`).
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { createRequire } from 'node:module';

/** `--log-format`: `json` (one object per line) or `pretty` (human-readable, pino-pretty). */
export type LogFormat = 'json' | 'pretty';

/**
 * The process-wide logger. Until `configureLogger` (i.e. in in-process tests) only errors are
 * written, synchronously to stderr, as plain `console.error` did before.
 */
export let log: Logger = pino({ level: 'error', base: { pid: process.pid } }, pino.destination({ dest: 2, sync: true }));

let flushDestination: (() => void) | null = null;

/**
 * Replaces the process-wide logger. `format` defaults to `pretty` when stderr is a terminal and
 * `json` otherwise. Returns the new logger. Call once at start-up (the CLI's `serve`).
 */
export function configureLogger(options: { level: LevelWithSilent; format?: LogFormat | undefined }): Logger {
  const format = options.format ?? (process.stderr.isTTY ? 'pretty' : 'json');
  if (format === 'pretty') {
    // pino-pretty in-process (not a worker transport): start-up lines must be visible at once,
    // and a pretty terminal is a development setting where throughput does not matter.
    log = pino({ level: options.level, base: { pid: process.pid } }, prettyStream());
    flushDestination = null;
  } else {
    const destination = pino.destination({ dest: 2, sync: false, minLength: 4096 });
    log = pino({ level: options.level, base: { pid: process.pid } }, destination);
    flushDestination = () => destination.flushSync();
  }
  return log;
}

/**
 * Swaps the process-wide logger for `next` (tests capture log lines this way); returns the previous
 * one, to be passed back when done.
 */
export function replaceLogger(next: Logger): Logger {
  const previous = log;
  log = next;
  return previous;
}

/**
 * A logger at `level` whose JSON lines are parsed into `lines` instead of written anywhere (for
 * tests). Use with `replaceLogger`.
 */
export function collectingLogger(lines: Array<Record<string, unknown>>, level: LevelWithSilent = 'trace'): Logger {
  return pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
}

/** Writes out buffered log lines synchronously (call before `process.exit`). */
export function flushLogger(): void {
  try {
    flushDestination?.();
  } catch {
    // nothing buffered, or stderr is gone: nothing more to do
  }
}

/** pino-pretty writing synchronously to stderr, coloured on a terminal (loaded only when asked for). */
function prettyStream(): NodeJS.WritableStream {
  const PinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return PinoPretty({ destination: 2, sync: true, colorize: process.stderr.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}
