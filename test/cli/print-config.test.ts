/**
 * `parley print-config systemd|nginx|caddy` (src/cli/print-config.ts, README "Running in
 * production"): the hardened unit passes `systemd-analyze verify` (where systemd-analyze exists),
 * the nginx site passes `nginx -t` and the Caddyfile `caddy adapt --validate` (where installed),
 * and bad input is a usage error (exit 2). `--external-url`/`--trusted-proxies` errors of
 * `serve` are refused the same way before anything starts.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONFIG, parseConfig } from '../../src/config.js';
import { PRINT_CONFIG_OPTIONS, printConfig as printFor, PROXY_READ_TIMEOUT_SECONDS } from '../../src/cli/print-config.js';

/** `parley print-config ARGS` in-process: parsed as cli.ts does, the printed text returned. */
function printConfig(argv: string[], env: NodeJS.ProcessEnv): string {
  const { config, rest, extra } = parseConfig(argv, env, PRINT_CONFIG_OPTIONS);
  return printFor(rest, { ...config, dataDirIsDefault: config.dataDir === DEFAULT_CONFIG.dataDir }, extra);
}
import { REPO_ROOT, runCli } from '../support/server-process.js';
import { findBinary, findNginx, selfSignedCertificate, tempDir, testNginxConf, writeNginxConf } from '../support/nginx.js';

const URL_ARGS = ['--external-url', 'https://chat.example.com'];

/** Runs `systemd-analyze verify` on `unit` saved as parley.service; status and the lines about it. */
function verifyUnit(systemdAnalyze: string, dir: string, unit: string): { status: number | null; problems: string[] } {
  const path = join(dir, 'parley.service');
  writeFileSync(path, unit);
  const r = spawnSync(systemdAnalyze, ['verify', path], { encoding: 'utf8', timeout: 60_000 });
  // Warnings (unknown keys, bad values) leave the status 0: count every line about our unit.
  const problems = `${r.stdout}${r.stderr}`.split('\n').filter((line) => line.includes('parley.service'));
  return { status: r.status, problems };
}

