/**
 * `parley print-config systemd|nginx|caddy [--external-url URL] [options]`: prints a ready-to-use
 * systemd unit or reverse-proxy configuration for this server's settings (README "Running in
 * production"). Nothing is written: redirect the output where it belongs.
 *
 * The server-side settings are the ordinary ones (`--external-url`, `--host`, `--port`,
 * `--data-dir`, `--trusted-proxies`, `--max-body-bytes`, also as `PARLEY_*`); the extra options
 * below only shape the printed file. The proxy configurations follow what Zulip's own nginx
 * configuration does for the same traffic (puppet/zulip/files/nginx/zulip-include-frontend/
 * proxy, proxy_longpolling): HTTP/1.1 upstream, `Host`, `X-Forwarded-For`/`-Proto`,
 * WebSocket upgrade, no response buffering and read timeouts far above the long-poll heartbeat.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RealmUrls } from '../realm/realm-urls.js';
import { TrustedProxies } from '../http/client-ip.js';
import { UPLOAD_PATHS } from '../http/multipart-upload.js';

/** A bad `print-config` argument; the CLI reports it as a usage error (exit 2). */
export class PrintConfigError extends Error {}

/**
 * The server settings a printed file carries (the CLI passes its parsed configuration; the
 * fields mean what they mean for `parley serve`, see config.ts).
 */
export interface ServerSettings {
  host: string;
  port: number;
  dataDir: string;
  /** Whether `dataDir` is the development default (`./snapshots`): the unit then uses /var/lib/parley. */
  dataDirIsDefault: boolean;
  externalUrl?: string | undefined;
  externalHost?: string | undefined;
  trustedProxies: string;
  maxBodyBytes: number;
  /** `--max-file-upload-size-mib` (default 25): bodies of the upload paths (`UPLOAD_PATHS`) may be this + 1 MiB. */
  maxFileUploadMib?: number;
  /** `--email-from`: written into the unit. */
  emailFrom?: string | undefined;
  /** `--smtp-url`: never written into the unit (it holds a password); the unit reads it from `SMTP_ENV_FILE`. */
  smtpUrl?: string | undefined;
}
type Config = ServerSettings;

/** The kinds of file `print-config` prints. */
export const PRINT_CONFIG_KINDS = ['systemd', 'nginx', 'caddy'] as const;
export type PrintConfigKind = (typeof PRINT_CONFIG_KINDS)[number];

/** Options that only shape the printed file (flags of `print-config`, not of `serve`). */
export interface PrintOptions {
  /** systemd: the dedicated system user (and group) the service runs as. Default `parley`. */
  user: string;
  /** systemd: the Node.js binary. Default: the one running this command. */
  node: string;
  /** systemd: the parley checkout holding `dist/cli.js`. Default: this installation. */
  installDir: string;
  /** nginx/caddy: the address the proxy listens on; '' = every interface. */
  listenAddress: string;
  /** nginx: TLS certificate chain (PEM). Default: Let's Encrypt's path for the URL's host. */
  tlsCert: string;
  /** nginx: TLS private key (PEM). Default: Let's Encrypt's path for the URL's host. */
  tlsKey: string;
}

/**
 * Read timeout for proxied requests, seconds. A long-poll is answered by a heartbeat within 55 s
 * (events/event-queues.ts) and WebSockets are pinged within 120 s; nginx's default of 60 s would
 * cut the first close to the edge and the second outright. Zulip's proxy_longpolling uses 20 min.
 */
export const PROXY_READ_TIMEOUT_SECONDS = 1200;

/** Where the service keeps its data when `--data-dir` is left at its development default. */
export const SYSTEMD_DATA_DIR = '/var/lib/parley';

/** `print-config`'s own options and their kinds (for the CLI's option parser). */
export const PRINT_CONFIG_OPTIONS = {
  user: 'string',
  node: 'string',
  'install-dir': 'string',
  'listen-address': 'string',
  'tls-cert': 'string',
  'tls-key': 'string',
} as const;

/** This installation's root (the directory holding `dist/` and package.json). */
function installRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** A systemd `Environment=` line, quoted when the value needs it (systemd.exec "Environment="). */
function envLine(name: string, value: string): string {
  return /^[A-Za-z0-9_./:,@+-]+$/.test(value) ? `Environment=${name}=${value}` : `Environment="${name}=${value.replace(/(["\\])/g, '\\$1')}"`;
}

