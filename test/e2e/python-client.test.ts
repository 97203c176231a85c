/**
 * The real, unmodified python-zulip-api (`zulip.Client`) against a real server process.
 *
 * Runs test/e2e/python/zulip_client_check.py (one "ok NAME" / "FAIL NAME: detail" line per check,
 * then "SUMMARY N passed, M failed") against `dist/cli.js serve` on a temporary demo store and
 * turns each line into a tap assertion. python-zulip-api is not vendored: the test looks for a
 * checkout at $PARLEY_PYTHON_ZULIP_API (default /tmp/python-zulip-api; the importable package is
 * its `zulip/` subdirectory) and for a Python 3 that can import `requests` (Debian:
 * `apt-get install python3-requests python3-distro python3-typing-extensions`). $PARLEY_PYTHON
 * names the interpreter; otherwise `python3` on PATH, then /usr/bin/python3, are tried. When none
 * works the test is skipped with the reason, so machines without the checkout still pass.
 */
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../support/server-process.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, 'python', 'zulip_client_check.py');
const CHECKOUT = process.env.PARLEY_PYTHON_ZULIP_API || '/tmp/python-zulip-api';
/** The directory holding the `zulip` package (the repository's `zulip/` subdirectory). */
const PACKAGE_ROOT = existsSync(join(CHECKOUT, 'zulip', 'zulip', '__init__.py')) ? join(CHECKOUT, 'zulip') : CHECKOUT;
const PASSWORD = 'python-client-e2e';
/** Upper bound for the whole script (it bounds each step itself; this catches a wedged process). */
const SCRIPT_TIMEOUT_MS = 90_000;

function pythonEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONPATH: PACKAGE_ROOT, PYTHONDONTWRITEBYTECODE: '1' };
  // Keep the client off any proxy: it must talk to 127.0.0.1 directly.
  for (const key of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY']) delete env[key];
  env.NO_PROXY = env.no_proxy = '127.0.0.1,localhost';
  return env;
}

/** The first interpreter that imports `requests` and `zulip`, or the reasons none did. */
function findPython(): { python: string } | { reason: string } {
  const candidates = [process.env.PARLEY_PYTHON, 'python3', '/usr/bin/python3'].filter(
    (c, i, all): c is string => !!c && all.indexOf(c) === i,
  );
  const reasons: string[] = [];
  for (const python of candidates) {
    const probe = spawnSync(python, ['-c', 'import requests, zulip; print(zulip.__file__)'], {
      env: pythonEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    if (probe.error) {
      reasons.push(`${python}: ${probe.error.message}`);
      continue;
    }
    if (probe.status === 0) return { python };
    const lastLine = probe.stderr.trim().split('\n').pop() ?? `exit ${probe.status}`;
    reasons.push(`${python}: ${lastLine}`);
  }
  return {
    reason:
      `no python3 that imports requests and zulip (python-zulip-api checkout: ${CHECKOUT}; ` +
      `set PARLEY_PYTHON_ZULIP_API / PARLEY_PYTHON): ${reasons.join('; ')}`,
  };
}

const found = findPython();
if ('reason' in found) {
  t.skip(`python-zulip-api end-to-end: ${found.reason}`, () => {});
} else {
  t.test('python-zulip-api against a real parley process', async (t) => {
    const server = await startServer({ t, demoPassword: PASSWORD });
    const child = spawn(found.python, [SCRIPT, server.url, PASSWORD], {
      env: pythonEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), SCRIPT_TIMEOUT_MS);
    t.teardown(() => {
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(timer);

    const lines = stdout.split('\n').filter((line) => line.length > 0);
    let checks = 0;
    for (const line of lines) {
      const ok = /^ok (.*)$/.exec(line);
      const fail = /^FAIL ([^:]*): ?(.*)$/.exec(line);
      if (ok) {
        checks++;
        t.pass(ok[1]!);
      } else if (fail) {
        checks++;
        t.fail(fail[1]!, { detail: fail[2], serverStderr: server.stderr().slice(-2000) });
      }
    }
    t.ok(checks >= 20, `the script ran its checks (${checks} reported)`, { stdout, stderr });
    t.match(stdout, /^SUMMARY \d+ passed, 0 failed$/m, 'the script reports no failure', { stderr });
    t.equal(signal, null, `the script finished within ${SCRIPT_TIMEOUT_MS / 1000} s`);
    t.equal(code, 0, 'the script exits 0', { stderr: stderr.slice(-4000) });
  });
}
