/**
 * The organization URLs of one server (src/README.md: the organization's URL is configuration,
 * never the request's Host). Built from `--external-url` (e.g. `https://chat.example.com`):
 *
 * - the root realm's URL is the external URL itself (no trailing slash);
 * - a subdomain realm's URL is `<scheme>://<subdomain>.<host>[:<port>]`, as Zulip's
 *   `Realm.url` = `settings.EXTERNAL_URI_SCHEME + realm.host` with
 *   `realm.host = f"{subdomain}.{settings.EXTERNAL_HOST}"` (zerver/models/realms.py);
 * - a request's Host header only selects the realm (`<subdomain>.<host>`, `www` = root; anything
 *   else = root), zerver/lib/subdomains.py `get_subdomain_from_hostname`.
 *
 * An IP address has no subdomains: with the default `http://127.0.0.1:<port>` (or any IP URL)
 * subdomain realms live under `localhost` instead (`http://team.localhost:9991`; browsers and
 * systemd-resolved map `*.localhost` to the loopback address).
 */
import { isIP } from 'node:net';

/** A malformed `--external-url` / `--external-host`; the CLI reports it as a usage error (exit 2). */
export class ExternalUrlError extends Error {}

/** Host names that select the root realm as a subdomain (Zulip's `settings.ROOT_SUBDOMAIN_ALIASES`). */
const ROOT_ALIASES: ReadonlySet<string> = new Set(['www']);

/** What `RealmUrls.forServer` reads from the configuration. */
export interface ExternalUrlConfig {
  /** `--external-url`; undefined = `http://127.0.0.1:<port>` (or the deprecated `--external-host`). */
  externalUrl?: string | undefined;
  /** Deprecated `--external-host H`: the same as `--external-url http://H:<port>`. */
  externalHost?: string | undefined;
}

export class RealmUrls {
  /** `http:` or `https:`. */
  readonly protocol: 'http:' | 'https:';
  /** The external URL's host name, lower-case, IPv6 in brackets (e.g. `chat.example.com`). */
  readonly hostname: string;
  /** `:<port>` when the URL names a non-default port, else ''. */
  readonly portSuffix: string;
  /**
   * The host name subdomain realms hang off: the URL's host name, or `localhost` when that is an
   * IP address. Also the domain of the root realm's generated emails (`user<id>@…`, bots).
   */
  readonly subdomainBase: string;

  private constructor(url: URL) {
    this.protocol = url.protocol as 'http:' | 'https:';
    this.hostname = url.hostname;
    this.portSuffix = url.port === '' ? '' : `:${url.port}`;
    const bare = this.hostname.replace(/^\[|\]$/g, '');
    this.subdomainBase = isIP(bare) !== 0 ? 'localhost' : this.hostname;
  }

  /**
   * Parses `--external-url`: an absolute `http://` or `https://` URL without credentials, path
   * (a lone `/` is allowed), query or fragment — Zulip serves an organization at the root of its
   * host. Throws ExternalUrlError naming what is wrong.
   */
  static parse(raw: string): RealmUrls {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ExternalUrlError(`--external-url must be an absolute URL like https://chat.example.com, got '${raw}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ExternalUrlError(`--external-url must start with http:// or https://, got '${raw}'`);
    }
    if (url.username !== '' || url.password !== '') throw new ExternalUrlError('--external-url must not contain a user name or password');
    if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(raw)) {
      throw new ExternalUrlError(`--external-url must be the bare origin (no path, query or fragment), got '${raw}'`);
    }
    if (url.hostname === '') throw new ExternalUrlError(`--external-url needs a host name, got '${raw}'`);
    return new RealmUrls(url);
  }

  /**
   * The server's URLs: `--external-url`, else the deprecated `--external-host H` as
   * `http://H:<port>`, else `http://127.0.0.1:<port>` (`port` = the bound port).
   */
  static forServer(config: ExternalUrlConfig, port: number): RealmUrls {
    if (config.externalUrl !== undefined && config.externalUrl !== '') return RealmUrls.parse(config.externalUrl);
    if (config.externalHost !== undefined && config.externalHost !== '') {
      if (/[/:@?#\s]/.test(config.externalHost)) {
        throw new ExternalUrlError(`--external-host must be a bare host name (use --external-url for a URL), got '${config.externalHost}'`);
      }
      return RealmUrls.parse(`http://${config.externalHost}:${port}`);
    }
    return RealmUrls.parse(`http://127.0.0.1:${port}`);
  }

  /** The root realm's URL, e.g. `https://chat.example.com` (no trailing slash). */
  get rootUrl(): string {
    return `${this.protocol}//${this.hostname}${this.portSuffix}`;
  }

  /** A realm's URL (no trailing slash): the root URL for `''`, `<scheme>://<sub>.<base>[:port]` otherwise. */
  urlFor(subdomain: string): string {
    if (subdomain === '') return this.rootUrl;
    return `${this.protocol}//${subdomain}.${this.subdomainBase}${this.portSuffix}`;
  }

  /**
   * A realm's host name without port (`RealmState.host`): the domain of generated emails
   * (`user<id>@…`, `<name>-bot@…`, channel email addresses). Zulip uses `realm.host`, falling back
   * to `FAKE_EMAIL_DOMAIN` when a port makes it an invalid domain (`get_fake_email_domain`).
   */
  hostFor(subdomain: string): string {
    return subdomain === '' ? this.subdomainBase : `${subdomain}.${this.subdomainBase}`;
  }

  /**
   * The subdomain a request's Host header selects: `<sub>.<base>` → `<sub>` (`www` → root);
   * anything else (the base itself, an IP address, another name) → `''` (the root realm).
   * The port is ignored.
   */
  subdomainForHost(hostHeader: string): string {
    const host = hostHeader.trim().toLowerCase().replace(/:\d+$/, '');
    const suffix = '.' + this.subdomainBase;
    if (!host.endsWith(suffix)) return '';
    const subdomain = host.slice(0, -suffix.length);
    return ROOT_ALIASES.has(subdomain) ? '' : subdomain;
  }
}
