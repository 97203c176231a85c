import type { LevelWithSilent } from 'pino';
import type { LogFormat } from './log.js';

/** Levels `--log-level` accepts (pino's, plus `silent`). */
export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The one typed configuration object. Every option is a command-line flag `--name` and an
 * environment variable `PARLEY_<NAME>` (dashes → underscores); the flag wins.
 */

export interface Config {
  /** Interface to bind (default 127.0.0.1). */
  host: string;
  /** TCP port (default 9991; 0 picks a free one). */
  port: number;
  /** Directory of the LMDB store (default ./snapshots). */
  dataDir: string;
  /**
   * The organization's public URL (`https://chat.example.com`): every URL parley hands out derives
   * from it (see realm/realm-urls.ts). Undefined = `http://127.0.0.1:<bound port>`.
   */
  externalUrl: string | undefined;
  /** Deprecated alias: `--external-host H` = `--external-url http://H:<port>`. */
  externalHost: string | undefined;
  /**
   * Comma-separated CIDRs (or addresses) of reverse proxies whose `X-Forwarded-For` /
   * `X-Forwarded-Proto` are believed (see http/client-ip.ts). Default: loopback.
   */
  trustedProxies: string;
  /** Create the demo organization when the store holds no realm. */
  demo: boolean;
  /** Password of every demo account; random when unset. */
  demoPassword: string | undefined;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  /** Largest uploaded file, MiB (Zulip's `MAX_FILE_UPLOAD_SIZE`, `max_file_upload_size_mib`). */
  maxFileUploadMib: number;
  /** Per-realm upload quota, MiB (`realm_upload_quota_mib`); 0 = none. */
  uploadQuotaMib: number;
  /** Snapshot a realm after this many records… */
  snapshotEveryRecords: number;
  /** …or after this many seconds with changes… */
  snapshotEverySeconds: number;
  /** …or once this many MiB of column chunks are waiting to be written (wide channels under load). */
  snapshotEveryDirtyMib: number;
  /** Serve the benchmark ceiling route `GET /api/v1/bench/ceiling`. */
  bench: boolean;
  /** Zulip's API rate limits (`api/api-rate-limits.ts`); off only for load tests and the bench. */
  rateLimits: boolean;
  /** Free bytes kept on the data disk: below it writes answer 507 DISK_FULL (storage/disk-space.ts). */
  minFreeBytes: number;
  /** Least severe log level written (pino's levels, or `silent`). */
  logLevel: LevelWithSilent;
  /** Log line format; undefined = `pretty` when stderr is a terminal, `json` otherwise. */
  logFormat: LogFormat | undefined;
  /** Port of the dedicated `/metrics` listener (0 = any free port); undefined = none. */
  metricsPort: number | undefined;
  /** Interface of the dedicated metrics listener (default 127.0.0.1). */
  metricsHost: string;
  /** Bearer token that opens `GET /metrics` on the main port; undefined = not served there. */
  metricsToken: string | undefined;
  /**
   * Outgoing mail server, `smtp://user:pass@host:port` (`smtps://` for implicit TLS; Zulip's
   * EMAIL_HOST settings). Undefined = mail is written to `<dataDir>/outbox/` as `.eml` files.
   */
  smtpUrl: string | undefined;
  /** The From address of every mail (Zulip's NOREPLY_EMAIL_ADDRESS); undefined = `noreply@<host>`. */
  emailFrom: string | undefined;
}

export const DEFAULT_CONFIG: Config = {
  host: '127.0.0.1',
  port: 9991,
  dataDir: './snapshots',
  externalUrl: undefined,
  externalHost: undefined,
  trustedProxies: '127.0.0.0/8,::1',
  demo: true,
  demoPassword: undefined,
  maxBodyBytes: 5 * 1024 * 1024,
  maxFileUploadMib: 25,
  uploadQuotaMib: 0,
  snapshotEveryRecords: 20_000,
  snapshotEverySeconds: 60,
  snapshotEveryDirtyMib: 16,
  bench: false,
  rateLimits: true,
  minFreeBytes: 8 * 1024 * 1024,
  logLevel: 'info',
  logFormat: undefined,
  metricsPort: undefined,
  metricsHost: '127.0.0.1',
  metricsToken: undefined,
  smtpUrl: undefined,
  emailFrom: undefined,
};

/** Thrown for a bad flag or value; the CLI prints the message and exits 2. */
export class ConfigError extends Error {}

