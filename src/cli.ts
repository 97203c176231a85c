#!/usr/bin/env node
/**
/**
 * `parley serve | create-realm | create-user | verify | backup | restore | print-config | --version`
 * (README). Options are flags or `PARLEY_*` environment variables (see config.ts). Exit codes: 0 ok,
 * 1 runtime failure, 2 usage error. An unsupported Node.js is refused (exit 1) before anything loads
 * uWebSockets.js.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, DEFAULT_CONFIG, parseConfig, type Config } from './config.js';
import { Role, type RoleCode } from './domain/realm-state.js';
import { subdomainProblem } from './domain/subdomains.js';
import { nodeSupportProblem } from './ops/node-support.js';
import type { RealmRegistry } from './realm/realm-registry.js';
import { PRINT_CONFIG_OPTIONS, PRINT_CONFIG_USAGE, PrintConfigError, printConfig } from './cli/print-config.js';
import { ExternalUrlError } from './realm/realm-urls.js';
import { TrustedProxiesError } from './http/client-ip.js';

/** Errors that are the user's to fix in the command line: message + usage, exit 2. */
const isUsageError = (error: unknown) =>
  error instanceof ConfigError || error instanceof ExternalUrlError || error instanceof TrustedProxiesError || error instanceof PrintConfigError;

const USAGE = `usage:
  parley serve [--host 127.0.0.1] [--port 9991] [--data-dir ./snapshots]
               [--external-url http://127.0.0.1:9991] [--trusted-proxies 127.0.0.0/8,::1]
               [--demo | --no-demo] [--demo-password PW] [--max-body-bytes 5242880]
               [--snapshot-every-records 20000] [--snapshot-every-seconds 60]
               [--snapshot-every-dirty-mib 16] [--bench]
               [--rate-limits on|off] [--min-free-bytes 8388608]
               [--log-level info] [--log-format json|pretty]
               [--metrics-port PORT] [--metrics-host 127.0.0.1] [--metrics-token TOKEN]
               [--smtp-url smtp://user:pass@host:587] [--email-from noreply@HOST]
  parley create-realm --name NAME [--subdomain SUB] [--allow-reserved-subdomain] [--data-dir DIR]
  parley create-user --email EMAIL --full-name NAME [--password PW] [--role owner|admin|moderator|member|guest]
                     [--subdomain SUB] [--data-dir DIR]
  parley verify [--data-dir DIR]      check every checksum of a data directory (exit 1 on damage)
  parley backup --data-dir DIR --out PATH          (also while a server runs on DIR)
  parley restore --from PATH --data-dir NEW_DIR
${PRINT_CONFIG_USAGE}
  parley --version
Every option can also be given as PARLEY_<OPTION> (e.g. PARLEY_PORT=9991).`;

/** `version` of package.json (dist/cli.js → ../package.json). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const ROLES: Record<string, RoleCode> = {
  owner: Role.owner,
  admin: Role.admin,
  administrator: Role.admin,
  moderator: Role.moderator,
  member: Role.member,
  guest: Role.guest,
};

async function serve(config: Config): Promise<void> {
  const { configureLogger, flushLogger } = await import('./log.js');
  const log = configureLogger({ level: config.logLevel, format: config.logFormat });
  const { startServer } = await import('./main.js');
  const server = await startServer(config, { log: (line) => console.log(line), releaseStartupMemory: true });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'stopping', signal }, `${signal} received: finishing in-flight requests`);
    server.close().then(
      () => {
        flushLogger();
        process.exit(0);
      },
      (error: unknown) => {
        log.fatal({ err: error }, 'shutdown failed');
        flushLogger();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Runs `fn` on the registry of an offline data directory (refused while a server holds it). */
async function offline(config: Config, fn: (registry: RealmRegistry) => Promise<void>): Promise<void> {
  // Imported lazily so that `--help` and usage errors answer at once.
  const { lockDataDir } = await import('./ops/startup.js');
  const { RealmRegistry } = await import('./realm/realm-registry.js');
  const lock = lockDataDir(config.dataDir);
  try {
    const { RealmUrls } = await import('./realm/realm-urls.js');
    const registry = await RealmRegistry.open({ dataDir: config.dataDir, urls: RealmUrls.forServer(config, config.port) });
    try {
      await fn(registry);
    } finally {
      await registry.close();
    }
  } finally {
    lock.release();
  }
}

