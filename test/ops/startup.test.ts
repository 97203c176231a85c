/**
 * A start that never strands anyone (issue 13 §4), through the built CLI as child processes:
 * --version, port range, a busy port (named with its cause, and the demo — with its generated
 * password — not created until a later start can bind), the 0600 password file, subdomain rules,
 * create-user's password rule, an unwritable data directory, an unsupported Node.js.
 */
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CLI_PATH, ensureBuilt, makeTempDir, REPO_ROOT, runCli } from '../support/server-process.js';

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