/** A systemd command-line word, quoted when it needs it (systemd.service "Command lines"). */
function execWord(word: string): string {
  return /^[A-Za-z0-9_./:@+-]+$/.test(word) ? word : `"${word.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * The hardened systemd unit: a dedicated user, the whole file system read-only except the data
 * directory (`ProtectSystem=strict` + `ReadWritePaths=`), no privilege gain, restart on failure.
 * Not `MemoryDenyWriteExecute=`: V8's JIT needs writable+executable pages.
 */
/** Where `print-config systemd` tells the SMTP URL (with its password) to be kept. */
export const SMTP_ENV_FILE = '/etc/parley/smtp.env';

export function systemdUnit(config: Config, urls: RealmUrls, options: PrintOptions): string {
  const defaultDataDir = config.dataDirIsDefault;
  const dataDir = defaultDataDir ? SYSTEMD_DATA_DIR : resolve(config.dataDir);
  const lines = [
    '# parley — generated by `parley print-config systemd`.',
    `# Install: sudo useradd --system --home-dir ${dataDir} --shell /usr/sbin/nologin ${options.user}`,
    '#          sudo cp parley.service /etc/systemd/system/ && sudo systemctl daemon-reload',
    '#          sudo systemctl enable --now parley && journalctl -u parley -f',
    '[Unit]',
    'Description=parley, a Zulip-compatible chat server',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${options.user}`,
    `Group=${options.user}`,
    `WorkingDirectory=${options.installDir}`,
    envLine('NODE_ENV', 'production'),
    envLine('PARLEY_EXTERNAL_URL', urls.rootUrl),
    envLine('PARLEY_HOST', config.host),
    envLine('PARLEY_PORT', String(config.port)),
    envLine('PARLEY_DATA_DIR', dataDir),
    envLine('PARLEY_TRUSTED_PROXIES', config.trustedProxies),
    envLine('PARLEY_MAX_BODY_BYTES', String(config.maxBodyBytes)),
    ...(config.emailFrom !== undefined ? [envLine('PARLEY_EMAIL_FROM', config.emailFrom)] : []),
    // The SMTP URL carries a password: kept out of the (world-readable) unit, in a root-only file.
    ...(config.smtpUrl !== undefined
      ? [`# Outgoing mail: put PARLEY_SMTP_URL=${config.smtpUrl.replace(/\/\/[^@/]*@/, '//USER:PASSWORD@')} in ${SMTP_ENV_FILE} (chmod 600).`, `EnvironmentFile=${SMTP_ENV_FILE}`]
      : []),
    `ExecStart=${execWord(options.node)} ${execWord(resolve(options.installDir, 'dist', 'cli.js'))} serve --no-demo`,
    // parley stops on SIGTERM: it drains requests and writes a final snapshot first.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=60',
    'Restart=on-failure',
    'RestartSec=5',
    'LimitNOFILE=65536',
    '',
    '# Hardening (systemd.exec): read-only system, writable data directory only.',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    ...(defaultDataDir ? ['StateDirectory=parley', 'StateDirectoryMode=0700'] : []),
    `ReadWritePaths=${execWord(dataDir)}`,
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'ProtectProc=invisible',
    'RestrictNamespaces=yes',
    'RestrictRealtime=yes',
    'RestrictSUIDSGID=yes',
    'LockPersonality=yes',
    'RemoveIPC=yes',
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    'SystemCallArchitectures=native',
    'SystemCallFilter=@system-service',
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    'UMask=0077',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  ];
  return lines.join('\n') + '\n';
}