t.test('systemd: a hardened unit that systemd-analyze verify accepts', async (t) => {
  const unit = printConfig(['systemd', ...URL_ARGS], {});
  for (const line of [
    'User=parley', 'Group=parley', 'NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes',
    'ReadWritePaths=/var/lib/parley', 'StateDirectory=parley', 'Restart=on-failure', 'KillSignal=SIGTERM',
    'Environment=PARLEY_EXTERNAL_URL=https://chat.example.com', 'Environment=PARLEY_DATA_DIR=/var/lib/parley',
    'Environment=PARLEY_TRUSTED_PROXIES=127.0.0.0/8,::1', 'WantedBy=multi-user.target',
  ]) {
    t.match(unit, new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'), line);
  }
  t.match(unit, new RegExp(`^ExecStart=${process.execPath.replace(/[.]/g, '\\.')} \\S+/dist/cli\\.js serve --no-demo$`, 'm'));
  t.notMatch(unit, /MemoryDenyWriteExecute/, "V8's JIT needs W+X pages");

  const custom = printConfig(['systemd', ...URL_ARGS, '--data-dir', '/srv/parley-data', '--user', 'chat', '--port', '8000', '--install-dir', '/opt/parley'], {});
  t.match(custom, /^ReadWritePaths=\/srv\/parley-data$/m, 'ReadWritePaths is the data directory');
  t.match(custom, /^Environment=PARLEY_DATA_DIR=\/srv\/parley-data$/m);
  t.notMatch(custom, /StateDirectory/, 'a chosen directory is the operator\'s to create');
  t.match(custom, /^User=chat$/m);
  t.match(custom, /^Environment=PARLEY_PORT=8000$/m);
  t.match(custom, /^ExecStart=\S+ \/opt\/parley\/dist\/cli\.js serve --no-demo$/m);
  t.match(custom, /^WorkingDirectory=\/opt\/parley$/m);

  const systemdAnalyze = findBinary('systemd-analyze');
  if (systemdAnalyze === undefined) {
    t.comment('SKIP systemd-analyze verify: systemd-analyze is not installed (Debian: apt-get install -y systemd)');
    return;
  }
  const dir = tempDir(t, 'parley-systemd-');
  const ok = verifyUnit(systemdAnalyze, dir, unit);
  t.equal(ok.status, 0, 'systemd-analyze verify exits 0');
  t.same(ok.problems, [], 'and reports nothing about the unit');
  // The check can fail: a unit naming a missing node binary, or with a bad value, is reported.
  const missing = verifyUnit(systemdAnalyze, dir, printConfig(['systemd', ...URL_ARGS, '--node', '/nonexistent/node'], {}));
  t.not(missing.status, 0, 'a missing ExecStart binary fails verify');
  const bad = verifyUnit(systemdAnalyze, dir, unit.replace('ProtectSystem=strict', 'ProtectSystem=bogus'));
  t.not(bad.problems.length, 0, 'a bad value is reported');
});

t.test('systemd: mail settings; the SMTP password stays out of the unit', async (t) => {
  const plain = printConfig(['systemd', ...URL_ARGS], {});
  t.notMatch(plain, /SMTP|EMAIL_FROM/, 'nothing about mail unless configured');
  const unit = printConfig(['systemd', ...URL_ARGS, '--email-from', 'chat@example.com'], { PARLEY_SMTP_URL: 'smtp://mailer:hunter2@mail.example.com:587' });
  t.match(unit, /^Environment=PARLEY_EMAIL_FROM=chat@example\.com$/m);
  t.match(unit, /^EnvironmentFile=\/etc\/parley\/smtp\.env$/m);
  t.match(unit, /PARLEY_SMTP_URL=smtp:\/\/USER:PASSWORD@mail\.example\.com:587/);
  t.notMatch(unit, /hunter2/, 'the password is never printed');
});

t.test('nginx: TLS, forwarded headers, WebSocket upgrade, no buffering, long timeouts; nginx -t accepts it', async (t) => {
  const site = printConfig(['nginx', ...URL_ARGS, '--port', '9991', '--max-body-bytes', '1048576'], {});
  t.match(site, /server_name chat\.example\.com \*\.chat\.example\.com;/, 'subdomain organizations too');
  t.match(site, /listen 443 ssl;/);
  t.match(site, /ssl_certificate\s+\/etc\/letsencrypt\/live\/chat\.example\.com\/fullchain\.pem;/);
  t.match(site, /server 127\.0\.0\.1:9991;/);
  t.match(site, /client_max_body_size 1048576;/, "parley's --max-body-bytes");
  const uploads = /location ~ (\S+) \{\n\s+client_max_body_size 27262976;/.exec(site);
  t.ok(uploads, 'uploads: 25 MiB + 1 MiB');
  const uploadPath = new RegExp(uploads?.[1] ?? '$^');
  for (const path of ['/api/v1/user_uploads', '/json/user_uploads', '/api/v1/users/me/avatar', '/api/v1/realm/emoji/green_tick']) t.match(path, uploadPath, `${path}: the upload limit`);
  for (const path of ['/api/v1/messages', '/api/v1/user_uploads/1/ab/x/y.png', '/api/v1/realm/emoji/', '/api/v1/user_uploadsx']) t.notMatch(path, uploadPath, `${path}: --max-body-bytes`);
  t.match(printConfig(['nginx', ...URL_ARGS, '--max-file-upload-size-mib', '100'], {}), /client_max_body_size 105906176;/, '--max-file-upload-size-mib 100: 101 MiB');
  t.match(site, /proxy_set_header Host \$host;/);
  t.match(site, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
  t.match(site, /proxy_set_header X-Forwarded-Proto \$scheme;/);
  t.match(site, /proxy_set_header Connection \$parley_connection;/);
  t.match(site, /proxy_buffering off;/);
  t.match(site, new RegExp(`proxy_read_timeout ${PROXY_READ_TIMEOUT_SECONDS}s;`));
  t.ok(PROXY_READ_TIMEOUT_SECONDS > 120, 'longer than the 55 s heartbeat and the 120 s socket idle timeout');
  t.match(site, /listen 80;\n\s+listen \[::\]:80;\n\s+server_name [^\n]+\n\s+return 301 https:\/\/\$host\$request_uri;/, 'port 80 redirects');
  const plain = printConfig(['nginx', '--external-url', 'http://chat.example.com'], {});
  t.notMatch(plain, /ssl/, 'an http:// URL gets no TLS');
  t.match(plain, /listen 80;/);
  t.notMatch(plain, /return 301/);

  const tools = findNginx();
  if ('missing' in tools) {
    t.comment(`SKIP nginx -t: ${tools.missing}`);
    return;
  }
  const dir = tempDir(t, 'parley-nginx-t-');
  const tls = selfSignedCertificate(tools.openssl, dir);
  const local = printConfig(['nginx', ...URL_ARGS, '--listen-address', '127.0.0.1', '--tls-cert', tls.certPath, '--tls-key', tls.keyPath], {});
  const check = testNginxConf(tools.nginx, dir, writeNginxConf(dir, local));
  t.equal(check.status, 0, `nginx -t: ${check.output}`);
  const broken = testNginxConf(tools.nginx, dir, writeNginxConf(dir, local.replace('proxy_buffering off;', 'proxy_buffering sideways;')));
  t.not(broken.status, 0, 'nginx -t rejects a broken site (the check can fail)');
});

t.test('caddy: a Caddyfile that caddy adapts', async (t) => {
  const file = printConfig(['caddy', ...URL_ARGS, '--port', '9991'], {});
  t.match(file, /^https:\/\/chat\.example\.com \{$/m);
  t.match(file, /^\treverse_proxy 127\.0\.0\.1:9991 \{$/m);
  t.match(file, /^\t\tflush_interval -1$/m);
  t.match(file, /^\t@uploads path \/api\/v1\/user_uploads \/json\/user_uploads \/api\/v1\/users\/me\/avatar \/api\/v1\/realm\/emoji\/\*$/m);
  t.match(file, /^\trequest_body @uploads \{\n\t\tmax_size 27262976\n\t\}$/m, 'uploads: max_file_upload_size_mib + 1 MiB');
  t.match(file, /^\t@other not path /m);
  t.match(file, /^\trequest_body @other \{\n\t\tmax_size 5242880\n\t\}$/m, 'everything else: --max-body-bytes');
  t.match(printConfig(['caddy', ...URL_ARGS, '--max-file-upload-size-mib', '100'], {}), /^\t\tmax_size 105906176$/m);
  const caddy = findBinary('caddy');
  if (caddy === undefined) {
    t.comment('SKIP caddy adapt: caddy is not installed (Debian: apt-get install -y caddy)');
    return;
  }
  const dir = tempDir(t, 'parley-caddy-');
  const path = join(dir, 'Caddyfile');
  writeFileSync(path, file);
  const r = spawnSync(caddy, ['adapt', '--config', path, '--adapter', 'caddyfile', '--validate'], { encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 0, r.stderr);
  t.notMatch(r.stderr, /not formatted/, 'formatted as caddy fmt would');
  const json = JSON.parse(r.stdout);
  const handlers = JSON.stringify(json.apps.http.servers);
  t.match(handlers, '"handler":"reverse_proxy"');
  t.match(handlers, '"dial":"127.0.0.1:9991"');
  t.match(handlers, '"flush_interval":-1');
  t.match(handlers, '"host":["chat.example.com"]');
  t.match(handlers, '"max_size":27262976', 'caddy reads the upload limit');
  t.match(handlers, '"max_size":5242880');
});

/** A configuration without comment lines and blank runs, for comparing with README's copy. */
const withoutComments = (text: string) =>
  text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\n{3,}/g, '\n\n').trim();

t.test("README's nginx and Caddy blocks are what print-config prints", async (t) => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  for (const [kind, fence] of [['nginx', 'nginx'], ['caddy', 'caddyfile']] as const) {
    const block = new RegExp('```' + fence + '\n([\\s\\S]*?)```').exec(readme)?.[1];
    t.ok(block, `README has a ${fence} block`);
    t.equal(withoutComments(block ?? ''), withoutComments(printConfig([kind, ...URL_ARGS], {})), `${kind} block is current`);
  }
});

t.test('defaults: no --external-url prints the local URL', async (t) => {
  const unit = printConfig(['systemd'], {});
  t.match(unit, new RegExp(`^Environment=PARLEY_EXTERNAL_URL=http://127\\.0\\.0\\.1:${DEFAULT_CONFIG.port}$`, 'm'));
  const env = printConfig(['systemd'], { PARLEY_EXTERNAL_URL: 'https://env.example.org' });
  t.match(env, /^Environment=PARLEY_EXTERNAL_URL=https:\/\/env\.example\.org$/m, 'PARLEY_EXTERNAL_URL is read too');
});

t.test('usage errors exit 2 and print nothing on stdout', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['print-config'], /print-config needs one of systemd, nginx, caddy/],
    [['print-config', 'apache'], /print-config needs one of systemd, nginx, caddy, got 'apache'/],
    [['print-config', 'nginx', 'extra'], /unexpected argument 'extra'/],
    [['print-config', 'nginx', '--external-url', 'ftp://x.example'], /--external-url must start with http:\/\/ or https:\/\//],
    [['print-config', 'nginx', '--external-url', 'https://x.example/chat'], /--external-url must be the bare origin/],
    [['print-config', 'systemd', '--user', 'Bad User'], /--user must be a system user name/],
    [['print-config', 'nginx', '--tls-cert', '/a b.pem'], /--tls-cert must be a path without spaces/],
    [['print-config', 'nginx', '--listen-address', 'example.com'], /--listen-address must be an IP address/],
    [['print-config', 'nginx', '--trusted-proxies', '10.0.0.0/99'], /--trusted-proxies: '10\.0\.0\.0\/99' is not an IP address or CIDR/],
    [['serve', '--external-url', 'chat.example.com'], /--external-url must be an absolute URL/],
    [['serve', '--trusted-proxies', 'nope'], /--trusted-proxies: 'nope' is not an IP address or CIDR/],
  ];
  const results = await Promise.all(cases.map(([args]) => runCli(args, {}, 60_000)));
  for (const [i, [args, message]] of cases.entries()) {
    const r = results[i]!;
    t.equal(r.code, 2, `parley ${args.join(' ')} exits 2`);
    t.match(r.stderr, message, `message for ${args.join(' ')}`);
    t.equal(r.stdout, '', 'nothing printed (and no server started)');
  }
  const printed = await runCli(['print-config', 'caddy', '--external-url', 'https://chat.example.com']);
  t.equal(printed.code, 0);
  t.match(printed.stdout, /^https:\/\/chat\.example\.com \{$/m, 'the CLI prints to stdout');
});
