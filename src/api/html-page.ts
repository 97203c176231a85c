/**
 * Server-rendered HTML answers (the login page, the app shell, invitation pages): the response
 * shape `http/` writes verbatim, and the security headers every page carries (a strict
 * Content-Security-Policy without inline script, clickjacking protection as Django's
 * `XFrameOptionsMiddleware` with `X_FRAME_OPTIONS = "DENY"`, no MIME sniffing).
 */
import { escapeHtml } from '../errors.js';

/** An HTML (or other non-JSON) answer; `http/` writes it as is. */
export interface WebResponse {
  status: number;
  /** Response headers (one value each). */
  headers: Record<string, string>;
  /** `Set-Cookie` values, each sent as its own header. */
  cookies?: string[];
  body: string;
}

/**
 * The Content-Security-Policy of every page: everything from this origin only (scripts, styles,
 * fonts, images, XHR/WebSocket), no plugins, no `<base>` rewriting, forms post only here, and no
 * framing. Inline `style` attributes are allowed: server-rendered message HTML (KaTeX) uses them;
 * inline script never is.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Headers of every HTML page. */
export function htmlHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    ...extra,
  };
}

/** Minimal page styling: a `<style>` element is allowed by the policy (no script is). */
const PAGE_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:0;display:flex;justify-content:center;background:#f5f5f5;color:#222}' +
  'main{background:#fff;margin:10vh 1em;padding:2em;border-radius:8px;box-shadow:0 1px 4px #0002;width:100%;max-width:22em}' +
  'label{display:block;margin-top:1em}input{display:block;width:100%;box-sizing:border-box;padding:.5em;font:inherit}' +
  'button{margin-top:1.5em;width:100%;padding:.6em;font:inherit;background:#2f6fb4;color:#fff;border:0;border-radius:4px;cursor:pointer}' +
  '.error{color:#b00020}@media (prefers-color-scheme:dark){body{background:#1d1d1d;color:#ddd}main{background:#2a2a2a}}';

/** A complete page: `title` (escaped here) and `inner` HTML (escaped by the caller). */
export function htmlPage(status: number, title: string, inner: string, cookies?: string[]): WebResponse {
  const body =
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head>\n<body><main>\n${inner}\n</main></body></html>\n`;
  return { status, headers: htmlHeaders(), body, ...(cookies !== undefined && cookies.length > 0 && { cookies }) };
}

/** A 302 to `location` (a local path), with optional cookies. */
export function redirect(location: string, cookies?: string[]): WebResponse {
  return {
    status: 302,
    headers: { Location: location, 'Content-Type': 'text/html; charset=utf-8', 'X-Frame-Options': 'DENY' },
    body: '',
    ...(cookies !== undefined && cookies.length > 0 && { cookies }),
  };
}

/**
 * Django's HTML CSRF failure page (django/views/csrf.py `csrf_failure`, used for non-`/json`
 * paths by zerver/middleware.py `csrf_failure`): 403 "CSRF verification failed. Request aborted."
 */
export function csrfFailurePage(reason: string): WebResponse {
  return htmlPage(403, 'Forbidden (403)', `<h1>Forbidden (403)</h1>\n<p>CSRF verification failed. Request aborted.</p>\n<p>${escapeHtml(reason)}</p>`);
}