/** The `host:port` parley listens on, as a proxy reaches it (`0.0.0.0`/`::` → loopback). */
function upstream(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '' ? '127.0.0.1' : config.host === '::' ? '[::1]' : config.host;
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${config.port}`;
}

/** The proxy's public port: the URL's, else the scheme's default. */
function publicPort(urls: RealmUrls): number {
  return urls.portSuffix !== '' ? Number(urls.portSuffix.slice(1)) : urls.protocol === 'https:' ? 443 : 80;
}

/** Host names the proxy answers for: the URL's host and, when it can have subdomains, `*.` it. */
function serverNames(urls: RealmUrls): string[] {
  const names = [urls.hostname.replace(/^\[|\]$/g, '')];
  if (urls.subdomainBase === urls.hostname) names.push(`*.${urls.hostname}`);
  else names.push(`*.${urls.subdomainBase}`);
  return names;
}

/**
 * The nginx site: TLS termination for an https URL (plus a port-80 redirect when the URL uses the
 * standard port), HTTP/1.1 to parley with keep-alive, `Host`, `X-Forwarded-For`/`-Proto`,
 * WebSocket upgrade, no buffering, long read timeouts. Goes in nginx's `http` block
 * (e.g. /etc/nginx/sites-enabled/parley).
 */
export function nginxConfig(config: Config, urls: RealmUrls, options: PrintOptions): string {
  const https = urls.protocol === 'https:';
  const port = publicPort(urls);
  const names = serverNames(urls).join(' ');
  const listen = (p: number, tls: boolean) =>
    options.listenAddress !== ''
      ? [`    listen ${options.listenAddress.includes(':') ? `[${options.listenAddress}]` : options.listenAddress}:${p}${tls ? ' ssl' : ''};`]
      : [`    listen ${p}${tls ? ' ssl' : ''};`, `    listen [::]:${p}${tls ? ' ssl' : ''};`];
  const certHost = urls.hostname.replace(/^\[|\]$/g, '');
  const lines = [
    '# parley behind nginx — generated by `parley print-config nginx`.',
    `# Serves ${urls.rootUrl} (and its subdomain organizations), proxied to parley on http://${upstream(config)}.`,
    '# Put it in /etc/nginx/sites-enabled/parley (inside nginx\'s http block), then: nginx -t && nginx -s reload',
    '',
    '# WebSocket upgrade (GET /api/v1/events/socket); plain requests keep the upstream connection alive.',
    'map $http_upgrade $parley_connection {',
    '    default upgrade;',
    "    ''      '';",
    '}',
    '',
    'upstream parley {',
    `    server ${upstream(config)};`,
    '    keepalive 32;',
    '}',
    '',
    'server {',
    ...listen(port, https),
    `    server_name ${names};`,
    ...(https
      ? [
          `    ssl_certificate     ${options.tlsCert || `/etc/letsencrypt/live/${certHost}/fullchain.pem`};`,
          `    ssl_certificate_key ${options.tlsKey || `/etc/letsencrypt/live/${certHost}/privkey.pem`};`,
          '    ssl_protocols TLSv1.2 TLSv1.3;',
          '    # HTTP/2: `http2 on;` here (nginx >= 1.25.1) or `ssl http2` on the listen lines (older).',
          '    ssl_session_cache shared:parley_tls:10m;',
          '    add_header Strict-Transport-Security "max-age=15768000" always;',
        ]
      : []),
    '',
    `    # parley's --max-body-bytes (larger bodies get parley's own 413 JSON error)`,
    `    client_max_body_size ${config.maxBodyBytes};`,
    '',
    '    location / {',
    '        proxy_pass http://parley;',
    '        proxy_http_version 1.1;',
    '        proxy_set_header Host $host;',
    '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '        proxy_set_header X-Forwarded-Proto $scheme;',
    '        proxy_set_header Upgrade $http_upgrade;',
    '        proxy_set_header Connection $parley_connection;',
    '        # Long-polls (GET /api/v1/events) are held up to 55 s and event sockets stay open for',
    '        # hours: pass every byte at once, and wait far longer than nginx\'s default 60 s.',
    '        proxy_buffering off;',
    '        proxy_request_buffering off;',
    `        proxy_read_timeout ${PROXY_READ_TIMEOUT_SECONDS}s;`,
    `        proxy_send_timeout ${PROXY_READ_TIMEOUT_SECONDS}s;`,
    '    }',
    '',
    '    # File uploads, avatars and custom emoji: parley streams them to disk with its own limit',
    '    # (--max-file-upload-size-mib + 1 MiB for the form).',
    `    location ~ ${nginxUploadPattern()} {`,
    `        client_max_body_size ${uploadBodyBytes(config)};`,
    '        proxy_pass http://parley;',
    '        proxy_http_version 1.1;',
    '        proxy_set_header Host $host;',
    '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '        proxy_set_header X-Forwarded-Proto $scheme;',
    '        proxy_request_buffering off;',
    `        proxy_read_timeout ${PROXY_READ_TIMEOUT_SECONDS}s;`,
    `        proxy_send_timeout ${PROXY_READ_TIMEOUT_SECONDS}s;`,
    '    }',
    '}',
  ];
  if (https && port === 443) {
    lines.push(
      '',
      '# Plain HTTP only redirects.',
      'server {',
      ...listen(80, false),
      `    server_name ${names};`,
      '    return 301 https://$host$request_uri;',
      '}',
    );
  }
  return lines.join('\n') + '\n';
}

/**
 * Largest request body of an upload path in bytes: `max_file_upload_size_mib` (default 25) plus
 * 1 MiB for the rest of the multipart form, as parley's own check (`http/multipart-upload.ts`).
 */
function uploadBodyBytes(config: Config): number {
  return ((config.maxFileUploadMib ?? 25) + 1) * 1024 * 1024;
}

/** `UPLOAD_PATHS` as one anchored nginx regex (a prefix entry needs a name after it). */
function nginxUploadPattern(): string {
  return `^(?:${UPLOAD_PATHS.map((p) => (p.endsWith('/') ? `${p}[^/]+` : p)).join('|')})$`;
}

/** `UPLOAD_PATHS` as Caddy `path` matcher operands (a prefix entry as `prefix*`). */
function caddyUploadPaths(): string {
  return UPLOAD_PATHS.map((p) => (p.endsWith('/') ? `${p}*` : p)).join(' ');
}

