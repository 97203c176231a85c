/**
 * A start that never strands anyone (issue 13 §4), through the built CLI as child processes:
 * --version, port range, a busy port (named with its cause, and the demo — with its generated
 * password — not created until a later start can bind), the 0600 password file, subdomain rules,
 * create-user's password rule, an unwritable data directory, an unsupported Node.js.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { CLI_PATH, ensureBuilt, fetchApiKey, makeTempDir, REPO_ROOT, runCli, startServer } from '../support/server-process.js';

/** A plain TCP listener holding a port on 127.0.0.1 for the test's lifetime. */
async function occupyPort(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen({ host: '127.0.0.1', port: 0, exclusive: true }, resolve));
  t.teardown(() => new Promise((resolve) => blocker.close(resolve)));
  return (blocker.address() as { port: number }).port;
}

t.test('--version prints the package version', async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const args of [['--version'], ['version']]) {
    const r = await runCli(args);
    t.equal(r.code, 0);
    t.equal(r.stdout, `parley ${pkg.version}\n`);
    t.equal(r.stderr, '');
  }
});

t.test('ports outside 0-65535 are refused (exit 2), from flags and the environment', async (t) => {
  const [flag, env, metrics, negative] = await Promise.all([
    runCli(['serve', '--port', '99999']),
    runCli(['serve'], { PARLEY_PORT: '65536' }),
    runCli(['serve', '--metrics-port', '70000']),
    runCli(['serve', '--port', '-1']),
  ]);
  t.equal(flag.code, 2);
  t.match(flag.stderr, /--port must be a TCP port number from 0 to 65535, got '99999'/);
  t.notMatch(flag.stdout, /listening/);
  t.equal(env.code, 2);
  t.match(env.stderr, /--port must be a TCP port number from 0 to 65535, got '65536'/);
  t.equal(metrics.code, 2);
  t.match(metrics.stderr, /--metrics-port must be a TCP port number/);
  t.equal(negative.code, 2);
});

t.test('a busy port: the error names host, port and cause; the demo waits for a start that binds', async (t) => {
  const port = await occupyPort(t);
  const dataDir = makeTempDir(t);
  const busy = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir], {}, 20_000);
  t.equal(busy.code, 1);
  t.match(busy.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE \\(address already in use`));
  t.notMatch(busy.stdout, /created the demo organization|password/, 'no demo password printed for a start that failed');
  t.notOk(existsSync(join(dataDir, 'demo-password.txt')), 'no password file either');

  // The next start on a free port creates the demo then, and its password is usable.
  const server = await startServer({ t, dataDir, demoPassword: null });
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
  const server = await startServer({ t });
  t.notOk(existsSync(join(server.dataDir, 'demo-password.txt')));
  t.notMatch(server.stdout(), /also in/);
});

t.test('a busy --metrics-port is named too, and the data directory is released', async (t) => {
  const port = await occupyPort(t);
  const dataDir = makeTempDir(t);
  const r = await runCli(['serve', '--port', '0', '--metrics-port', String(port), '--data-dir', dataDir], {}, 20_000);
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
  const server = await startServer({ t, dataDir, noDemo: true, demoPassword: null, args: ['--metrics-port', '0'] });
  const metricsUrl = /^parley metrics on (\S+)\/metrics$/m.exec(server.stdout())![1]!;
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const realms = [...text.matchAll(/^parley_realm_users\{realm="([^"]*)"\}/gm)].map((m) => m[1]).sort();
  t.same(realms, ['eng-1', 'team']);
});

t.test('create-user applies the API password rule', async (t) => {
  const dataDir = makeTempDir(t);
  t.equal((await runCli(['create-realm', '--name', 'Acme', '--data-dir', dataDir])).code, 0);
  for (const weak of ['abc', 'password', '123456789', 'x'.repeat(101)]) {
    const r = await runCli(['create-user', '--email', 'ann@acme.com', '--full-name', 'Ann', '--password', weak, '--data-dir', dataDir]);
    t.equal(r.code, 1, `'${weak.slice(0, 12)}' refused`);
    t.match(r.stderr, /The password is too weak/);
  }
  const strong = await runCli(['create-user', '--email', 'ann@acme.com', '--full-name', 'Ann', '--password', 'correct horse battery', '--data-dir', dataDir]);
  t.equal(strong.code, 0, strong.stderr);
  t.match(strong.stdout, /created user ann@acme\.com \(id \d+\)/, 'the weak attempts created nothing: the first real user is created now');
});

t.test('an unwritable data directory is named', async (t) => {
  const parent = makeTempDir(t);
  const dataDir = join(parent, 'data');
  const asRoot = process.getuid?.() === 0;
  // Root ignores permission bits: run the server as `nobody` then; otherwise make the directory read-only.
  if (asRoot) chmodSync(parent, 0o755);
  else chmodSync(parent, 0o555);
  t.teardown(() => chmodSync(parent, 0o755));
  ensureBuilt();
  // Through env(1) without NODE_OPTIONS: the test runner injects its process-info hook into
  // children, and that hook cannot write its report as `nobody`.
  const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, CLI_PATH, 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: '/',
    env: { PATH: process.env.PATH ?? '', PARLEY_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot && { uid: 65534, gid: 65534 }),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise((r) => setTimeout(r, 50));
  t.equal(code, 1);
  t.match(stderr, new RegExp(`parley: the data directory ${dataDir.replace(/[.]/g, '\\.')} is not writable \\((EACCES|EROFS|EPERM)\\)`));
  t.equal(stderr.trim().split('\n').length, 1, `one line, no stack trace: ${stderr}`);
});

t.test('an unsupported Node.js is refused with one line before uWebSockets.js loads', async (t) => {
  ensureBuilt();
  // Pretend to be Node 24 (ABI 137), for which uws-pack ships no binary.
  const pretend = "data:text/javascript,Object.defineProperty(process.versions,'modules',{value:'137'});Object.defineProperty(process.versions,'node',{value:'24.1.0'});";
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', pretend, CLI_PATH, ...args], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  const r = await run(['serve', '--port', '0', '--data-dir', makeTempDir(t)]);
  t.equal(r.code, 1);
  t.match(r.stderr, /^parley: Node\.js 24\.1\.0 \(ABI 137\) on \w+\/\w+ is not supported: uWebSockets\.js ships binaries only for Node\.js 20, 21, 22/);
  t.equal(r.stderr.trim().split('\n').length, 1, 'one line');
  t.equal(r.stdout, '');
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  t.equal(pkg.engines.node, '^20.0.0 || ^21.0.0 || ^22.0.0', 'engines says the same');
});
