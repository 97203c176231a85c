/**
 * End-to-end support: runs the *built* server (`dist/cli.js`) as a child process, the way a user
 * or CI starts it, and talks to it over real HTTP.
 *
 * - `startServer()` spawns `node dist/cli.js serve --host 127.0.0.1 --port 0 ...` on a temporary
 *   data directory, waits for the `parley listening on http://HOST:PORT` line and returns its URL.
 *   The child is killed and the temporary directory removed at teardown (tap's `t.teardown`, or
 *   the caller's own), and as a last resort when this process exits.
 * - `runCli()` runs a one-shot CLI command (`create-realm`, `--help`, ...) and collects its output.
 * - `fetchApiKey()` and `api()` are minimal Zulip API clients on Node's fetch with Basic auth and
 *   `application/x-www-form-urlencoded` bodies (the encoding python-zulip-api uses).
 *
 * This module does not import tap, so the benchmark harness (bench/) uses it too.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (the directory holding package.json). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built CLI entry point. */
export const CLI_PATH = join(REPO_ROOT, 'dist', 'cli.js');
/** Password given to `--demo-password` by default. */
export const DEFAULT_DEMO_PASSWORD = 'parley-e2e-password';
/** The line the server prints when it accepts connections; group 1 is the URL. */
export const LISTENING_LINE = /^parley listening on (http:\/\/[^\s:]+:(\d+))$/;

/** Anything with tap's `teardown` (a tap `Test`), so helpers can register their own cleanup. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

/** How a child process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running server child process. */
export interface ServerProcess {
  /** Base URL from the listening line, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  readonly child: ChildProcess;
  /** The child's pid. */
  readonly pid: number;
  /** The data directory the server runs on. */
  readonly dataDir: string;
  /** Everything the child printed on stdout so far. */
  stdout(): string;
  /** Everything the child printed on stderr so far. */
  stderr(): string;
  /** Resolves when the child has exited (immediately if it already has). */
  exited(): Promise<ExitStatus>;
  /**
   * Sends `signal` (default SIGTERM) and waits for the exit. If the child is still alive after
   * `timeoutMs` (default 15 s) it is SIGKILLed and the promise rejects. Idempotent once exited.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitStatus>;
}

/** Options of `startServer`. */
export interface StartServerOptions {
  /** Registers cleanup (kill the child, remove the temporary data dir) — pass tap's `t`. */
  t?: Teardown;
  /**
   * Data directory to use. When omitted a fresh temporary one is created and removed at teardown
   * (after the child is killed) or, at the latest, when this process exits. A given directory is
   * never removed here (use `makeTempDir(t)` for one that outlives a restart).
   */
  dataDir?: string;
  /** `--demo-password` (default DEFAULT_DEMO_PASSWORD); `null` passes none. */
  demoPassword?: string | null;
  /** Pass `--no-demo`. */
  noDemo?: boolean;
  /** Pass `--bench` (serves `GET /api/v1/bench/ceiling`). */
  bench?: boolean;
  /** Extra CLI arguments after `serve`. */
  args?: readonly string[];
  /** Node options before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: readonly string[];
  /** Another build's `cli.js` instead of dist/cli.js (before/after comparisons in bench/). */
  cliPath?: string;
  /** Extra environment variables (PARLEY_* from the parent environment are removed first). */
  env?: Record<string, string>;
  /** How long to wait for the listening line (default 20 s). */
  timeoutMs?: number;
}

/** Children started here and not yet exited: killed with SIGKILL if this process exits. */
const liveChildren = new Set<ChildProcess>();
/** Temporary data directories created by `startServer`: removed when this process exits. */
const ownedDirs = new Set<string>();
process.once('exit', () => {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of ownedDirs) rmSync(dir, { recursive: true, force: true });
});

let built = false;

/**
 * Builds the server (`npm run build`) if `dist/cli.js` does not exist yet, once per process.
 * CI builds before testing; this makes a single test file runnable from a clean checkout.
 * Throws with the compiler output when the build fails.
 */
