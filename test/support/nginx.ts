/**
 * A real nginx (the Debian package) for end-to-end tests: a throw-away self-signed certificate
 * from openssl, and nginx started in the foreground on loopback with a site configuration given
 * by the test (the one `parley print-config nginx` prints). Only what a test needs to run a
 * site is added around it: nginx's main and `http` blocks with paths in a temporary directory.
 *
 * This module does not install anything: `findNginx()` says why a test must skip (.ci/run
 * installs the package when it is missing).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Teardown } from './server-process.js';

/** Directories searched for a binary besides PATH (nginx lives in /usr/sbin on Debian). */
const SBIN = ['/usr/sbin', '/usr/local/sbin', '/sbin'];

/** The absolute path of `name` on PATH or in the sbin directories, or undefined. */
export function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':').filter((d) => d !== ''), ...SBIN];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** nginx and openssl, or the reason a test cannot run. */
export function findNginx(): { nginx: string; openssl: string } | { missing: string } {
  const nginx = findBinary('nginx');
  const openssl = findBinary('openssl');
  if (nginx === undefined) return { missing: 'nginx is not installed (Debian: apt-get install -y nginx; .ci/run does this)' };
  if (openssl === undefined) return { missing: 'openssl is not installed (Debian: apt-get install -y openssl)' };
  return { nginx, openssl };
}

/** A free TCP port on 127.0.0.1 (bound and released at once; good enough for a test). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A self-signed certificate for 127.0.0.1 and localhost, valid one day. */
export interface SelfSigned {
  certPath: string;
  keyPath: string;
  /** The certificate in PEM, for a client's trusted `ca`. */
  certPem: string;
}

/** Creates a P-256 self-signed certificate with openssl in `dir`. Throws with openssl's output on failure. */
export function selfSignedCertificate(openssl: string, dir: string): SelfSigned {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  const r = spawnSync(openssl, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-keyout', keyPath, '-out', certPath, '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`openssl failed (${r.status}): ${r.stderr}`);
  return { certPath, keyPath, certPem: readFileSync(certPath, 'utf8') };
}

/** A running nginx. */
export interface RunningNginx {
  /** nginx's stderr and error log so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/** Writes nginx's main configuration around `site` (an `http`-block snippet) into `dir`; returns its path. */
export function writeNginxConf(dir: string, site: string): string {
  mkdirSync(join(dir, 'temp'), { recursive: true });
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'temp'), 0o777); // nginx workers may run as nobody
  writeFileSync(join(dir, 'parley-site.conf'), site);
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, [
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 128; }',
    'http {',
    `    access_log ${join(dir, 'access.log')};`,
    `    client_body_temp_path ${join(dir, 'temp', 'body')};`,
    `    proxy_temp_path ${join(dir, 'temp', 'proxy')};`,
    `    include ${join(dir, 'parley-site.conf')};`,
    '}',
    '',
  ].join('\n'));
  return conf;
}

/** `nginx -t` on a configuration: status and output. */
export function testNginxConf(nginx: string, dir: string, conf: string): { status: number | null; output: string } {
  const r = spawnSync(nginx, ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', conf], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`; rejects after `timeoutMs`. */
async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts nginx in the foreground (`daemon off`) with `site` and waits until it listens on
 * `port`. Stopped at `t`'s teardown (SIGQUIT: graceful, then SIGKILL after 5 s); its temporary
 * directory is removed then.
 */
export async function startNginx(t: Teardown, nginx: string, dir: string, site: string, port: number): Promise<RunningNginx> {
  const conf = writeNginxConf(dir, site);
  const child = spawn(nginx, ['-p', dir, '-e', join(dir, 'error.log'), '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => {
    let errors = '';
    try {
      errors = readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {
      // not written yet
    }
    return `${stderr}${errors}`;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  t.teardown(stop);
  try {
    await waitForPort(port, child, 15_000);
  } catch (error) {
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${log()}`);
  }
  return { log, stop };
}

/** A temporary directory removed at `t`'s teardown. */
export function tempDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