/**
 * The Caddyfile: Caddy obtains and renews the certificate itself, sets `X-Forwarded-For`/`-Proto`
 * and upgrades WebSockets by default; `flush_interval -1` streams responses, and its HTTP transport
 * has no read timeout by default, so long-polls and event sockets pass untouched. Request bodies:
 * the upload paths up to the upload limit, everything else up to `--max-body-bytes`.
 */
export function caddyConfig(config: Config, urls: RealmUrls, options: PrintOptions): string {
  const lines = [
    '# parley behind Caddy — generated by `parley print-config caddy`.',
    `# Serves ${urls.rootUrl}, proxied to parley on http://${upstream(config)}. Put it in /etc/caddy/Caddyfile,`,
    '# then: caddy validate --config /etc/caddy/Caddyfile && systemctl reload caddy',
    `# Subdomain organizations: add their names to the site line (e.g. ${urls.urlFor('team')}),`,
    '# or use a wildcard certificate (a DNS challenge; see Caddy\'s "tls" directive).',
    `${urls.rootUrl} {`,
    ...(options.listenAddress !== '' ? [`\tbind ${options.listenAddress}`] : []),
    `\t@uploads path ${caddyUploadPaths()}`,
    '\trequest_body @uploads {',
    `\t\tmax_size ${uploadBodyBytes(config)}`,
    '\t}',
    `\t@other not path ${caddyUploadPaths()}`,
    '\trequest_body @other {',
    `\t\tmax_size ${config.maxBodyBytes}`,
    '\t}',
    `\treverse_proxy ${upstream(config)} {`,
    '\t\tflush_interval -1',
    '\t}',
    '}',
  ];
  return lines.join('\n') + '\n';
}

/**
 * The file to print for `print-config`'s operands (`rest`: the kind), the server `config` and its
 * own options (`extra`, see PRINT_CONFIG_OPTIONS), all parsed by the CLI. Throws
 * PrintConfigError for a missing or unknown kind or a bad value, ExternalUrlError /
 * TrustedProxiesError for a bad URL or proxy list.
 */
export function printConfig(rest: readonly string[], config: ServerSettings, extra: Readonly<Record<string, string | number | boolean>>): string {
  const [kind, ...more] = rest;
  if (kind === undefined || !(PRINT_CONFIG_KINDS as readonly string[]).includes(kind)) {
    throw new PrintConfigError(`print-config needs one of ${PRINT_CONFIG_KINDS.join(', ')}${kind === undefined ? '' : `, got '${kind}'`}`);
  }
  if (more.length > 0) throw new PrintConfigError(`unexpected argument '${more[0]}'`);
  TrustedProxies.parse(config.trustedProxies); // refuse a bad list here, not at the service's start
  const urls = RealmUrls.forServer(config, config.port);
  const str = (name: keyof typeof PRINT_CONFIG_OPTIONS, fallback: string) => {
    const value = extra[name];
    return typeof value === 'string' && value !== '' ? value : fallback;
  };
  const options: PrintOptions = {
    user: str('user', 'parley'),
    node: str('node', process.execPath),
    installDir: resolve(str('install-dir', installRoot())),
    listenAddress: str('listen-address', ''),
    tlsCert: str('tls-cert', ''),
    tlsKey: str('tls-key', ''),
  };
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(options.user)) throw new PrintConfigError(`--user must be a system user name, got '${options.user}'`);
  for (const [flag, value] of [['--tls-cert', options.tlsCert], ['--tls-key', options.tlsKey], ['--node', options.node], ['--install-dir', options.installDir]] as const) {
    if (/[\s;{}'"]/.test(value)) throw new PrintConfigError(`${flag} must be a path without spaces, quotes, ';' or braces, got '${value}'`);
  }
  if (options.listenAddress !== '' && !/^[0-9a-fA-F.:]+$/.test(options.listenAddress)) {
    throw new PrintConfigError(`--listen-address must be an IP address, got '${options.listenAddress}'`);
  }
  if (kind === 'systemd') return systemdUnit(config, urls, options);
  if (kind === 'nginx') return nginxConfig(config, urls, options);
  return caddyConfig(config, urls, options);
}

/** Usage lines of `print-config` for the CLI's help. */
export const PRINT_CONFIG_USAGE = `  parley print-config systemd|nginx|caddy [--external-url https://chat.example.com] [--host H] [--port P]
                     [--data-dir DIR] [--trusted-proxies CIDRS] [--max-body-bytes N]
                     [--user parley] [--node PATH] [--install-dir DIR]          (systemd)
                     [--listen-address IP] [--tls-cert PEM] [--tls-key PEM]      (nginx, caddy)`;