type Kind = 'string' | 'int' | 'bool' | 'port' | 'log-level' | 'log-format';
const OPTIONS: Record<string, [keyof Config, Kind]> = {
  host: ['host', 'string'],
  port: ['port', 'port'],
  'data-dir': ['dataDir', 'string'],
  'external-url': ['externalUrl', 'string'],
  'external-host': ['externalHost', 'string'],
  'trusted-proxies': ['trustedProxies', 'string'],
  demo: ['demo', 'bool'],
  'demo-password': ['demoPassword', 'string'],
  'max-body-bytes': ['maxBodyBytes', 'int'],
  'max-file-upload-size-mib': ['maxFileUploadMib', 'int'],
  'upload-quota-mib': ['uploadQuotaMib', 'int'],
  'snapshot-every-records': ['snapshotEveryRecords', 'int'],
  'snapshot-every-seconds': ['snapshotEverySeconds', 'int'],
  'snapshot-every-dirty-mib': ['snapshotEveryDirtyMib', 'int'],
  bench: ['bench', 'bool'],
  'rate-limits': ['rateLimits', 'bool'],
  'min-free-bytes': ['minFreeBytes', 'int'],
  'log-level': ['logLevel', 'log-level'],
  'log-format': ['logFormat', 'log-format'],
  'metrics-port': ['metricsPort', 'port'],
  'metrics-host': ['metricsHost', 'string'],
  'metrics-token': ['metricsToken', 'string'],
  'smtp-url': ['smtpUrl', 'string'],
  'email-from': ['emailFrom', 'string'],
};

const BOOL_WORD = /^(1|true|yes|on|0|false|no|off)$/i;

/** Largest TCP port number. */
const MAX_PORT = 65535;

function convert(name: string, kind: Kind, raw: string): string | number | boolean {
  if (kind === 'string') return raw;
  if (kind === 'port') {
    // Checked here: a port above 65535 is taken modulo 65536 by the socket layer (99999 → 34463).
    if (!/^\d+$/.test(raw) || Number(raw) > MAX_PORT) {
      throw new ConfigError(`--${name} must be a TCP port number from 0 to ${MAX_PORT}, got '${raw}'`);
    }
    return Number(raw);
  }
  if (kind === 'log-level') {
    if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new ConfigError(`--${name} must be one of ${LOG_LEVELS.join(', ')}, got '${raw}'`);
    return raw;
  }
  if (kind === 'log-format') {
    if (raw !== 'json' && raw !== 'pretty') throw new ConfigError(`--${name} must be json or pretty, got '${raw}'`);
    return raw;
  }
  if (kind === 'int') {
    if (!/^\d+$/.test(raw)) throw new ConfigError(`--${name} must be a non-negative integer, got '${raw}'`);
    return Number(raw);
  }
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`--${name} must be true or false, got '${raw}'`);
}

/**
 * Builds the config from defaults, then `PARLEY_*` environment variables, then flags.
 * Returns the config and the arguments that were not options (sub-command operands).
 * Throws ConfigError for an unknown flag or a bad value.
 */
export function parseConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  extra: Record<string, Kind> = {},
): { config: Config; rest: string[]; extra: Record<string, string | number | boolean> } {
  const config: Config = { ...DEFAULT_CONFIG };
  const set = (name: string, raw: string) => {
    const [key, kind] = OPTIONS[name]!;
    (config as unknown as Record<string, unknown>)[key] = convert(name, kind, raw);
  };
  for (const name of Object.keys(OPTIONS)) {
    const value = env[`PARLEY_${name.toUpperCase().replace(/-/g, '_')}`];
    if (value !== undefined && value !== '') set(name, value);
  }
  const rest: string[] = [];
  const extras: Record<string, string | number | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    let [name, value] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    let negated = false;
    if (name.startsWith('no-') && (OPTIONS[name.slice(3)]?.[1] === 'bool' || extra[name.slice(3)] === 'bool')) {
      name = name.slice(3);
      negated = true;
    }
    const kind = OPTIONS[name]?.[1] ?? extra[name];
    if (kind === undefined) throw new ConfigError(`unknown option --${name}`);
    // A boolean flag takes an explicit value only from `=` or a following on/off word
    // (`--rate-limits off`); bare, it means true (`--no-x`: false).
    if (kind === 'bool' && value === undefined) {
      const next = argv[i + 1];
      if (!negated && next !== undefined && BOOL_WORD.test(next)) value = argv[++i]!;
      else value = negated ? 'false' : 'true';
    }
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new ConfigError(`--${name} needs a value`);
    }
    if (OPTIONS[name]) set(name, value);
    else extras[name] = convert(name, kind, value);
  }
  return { config, rest, extra: extras };
}
