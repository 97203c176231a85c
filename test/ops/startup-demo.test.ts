/**
 * Start-up with a server process (issue 13 §4): a busy port is named with its cause and the demo
 * (with its generated password, kept in a 0600 file) waits for a start that binds; a busy
 * --metrics-port; subdomain rules checked by create-realm and visible in the served realms.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { fetchApiKey, makeTempDir, runCli, startServer } from '../support/server-process.js';

/** Start-up can take tens of seconds on a loaded shared machine; a real hang still fails. */
const START_TIMEOUT_MS = 60_000;

/** A plain TCP listener holding a port on 127.0.0.1 for the test's lifetime. */
async function occupyPort(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen({ host: '127.0.0.1', port: 0, exclusive: true }, resolve));
  t.teardown(() => new Promise((resolve) => blocker.close(resolve)));
  return (blocker.address() as { port: number }).port;
}

t.test('a busy port: the error names host, port and cause; the demo waits for a start that binds', async (t) => {
  const port = await occupyPort(t);
  const dataDir = makeTempDir(t);
  const busy = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir], {}, 60_000);
  t.equal(busy.code, 1);
  t.match(busy.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE \\(address already in use`));
  t.notMatch(busy.stdout, /created the demo organization|password/, 'no demo password printed for a start that failed');
  t.notOk(existsSync(join(dataDir, 'demo-password.txt')), 'no password file either');

  // The next start on a free port creates the demo then, and its password is usable.
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir, demoPassword: null });
  const printed = /accounts \(password: (\S+)\):/.exec(server.stdout())?.[1];
  t.ok(printed, 'the generated password is printed');
  const file = join(dataDir, 'demo-password.txt');
  t.match(server.stdout(), new RegExp(`the generated password is also in ${file.replace(/[.]/g, '\\.')} `));
  t.equal(readFileSync(file, 'utf8'), `${printed}\n`, 'the file holds the printed password');
  t.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only');
  const login = await fetchApiKey(server.url, 'iago@zulip.com', printed!);
  t.equal(login.email, 'iago@zulip.com');
});

t.test('a chosen demo password is not written to a file', async (t) => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t });
  t.notOk(existsSync(join(server.dataDir, 'demo-password.txt')));
  t.notMatch(server.stdout(), /also in/);
});

t.test('a busy --metrics-port is named too, and the data directory is released', async (t) => {
  const port = await occupyPort(t);
  const dataDir = makeTempDir(t);
  const r = await runCli(['serve', '--port', '0', '--metrics-port', String(port), '--data-dir', dataDir], {}, 60_000);
  t.equal(r.code, 1);
  t.match(r.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(--metrics-port\\): EADDRINUSE`));
  t.notOk(existsSync(join(dataDir, 'parley.lock')), 'lock released');
  t.notOk(existsSync(join(dataDir, 'demo-password.txt')), 'demo not created');
});

t.test('create-realm validates subdomains as Zulip does', async (t) => {
  const dataDir = makeTempDir(t);
  const cases: Array<[string, RegExp]> = [
    ['www', /Subdomain unavailable/],
    ['teams', /Subdomain unavailable/], // reserved name + s
    ['ab', /length 3 or greater/],
    ['-abc', /cannot start or end with a '-'/],
    ['abc_d', /can only have lowercase letters, numbers, and '-'s/],
    ['a'.repeat(41), /at most 40 characters/],
  ];
  for (const [subdomain, message] of cases) {
    const r = await runCli(['create-realm', '--name', 'X', '--subdomain', subdomain, '--data-dir', dataDir]);
    t.equal(r.code, 1, `${subdomain} refused`);
    t.match(r.stderr, message, subdomain);
  }
  t.same(readdirSync(dataDir).filter((f) => f === 'data.mdb').length <= 1, true);
  const ok = await runCli(['create-realm', '--name', 'Eng', '--subdomain', 'eng-1', '--data-dir', dataDir]);
  t.equal(ok.code, 0, ok.stderr);
  const again = await runCli(['create-realm', '--name', 'Eng2', '--subdomain', 'eng-1', '--data-dir', dataDir]);
  t.equal(again.code, 1);
  t.match(again.stderr, /Subdomain unavailable/);
  const reserved = await runCli(['create-realm', '--name', 'Team', '--subdomain', 'team', '--allow-reserved-subdomain', '--data-dir', dataDir]);
  t.equal(reserved.code, 0, '--allow-reserved-subdomain overrides the reserved list');
  // Only the two valid realms exist.
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS, t, dataDir, noDemo: true, demoPassword: null, args: ['--metrics-port', '0'] });
  const metricsUrl = /^parley metrics on (\S+)\/metrics$/m.exec(server.stdout())![1]!;
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const realms = [...text.matchAll(/^parley_realm_users\{realm="([^"]*)"\}/gm)].map((m) => m[1]).sort();
  t.same(realms, ['eng-1', 'team']);
});