export function ensureBuilt(): void {
  if (built || existsSync(CLI_PATH)) {
    built = true;
    return;
  }
  const result = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0 || !existsSync(CLI_PATH)) {
    throw new Error(`npm run build failed (status ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  built = true;
}

/**
 * Creates an empty temporary directory (for a data dir that outlives a server restart) and removes
 * it at `t`'s teardown, or at the latest when this process exits. Returns its absolute path.
 */
export function makeTempDir(t?: Teardown, prefix = 'parley-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  ownedDirs.add(dir);
  t?.teardown(() => {
    rmSync(dir, { recursive: true, force: true });
    ownedDirs.delete(dir);
  });
  return dir;
}

/**
 * The environment for a child: the parent's, plus `extra`, minus any PARLEY_* setting and minus
 * the test runner's injections (tap puts its process-info loader in NODE_OPTIONS, which would load
 * into every server child and slow its start-up several-fold), so the server runs as in production.
 */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('PARLEY_') || key.startsWith('TAP') || key.startsWith('_TAPJS_') || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  // Request logs stay out of test output (a test that reads the log passes PARLEY_LOG_LEVEL).
  return { ...env, PARLEY_LOG_LEVEL: 'warn', ...extra };
}

/** Tracks a child's exit as a promise, registered before anything can make it exit. */
function exitPromise(child: ChildProcess): Promise<ExitStatus> {
  return new Promise((resolveExit) => {
    child.once('exit', (code, signal) => {
      liveChildren.delete(child);
      resolveExit({ code, signal });
    });
  });
}

/**
 * Spawns `node dist/cli.js serve --host 127.0.0.1 --port 0 --data-dir DIR --demo-password PW ...`
 * and resolves once it printed its listening line. Rejects (after killing the child) if the line
 * does not come within `timeoutMs` or the child exits first; the error carries the child's stdout
 * and stderr.
 */
export async function startServer(options: StartServerOptions = {}): Promise<ServerProcess> {
  ensureBuilt();
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'parley-data-'));
  if (ownsDataDir) ownedDirs.add(dataDir);
  const args = [options.cliPath ?? CLI_PATH, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir];
  const demoPassword = options.demoPassword === undefined ? DEFAULT_DEMO_PASSWORD : options.demoPassword;
  if (demoPassword !== null) args.push('--demo-password', demoPassword);
  if (options.noDemo) args.push('--no-demo');
  if (options.bench) args.push('--bench');
  args.push(...(options.args ?? []));

  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], {
    cwd: REPO_ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  const exited = exitPromise(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (err += chunk));

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<ExitStatus> => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    const first = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (first === 'timeout') {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`server pid ${child.pid} did not exit within ${timeoutMs} ms of ${signal}; killed.\nstderr:\n${err}`);
    }
    return first;
  };

  const cleanup = async () => {
    try {
      await stop('SIGKILL');
    } finally {
      if (ownsDataDir) {
        rmSync(dataDir, { recursive: true, force: true });
        ownedDirs.delete(dataDir);
      }
    }
  };
  options.t?.teardown(cleanup);

  const timeoutMs = options.timeoutMs ?? 20_000;
  let url: string;
  try {
    url = await new Promise<string>((resolveUrl, reject) => {
      let pending = '';
      const timer = setTimeout(
        () => reject(new Error(`server did not print its listening line within ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.stdout!.on('data', (chunk: string) => {
        out += chunk;
        pending += chunk;
        let newline: number;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline).replace(/\r$/, '');
          pending = pending.slice(newline + 1);
          const m = LISTENING_LINE.exec(line);
          if (m) {
            clearTimeout(timer);
            resolveUrl(m[1]!);
          }
        }
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`server exited before listening (code ${code}, signal ${signal})`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } catch (error) {
    await cleanup().catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- server stdout ---\n${out}\n--- server stderr ---\n${err}`);
  }
  const port = Number(new URL(url).port);
  return {
    url,
    port,
    child,
    pid: child.pid!,
    dataDir,
    stdout: () => out,
    stderr: () => err,
    exited: () => exited,
    stop,
  };
}

/** Output of a finished CLI run. */
export interface CliResult extends ExitStatus {
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/cli.js ...args` to completion (PARLEY_* variables of this process are not
 * passed on; give them in `env`). Kills it after `timeoutMs` (default 30 s).
 */
export async function runCli(args: readonly string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<CliResult> {
  ensureBuilt();
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  const exited = exitPromise(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const status = await exited;
  clearTimeout(timer);
  // 'exit' can precede the last 'data' events: wait for the streams to finish.
  await Promise.all([child.stdout!, child.stderr!].map((s) => (s.readableEnded ? null : new Promise((r) => s.once('close', r)))));
  return { ...status, stdout, stderr };
}

/** A decoded API reply. */
export interface ApiReply<T = Record<string, unknown>> {
  status: number;
  /** The parsed JSON body (`{}` plus `_raw` when the body was not JSON). */
  body: T & { result?: string; msg?: string; code?: string };
  headers: Headers;
}

/** Encodes params Zulip-style: strings as is, numbers/booleans as text, arrays/objects as JSON. */
export function encodeParams(params: Record<string, unknown>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    form.append(key, typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return form;
}

/** The `Authorization` header value for HTTP Basic `email:key`. */
export function basicAuth(email: string, key: string): string {
  return `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;
}

async function decode<T>(response: Response): Promise<ApiReply<T>> {
  const text = await response.text();
  let body: ApiReply<T>['body'];
  try {
    body = JSON.parse(text) as ApiReply<T>['body'];
  } catch {
    body = { _raw: text } as unknown as ApiReply<T>['body'];
  }
  return { status: response.status, body, headers: response.headers };
}

/**
 * Calls the Zulip API: `method` `url/api/v1/<path>` with HTTP Basic `email:key` (no auth header
 * when `email` is null). GET/DELETE/HEAD send `params` in the query string; other methods send
 * them as an `application/x-www-form-urlencoded` body. Resolves with status and parsed JSON;
 * rejects only on network errors (e.g. the server died).
 */
export async function api<T = Record<string, unknown>>(
  url: string,
  email: string | null,
  key: string | null,
  method: string,
  path: string,
  params: Record<string, unknown> = {},
): Promise<ApiReply<T>> {
  const target = new URL(`${url}/api/v1/${path.replace(/^\//, '')}`);
  const headers: Record<string, string> = {};
  if (email !== null) headers.authorization = basicAuth(email, key ?? '');
  const init: RequestInit = { method, headers };
  const form = encodeParams(params);
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE') {
    for (const [k, v] of form) target.searchParams.append(k, v);
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    init.body = form.toString();
  }
  return decode<T>(await fetch(target, init));
}

/**
 * `POST /fetch_api_key` with `username`/`password`; returns `{api_key, email, user_id}`. Throws
 * with the status and body when the login fails.
 */
export async function fetchApiKey(url: string, email: string, password: string): Promise<{ api_key: string; email: string; user_id: number }> {
  const reply = await api<{ api_key: string; email: string; user_id: number }>(url, null, null, 'POST', 'fetch_api_key', {
    username: email,
    password,
  });
  if (reply.status !== 200 || reply.body.result !== 'success') {
    throw new Error(`fetch_api_key for ${email} failed: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return reply.body;
}

/** Resident memory of a process, MiB, from /proc/<pid>/status (Linux). */
export interface ProcessMemory {
  /** VmRSS: everything resident. */
  rssMiB: number;
  /** RssAnon: heap, stacks, anonymous mappings (what the JS heap and native allocations cost). */
  anonMiB: number;
  /** RssFile: resident pages of mapped files (e.g. LMDB's memory map; reclaimable page cache). */
  fileMiB: number;
}

/** Reads a live process's resident memory; undefined when /proc is unavailable or it exited. */
export function processMemory(pid: number): ProcessMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  const rssMiB = kib('VmRSS');
  if (!Number.isFinite(rssMiB)) return undefined;
  return { rssMiB, anonMiB: kib('RssAnon'), fileMiB: kib('RssFile') };
}

/** Reads the resident set size (VmRSS) of a live process in MiB; undefined where unavailable. */
export function rssMiB(pid: number): number | undefined {
  return processMemory(pid)?.rssMiB;
}
