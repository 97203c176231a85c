/**
 * URL sanitizing for links in rendered messages, ported from Zulip's `sanitize_url` and
 * `rewrite_local_links_to_relative` (zerver/lib/markdown/__init__.py), including the parts of
 * Python's `urllib.parse.urlsplit` / `urlunsplit` whose quirks show up in Zulip's output
 * (lowercased scheme, dropped empty `?`/`#`, `http:foo` → `http:///foo`).
 *
 * Safety rule: a link is only ever emitted with an allow-listed scheme (below), a
 * domain-relative path (`/...`), or a fragment (`#...`). `javascript:`, `vbscript:`, `data:`
 * and every other scheme are rejected, and the caller then renders the source as plain text.
 */

/** Schemes from https://html.spec.whatwg.org/multipage/system-state.html#safelisted-scheme */
const HTML_SAFELISTED_SCHEMES = [
  'bitcoin', 'geo', 'im', 'irc', 'ircs', 'magnet', 'mailto', 'matrix', 'mms', 'news', 'nntp',
  'openpgp4fpr', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'urn', 'webcal', 'wtai', 'xmpp',
];

/** Zulip's `allowed_schemes`: the only schemes a rendered `<a href>` may carry. */
export const ALLOWED_SCHEMES: ReadonlySet<string> = new Set([
  'http', 'https', 'ftp', 'file', ...HTML_SAFELISTED_SCHEMES,
]);

/** Python's `urllib.parse.uses_netloc`: schemes for which `urlunsplit` re-adds `//`. */
const USES_NETLOC: ReadonlySet<string> = new Set([
  '', 'ftp', 'http', 'gopher', 'nntp', 'telnet', 'imap', 'wais', 'file', 'mms', 'https', 'shttp',
  'snews', 'prospero', 'rtsp', 'rtsps', 'rtspu', 'rsync', 'svn', 'svn+ssh', 'sftp', 'nfs', 'git',
  'git+ssh', 'ws', 'wss', 'itms-services',
]);

const SCHEME_CHARS = /^[A-Za-z][A-Za-z0-9+\-.]*$/;

/** `urllib.parse.SplitResult`. */
interface SplitUrl {
  scheme: string;
  netloc: string;
  path: string;
  query: string;
  fragment: string;
}

/** `urllib.parse.urlsplit`; returns null where Python raises `ValueError`. */
function urlsplit(input: string): SplitUrl | null {
  // Python strips ASCII tab/CR/LF anywhere and C0 controls/space at the start.
  let url = input.replace(/[\t\r\n]/g, '').replace(/^[\x00-\x20]+/, '');
  let scheme = '';
  let netloc = '';
  let query = '';
  let fragment = '';
  const colon = url.indexOf(':');
  if (colon > 0 && SCHEME_CHARS.test(url.slice(0, colon))) {
    scheme = url.slice(0, colon).toLowerCase();
    url = url.slice(colon + 1);
  }
  if (url.startsWith('//')) {
    let end = url.length;
    for (const c of '/?#') {
      const i = url.indexOf(c, 2);
      if (i >= 0 && i < end) end = i;
    }
    netloc = url.slice(2, end);
    url = url.slice(end);
    if (netloc.includes('[') !== netloc.includes(']')) return null; // "Invalid IPv6 URL"
  }
  const hash = url.indexOf('#');
  if (hash >= 0) {
    fragment = url.slice(hash + 1);
    url = url.slice(0, hash);
  }
  const q = url.indexOf('?');
  if (q >= 0) {
    query = url.slice(q + 1);
    url = url.slice(0, q);
  }
  return { scheme, netloc, path: url, query, fragment };
}

/** `urllib.parse.urlunsplit` (Python 3.12 semantics). */
function urlunsplit({ scheme, netloc, path, query, fragment }: SplitUrl): string {
  let url = path;
  if (netloc || (scheme && USES_NETLOC.has(scheme) && !url.startsWith('//'))) {
    if (url && !url.startsWith('/')) url = '/' + url;
    url = '//' + netloc + url;
  }
  if (scheme) url = scheme + ':' + url;
  if (query) url += '?' + query;
  if (fragment) url += '#' + fragment;
  return url;
}

/**
 * Zulip's `sanitize_url`: returns the href to emit, `""` for a URL too broken to parse, or
 * `null` when the URL must not become a link at all (disallowed scheme).
 * A missing scheme means `http://`; a bare `user@host` means `mailto:`.
 */
export function sanitizeUrl(url: string): string | null {
  const parts = urlsplit(url.replaceAll(' ', '%20'));
  if (parts === null) return '';
  let { scheme } = parts;
  const { netloc, path, query, fragment } = parts;
  if (scheme === '' && netloc === '' && path.includes('@')) {
    scheme = 'mailto';
  } else if (scheme === '' && netloc === '' && path.startsWith('/')) {
    return urlunsplit({ scheme: '', netloc: '', path, query, fragment });
  } else if (scheme === '' && netloc === '' && path === '' && query === '' && fragment !== '') {
    return urlunsplit({ scheme: '', netloc: '', path: '', query: '', fragment });
  }
  if (!scheme) return sanitizeUrl('http://' + url);
  if (!ALLOWED_SCHEMES.has(scheme)) return null;
  return urlunsplit({ scheme, netloc, path, query, fragment });
}

/**
 * Zulip's `rewrite_local_links_to_relative`: links into the realm's own web app
 * (`<realm>/#narrow/...`, `<realm>/user_uploads/...`) become relative so they open in place.
 */
export function rewriteLocalLink(href: string, realmUrl: string | undefined): string {
  if (realmUrl) {
    const prefix = realmUrl.replace(/\/$/, '') + '/';
    if (href.startsWith(prefix + '#') || href.startsWith(prefix + 'user_uploads/')) {
      return href.slice(prefix.length);
    }
  }
  return href;
}