function required(extra: Record<string, unknown>, name: string): string {
  const value = extra[name];
  if (typeof value !== 'string' || value === '') throw new ConfigError(`--${name} is required`);
  return value;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  if (command === '--version' || command === 'version') {
    console.log(`parley ${packageVersion()}`);
    return;
  }
  if (command === 'print-config') {
    const { config, rest, extra } = parseConfig(args, process.env, PRINT_CONFIG_OPTIONS);
    process.stdout.write(printConfig(rest, { ...config, dataDirIsDefault: config.dataDir === DEFAULT_CONFIG.dataDir }, extra));
    return;
  }
  const extraKinds = {
    name: 'string', subdomain: 'string', email: 'string', 'full-name': 'string', password: 'string', role: 'string',
    'allow-reserved-subdomain': 'bool', out: 'string', from: 'string',
  } as const;
  const { config, rest, extra } = parseConfig(args, process.env, extraKinds);
  if (rest.length > 0) throw new ConfigError(`unexpected argument '${rest[0]}'`);
  const subdomain = typeof extra.subdomain === 'string' ? extra.subdomain.toLowerCase() : '';
  switch (command) {
    case 'serve':
      return serve(config);
    case 'verify': {
      const { runVerify } = await import('./storage/verify-command.js');
      process.exitCode = await runVerify(config.dataDir);
      return;
    }
    case 'create-realm': {
      const name = required(extra, 'name');
      return offline(config, async (registry) => {
        const problem = subdomainProblem(subdomain, (s) => registry.bySubdomainName(s) !== undefined, extra['allow-reserved-subdomain'] === true);
        if (problem !== null) throw new Error(`--subdomain '${subdomain}': ${problem}`);
        const realm = await registry.createRealm(subdomain, name);
        console.log(`created organization "${name}" (id ${realm.id}) at ${realm.url}`);
      });
    }
    case 'create-user': {
      const email = required(extra, 'email');
      const fullName = required(extra, 'full-name');
      const role = ROLES[String(extra.role ?? 'member')];
      if (role === undefined) throw new ConfigError(`--role must be one of ${Object.keys(ROLES).join(', ')}`);
      const password = typeof extra.password === 'string' ? extra.password : undefined;
      if (password !== undefined) {
        // The same rule as POST /users and the sign-up form (Zulip's check_password_strength).
        const { isPasswordStrongEnough } = await import('./auth/password-strength.js');
        if (!isPasswordStrongEnough(password)) {
          throw new Error('The password is too weak: use 6 to 100 characters that are hard to guess (zxcvbn: at least 10000 guesses)');
        }
      }
      return offline(config, async (registry) => {
        const realm = registry.bySubdomainName(subdomain);
        if (realm === undefined) throw new Error(`no organization with subdomain '${subdomain}': run create-realm first`);
        const result = await realm.execute({
          type: 'create_user', email, fullName, role, passwordHash: password ? await (await import('./auth/passwords.js')).hashPassword(password) : null,
          isBot: false, botType: null, botOwnerId: null, timezone: '',
        });
        if (!result.ok) throw new Error(result.error.message);
        console.log(`created user ${email} (id ${result.value.userId}); API key: ${result.value.apiKey}`);
      });
    }
    case 'backup': {
      const out = required(extra, 'out');
      if (!args.some((a) => a === '--data-dir' || a.startsWith('--data-dir=')) && process.env.PARLEY_DATA_DIR === undefined) {
        throw new ConfigError('--data-dir is required');
      }
      const { runBackup } = await import('./ops/backup.js');
      const { terminalProgress } = await import('./ops/progress-bar.js');
      const started = Date.now();
      const manifest = await runBackup(config.dataDir, out, terminalProgress());
      const bytes = manifest.files.reduce((n, f) => n + f.bytes, 0);
      console.log(`backed up ${config.dataDir} to ${out}: ${manifest.files.length} files, ${bytes} bytes in ${Date.now() - started} ms`);
      return;
    }
    case 'restore': {
      const from = required(extra, 'from');
      if (!args.some((a) => a === '--data-dir' || a.startsWith('--data-dir=')) && process.env.PARLEY_DATA_DIR === undefined) {
        throw new ConfigError('--data-dir is required');
      }
      const { runRestore } = await import('./ops/backup.js');
      const { terminalProgress } = await import('./ops/progress-bar.js');
      const manifest = await runRestore(from, config.dataDir, terminalProgress());
      console.log(`restored the backup of ${manifest.started_at} into ${config.dataDir}: start it with parley serve --data-dir ${config.dataDir}`);
      return;
    }
    default:
      throw new ConfigError(`unknown command '${command}'`);
  }
}

const unsupported = nodeSupportProblem();
if (unsupported !== null) {
  console.error(`parley: ${unsupported}`);
  process.exit(1);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (isUsageError(error)) {
    console.error(`parley: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(`parley: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
